package outputs

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
)

// The per-request record of docs/semantics/outputs.md §6.3 built as a value, field by field
// as the document describes it: the reference AppendRecordBoth is checked against
// (TestAppendRecordIsCanon).

func nullable(ok bool, v any) any {
	if !ok {
		return nil
	}
	return v
}

// record is the per-request object of docs/semantics/outputs.md §6.3.
func record(res *replay.Result, r *engine.Outcome, disagg bool) map[string]any {
	h := historyOf(res, r, &engine.History{})
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

// UUID is the record uuid (the reference of appendUUID) of a request ordinal (docs/semantics/outputs.md §6.2).
func UUID(ordinal int32) string {
	s := fmt.Sprintf("%032x", uint64(ordinal))
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:32]
}

// AppendRecordBoth writes the bytes canon.Compact makes of the record built as a value, for
// random outcomes and histories covering every branch: aggregated and disaggregated, every
// status, with and without tokens, turns, session, request and play ids (strings needing
// escapes), queued and immediate routes, placed or not, with and without overlap, and
// re-admissions in several pools.
func TestAppendRecordIsCanon(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	strs := []string{"s-1", "req \"quoted\"\n", "play/é", "\x01ctl"}
	f := func() float64 {
		switch rnd.IntN(4) {
		case 0:
			return 0
		case 1:
			return -1
		}
		return rnd.Float64() * math.Pow(10, float64(rnd.IntN(12)-3))
	}
	var buf []byte
	var scratch engine.History
	for n := 0; n < 5000; n++ {
		h := &engine.History{}
		for range rnd.IntN(4) {
			h.Admissions = append(h.Admissions, engine.Admission{At: f(), Pool: uint8(rnd.IntN(3)), Reused: rnd.IntN(100)})
		}
		for range rnd.IntN(3) {
			h.Routes = append(h.Routes, engine.Route{Pool: uint8(rnd.IntN(3)), Worker: int32(rnd.IntN(3) - 1), Rank: int32(rnd.IntN(2)),
				Scheduler: int32(rnd.IntN(4)), Queued: rnd.IntN(2) == 0, EnteredAt: f(), ReleasedAt: f(), Overlap: rnd.IntN(9) - 1,
				BestOverlap: rnd.IntN(9), BlockSize: 16 << rnd.IntN(3), HasOverlap: rnd.IntN(2) == 0})
		}
		for range rnd.IntN(3) {
			h.Pressure = append(h.Pressure, rnd.IntN(1000))
		}
		r := &engine.Outcome{Ordinal: int32(rnd.IntN(64) + 1), L: rnd.IntN(5000), O: rnd.IntN(500), Arrival: f(),
			Turn: int32(rnd.IntN(5)), HasTurn: rnd.IntN(2) == 0,
			SessionRef: int32(rnd.IntN(len(strs) + 1)), RequestRef: int32(rnd.IntN(len(strs) + 1)), PlayRef: int32(rnd.IntN(len(strs) + 1)),
			Status: engine.Status(rnd.IntN(5)), Terminal: f(), FirstAdmit: f(), FirstToken: f(), SecondToken: f(), LastToken: f(),
			Tokens: rnd.IntN(4), Reuse: rnd.IntN(300), WorkerID: int32(rnd.IntN(3) - 1), PrefillWorker: int32(rnd.IntN(3) - 1),
			SourceHeld: f(), SourceReleased: f(), DestReserved: f(), DestActivated: f(), DecodeAdmit: f(), DecodeReused: rnd.IntN(50),
			PrefillOverlapTokens: rnd.IntN(500), HasRouteOverlap: rnd.IntN(2) == 0}
		res := &replay.Result{Strings: strs}
		if rnd.IntN(4) > 0 {
			// The log holds other requests' histories too, interleaved with r's.
			res.Histories = &engine.HistoryLog{}
			other := r.Ordinal%64 + 1
			for i, a := range h.Admissions {
				res.Histories.AddAdmission(r.Ordinal, a)
				res.Histories.AddAdmission(other, engine.Admission{At: float64(i)})
			}
			for _, rt := range h.Routes {
				res.Histories.AddRoute(other, engine.Route{Overlap: 3})
				res.Histories.AddRoute(r.Ordinal, rt)
			}
			for _, x := range h.Pressure {
				res.Histories.AddPressure(r.Ordinal, x)
				res.Histories.AddPressure(other, x+1)
			}
		} // else no history: empty lists
		disagg := rnd.IntN(2) == 0
		want, err := canon.Compact(record(res, r, disagg))
		if err != nil {
			t.Fatal(err)
		}
		if buf, _, err = AppendRecordBoth(buf[:0], nil, res, r, disagg, &scratch); err != nil || !bytes.Equal(buf, want) {
			t.Fatalf("record %d (disagg %v): %v\n got %s\nwant %s", n, disagg, err, buf, want)
		}
		pretty, _ := canon.Pretty(record(res, r, disagg))
		if got := canon.AppendPrettyCompact(nil, buf, ""); !bytes.Equal(append(got, '\n'), pretty) {
			t.Fatalf("record %d: pretty layout\n got %s\nwant %s", n, got, pretty)
		}
		// Both layouts in one pass: the same compact bytes, and the pretty layout of a
		// per_request element. The buffers start with other bytes, which stay.
		both, laid, err := AppendRecordBoth([]byte("x"), []byte("y"), res, r, disagg, &scratch)
		wantLaid := append([]byte("y"), canon.AppendPrettyCompact(nil, want, recordIndent)...)
		if err != nil || !bytes.Equal(both, append([]byte("x"), want...)) || !bytes.Equal(laid, wantLaid) {
			t.Fatalf("record %d (disagg %v) in both layouts: %v\n got %s\n    %s\nwant %s\n    %s", n, disagg, err, both, laid, want, wantLaid)
		}
	}
}

// The uuid of any ordinal is the reference's.
func TestAppendUUID(t *testing.T) {
	for _, o := range []int32{0, 1, 15, 16, 255, 1 << 20, 1<<31 - 1} {
		if got, want := string(appendUUID(nil, o)), `"`+UUID(o)+`"`; got != want {
			t.Errorf("%d: %s, want %s", o, got, want)
		}
	}
}

// A non-finite time cannot be written: the error names its key.
func TestAppendRecordNonFinite(t *testing.T) {
	r := &engine.Outcome{Ordinal: 1, Arrival: math.Inf(1)}
	_, _, err := AppendRecordBoth(nil, nil, &replay.Result{}, r, false, &engine.History{})
	var nf *canon.NonFiniteError
	if !errors.As(err, &nf) || nf.Path != "arrival_time_ms" {
		t.Fatalf("error %v", err)
	}
}
