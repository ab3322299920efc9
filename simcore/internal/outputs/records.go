package outputs

import (
	"fmt"
	"sort"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
)

// UUID is the record uuid of a request ordinal (docs/semantics/outputs.md §6.2).
func UUID(ordinal int32) string {
	s := fmt.Sprintf("%032x", uint64(ordinal))
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}

// RecordOrder sorts terminal requests for records: authored request_id (absent first), then
// arrival time, then ordinal (= uuid order) (docs/semantics/outputs.md §6.1).
func RecordOrder(res *replay.Result) []*engine.Outcome {
	out := make([]*engine.Outcome, 0, res.Outcomes.Len())
	for i := 0; i < res.Outcomes.Len(); i++ {
		if r := res.Outcomes.At(i); r.Status != engine.Pending {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if ia, ib := lookup(res.Strings, a.RequestRef), lookup(res.Strings, b.RequestRef); ia != ib {
			return ia < ib
		}
		if a.Arrival != b.Arrival {
			return a.Arrival < b.Arrival
		}
		return a.Ordinal < b.Ordinal
	})
	return out
}

func nullable(ok bool, v any) any {
	if !ok {
		return nil
	}
	return v
}

func lookup(table []string, ref int32) string {
	if ref == 0 {
		return ""
	}
	return table[ref-1]
}

// Record is the per-request object of docs/semantics/outputs.md §6.3.
func Record(res *replay.Result, r *engine.Outcome, disagg bool) map[string]any {
	var h *engine.History
	if i := int(r.Ordinal) - 1; i < len(res.Histories) {
		h = res.Histories[i]
	}
	if h == nil {
		h = &engine.History{}
	}
	tok := r.Tokens
	m := map[string]any{
		"uuid":                         UUID(r.Ordinal),
		"session_id":                   nullable(r.SessionRef != 0, lookup(res.Strings, r.SessionRef)),
		"turn_index":                   nullable(r.HasTurn, int(r.Turn)),
		"arrival_time_ms":              r.Arrival,
		"dispatched_at_ms":             r.Arrival,
		"first_admit_ms":               nullable(r.FirstAdmit >= 0, r.FirstAdmit),
		"terminal_time_ms":             r.Terminal,
		"first_token_ms":               nullable(tok >= 1, r.FirstToken),
		"last_token_ms":                nullable(tok >= 1, r.LastToken),
		"ttft_ms":                      nullable(tok >= 1, max(0, r.FirstToken-r.Arrival)),
		"e2e_latency_ms":               nullable(tok >= 1, max(0, r.LastToken-r.Arrival)),
		"ttst_ms":                      nullable(tok >= 2, max(0, r.SecondToken-r.FirstToken)),
		"itl_ms":                       nullable(tok >= 2, max(0, r.LastToken-r.FirstToken)/float64(tok-1)),
		"input_length":                 r.L,
		"requested_output_length":      r.O,
		"output_length":                tok,
		"reused_input_tokens":          r.Reuse,
		"terminal_status":              r.Status.String(),
		"prefill_worker_idx":           nil,
		"decode_worker_idx":            nullable(r.WorkerID >= 0, int(r.WorkerID)),
		"prefill_admit_ms":             nil,
		"source_held_ms":               nil,
		"destination_reserved_ms":      nil,
		"destination_activated_ms":     nil,
		"decode_admit_ms":              nil,
		"source_released_ms":           nil,
		"decode_reused_input_tokens":   nil,
		"prefill_route_overlap_tokens": nullable(r.HasRouteOverlap && !disagg, r.PrefillOverlapTokens),
		"decode_route_overlap_tokens":  nil,
		"pressure_record_ordinals":     intsOrEmpty(h.Pressure),
	}
	if r.RequestRef != 0 {
		m["request_id"] = lookup(res.Strings, r.RequestRef)
	}
	if r.PlayRef != 0 {
		m["play_id"] = lookup(res.Strings, r.PlayRef)
	}
	if disagg {
		m["prefill_worker_idx"] = nullable(r.FirstAdmit >= 0 || r.PrefillWorker >= 0, int(r.PrefillWorker))
		m["prefill_admit_ms"] = nullable(r.FirstAdmit >= 0, r.FirstAdmit)
		m["source_held_ms"] = nullable(r.SourceHeld > 0 || r.SourceReleased > 0, r.SourceHeld)
		m["source_released_ms"] = nullable(r.SourceReleased > 0 || r.SourceHeld > 0, r.SourceReleased)
		m["destination_reserved_ms"] = nullable(r.DestReserved > 0, r.DestReserved)
		m["destination_activated_ms"] = nullable(r.DestActivated > 0, r.DestActivated)
		m["decode_admit_ms"] = nullable(r.DecodeAdmit > 0 || r.DecodeReused > 0, r.DecodeAdmit)
		m["decode_reused_input_tokens"] = nullable(r.DecodeAdmit > 0 || r.DecodeReused > 0, r.DecodeReused)
		m["prefill_route_overlap_tokens"] = nullable(r.HasRouteOverlap, r.PrefillOverlapTokens)
		m["decode_route_overlap_tokens"] = nil
	}
	routes := make([]any, 0, len(h.Routes))
	for _, rt := range h.Routes {
		e := map[string]any{
			"pool":                          engine.Pool(rt.Pool).String(),
			"outcome":                       "immediate",
			"placement_replica_id":          nil,
			"queue_entered_at_ms":           nil,
			"released_at_ms":                nil,
			"queue_wait_ms":                 0.0,
			"logical_worker_id":             nullable(rt.Worker >= 0, int(rt.Worker)),
			"dp_rank":                       nullable(rt.Worker >= 0, int(rt.Rank)),
			"scheduler_id":                  nullable(rt.Worker >= 0, int(rt.Scheduler)),
			"selected_overlap_blocks":       nullable(rt.HasOverlap, rt.Overlap),
			"best_available_overlap_blocks": nullable(rt.HasOverlap, rt.BestOverlap),
			"overlap_regret_blocks":         nullable(rt.HasOverlap, rt.BestOverlap-rt.Overlap),
			"reported_overlap_tokens":       nullable(rt.HasOverlap, min(r.L, rt.Overlap*rt.BlockSize)),
		}
		if rt.Queued {
			e["outcome"] = "queued"
			e["queue_entered_at_ms"] = rt.EnteredAt
			if rt.Worker >= 0 {
				e["released_at_ms"] = rt.ReleasedAt
				e["queue_wait_ms"] = max(0, rt.ReleasedAt-rt.EnteredAt)
			} else {
				e["queue_wait_ms"] = nil
			}
		}
		routes = append(routes, e)
	}
	m["routing_history"] = routes
	adm := make([]any, 0, len(h.Admissions))
	perPool := map[uint8]int{}
	readm := 0
	for i, a := range h.Admissions {
		po := perPool[a.Pool]
		perPool[a.Pool]++
		if po > 0 {
			readm++
		}
		adm = append(adm, map[string]any{
			"admission_ordinal":      i,
			"at_ms":                  a.At,
			"is_readmission":         po > 0,
			"pool":                   engine.Pool(a.Pool).String(),
			"pool_admission_ordinal": po,
			"reused_input_tokens":    a.Reused,
		})
	}
	m["admission_history"] = adm
	m["admission_count"] = len(adm)
	m["readmission_count"] = readm
	return m
}

func intsOrEmpty(v []int) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
	}
	return out
}
