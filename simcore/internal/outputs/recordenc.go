package outputs

import (
	"strconv"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
)

// AppendRecord appends the compact canonical JSON (simcore/canon) of the per-request record
// of r (docs/semantics/outputs.md §6.3) to dst: the bytes canon.Compact makes of the record
// object, written field by field in sorted key order with strconv's appenders, so a captured
// run allocates nothing per record (a map per record, sorted and encoded, cost a
// millisecond per request in WebAssembly, most of it the collector's). TestAppendRecordIsCanon
// checks it against the record built as a map, on random outcomes covering every branch.
func AppendRecord(dst []byte, res *replay.Result, r *engine.Outcome, disagg bool) ([]byte, error) {
	h := historyOf(res, r)
	tok := r.Tokens
	w := recordWriter{b: append(dst, '{')}
	readm := 0
	for i := range h.Admissions {
		if admissionOrdinal(h.Admissions, i) > 0 {
			readm++
		}
	}
	w.key("admission_count", true)
	w.int(int64(len(h.Admissions)))
	w.key("admission_history", false)
	w.b = append(w.b, '[')
	for i, a := range h.Admissions {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		po := admissionOrdinal(h.Admissions, i)
		w.b = append(w.b, '{')
		w.key("admission_ordinal", true)
		w.int(int64(i))
		w.key("at_ms", false)
		w.float(a.At)
		w.key("is_readmission", false)
		w.b = strconv.AppendBool(w.b, po > 0)
		w.key("pool", false)
		w.b = canon.AppendString(w.b, engine.Pool(a.Pool).String())
		w.key("pool_admission_ordinal", false)
		w.int(int64(po))
		w.key("reused_input_tokens", false)
		w.int(int64(a.Reused))
		w.b = append(w.b, '}')
	}
	w.b = append(w.b, ']')
	w.key("arrival_time_ms", false)
	w.float(r.Arrival)
	decodeSeen := disagg && (r.DecodeAdmit > 0 || r.DecodeReused > 0)
	w.key("decode_admit_ms", false)
	w.optFloat(decodeSeen, r.DecodeAdmit)
	w.key("decode_reused_input_tokens", false)
	w.optInt(decodeSeen, r.DecodeReused)
	w.key("decode_route_overlap_tokens", false)
	w.null()
	w.key("decode_worker_idx", false)
	w.optInt(r.WorkerID >= 0, int(r.WorkerID))
	w.key("destination_activated_ms", false)
	w.optFloat(disagg && r.DestActivated > 0, r.DestActivated)
	w.key("destination_reserved_ms", false)
	w.optFloat(disagg && r.DestReserved > 0, r.DestReserved)
	w.key("dispatched_at_ms", false)
	w.float(r.Arrival)
	w.key("e2e_latency_ms", false)
	w.optFloat(tok >= 1, max(0, r.LastToken-r.Arrival))
	w.key("first_admit_ms", false)
	w.optFloat(r.FirstAdmit >= 0, r.FirstAdmit)
	w.key("first_token_ms", false)
	w.optFloat(tok >= 1, r.FirstToken)
	w.key("input_length", false)
	w.int(int64(r.L))
	w.key("itl_ms", false)
	w.optFloat(tok >= 2, max(0, r.LastToken-r.FirstToken)/float64(tok-1))
	w.key("last_token_ms", false)
	w.optFloat(tok >= 1, r.LastToken)
	w.key("output_length", false)
	w.int(int64(tok))
	if r.PlayRef != 0 {
		w.key("play_id", false)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.PlayRef))
	}
	w.key("prefill_admit_ms", false)
	w.optFloat(disagg && r.FirstAdmit >= 0, r.FirstAdmit)
	w.key("prefill_route_overlap_tokens", false)
	w.optInt(r.HasRouteOverlap, r.PrefillOverlapTokens)
	w.key("prefill_worker_idx", false)
	w.optInt(disagg && (r.FirstAdmit >= 0 || r.PrefillWorker >= 0), int(r.PrefillWorker))
	w.key("pressure_record_ordinals", false)
	w.b = append(w.b, '[')
	for i, x := range h.Pressure {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.int(int64(x))
	}
	w.b = append(w.b, ']')
	w.key("readmission_count", false)
	w.int(int64(readm))
	if r.RequestRef != 0 {
		w.key("request_id", false)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.RequestRef))
	}
	w.key("requested_output_length", false)
	w.int(int64(r.O))
	w.key("reused_input_tokens", false)
	w.int(int64(r.Reuse))
	w.key("routing_history", false)
	w.b = append(w.b, '[')
	for i, rt := range h.Routes {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.route(rt, r.L)
	}
	w.b = append(w.b, ']')
	w.key("session_id", false)
	if r.SessionRef != 0 {
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.SessionRef))
	} else {
		w.null()
	}
	sourceSeen := disagg && (r.SourceHeld > 0 || r.SourceReleased > 0)
	w.key("source_held_ms", false)
	w.optFloat(sourceSeen, r.SourceHeld)
	w.key("source_released_ms", false)
	w.optFloat(sourceSeen, r.SourceReleased)
	w.key("terminal_status", false)
	w.b = canon.AppendString(w.b, r.Status.String())
	w.key("terminal_time_ms", false)
	w.float(r.Terminal)
	w.key("ttft_ms", false)
	w.optFloat(tok >= 1, max(0, r.FirstToken-r.Arrival))
	w.key("ttst_ms", false)
	w.optFloat(tok >= 2, max(0, r.SecondToken-r.FirstToken))
	w.key("turn_index", false)
	w.optInt(r.HasTurn, int(r.Turn))
	w.key("uuid", false)
	w.b = appendUUID(w.b, r.Ordinal)
	w.b = append(w.b, '}')
	return w.b, w.err
}

// admissionOrdinal is admission i's ordinal among the admissions in its pool.
func admissionOrdinal(as []engine.Admission, i int) int {
	n := 0
	for _, a := range as[:i] {
		if a.Pool == as[i].Pool {
			n++
		}
	}
	return n
}

// route appends one routing_history element of a request of l input tokens.
func (w *recordWriter) route(rt engine.Route, l int) {
	placed := rt.Worker >= 0
	w.b = append(w.b, '{')
	w.key("best_available_overlap_blocks", true)
	w.optInt(rt.HasOverlap, rt.BestOverlap)
	w.key("dp_rank", false)
	w.optInt(placed, int(rt.Rank))
	w.key("logical_worker_id", false)
	w.optInt(placed, int(rt.Worker))
	w.key("outcome", false)
	if rt.Queued {
		w.b = canon.AppendString(w.b, "queued")
	} else {
		w.b = canon.AppendString(w.b, "immediate")
	}
	w.key("overlap_regret_blocks", false)
	w.optInt(rt.HasOverlap, rt.BestOverlap-rt.Overlap)
	w.key("placement_replica_id", false)
	w.null()
	w.key("pool", false)
	w.b = canon.AppendString(w.b, engine.Pool(rt.Pool).String())
	w.key("queue_entered_at_ms", false)
	w.optFloat(rt.Queued, rt.EnteredAt)
	w.key("queue_wait_ms", false)
	switch {
	case !rt.Queued:
		w.float(0)
	default:
		w.optFloat(placed, max(0, rt.ReleasedAt-rt.EnteredAt))
	}
	w.key("released_at_ms", false)
	w.optFloat(rt.Queued && placed, rt.ReleasedAt)
	w.key("reported_overlap_tokens", false)
	w.optInt(rt.HasOverlap, min(l, rt.Overlap*rt.BlockSize))
	w.key("scheduler_id", false)
	w.optInt(placed, int(rt.Scheduler))
	w.key("selected_overlap_blocks", false)
	w.optInt(rt.HasOverlap, rt.Overlap)
	w.b = append(w.b, '}')
}

// recordWriter appends the members of a record; the first non-finite float is its error.
type recordWriter struct {
	b   []byte
	err error
	at  string // the key being written, for the error
}

// key starts the member k (a comma before every member but the first). The keys are plain
// ASCII names, which canonical JSON writes between quotes as they are.
func (w *recordWriter) key(k string, first bool) {
	if !first {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
	w.at = k
}

func (w *recordWriter) null()       { w.b = append(w.b, "null"...) }
func (w *recordWriter) int(x int64) { w.b = strconv.AppendInt(w.b, x, 10) }
func (w *recordWriter) float(x float64) {
	b, err := canon.AppendFloat(w.b, x)
	if err != nil && w.err == nil {
		w.err = &canon.NonFiniteError{Path: w.at}
	}
	w.b = b
}

// optInt writes x when ok, else null.
func (w *recordWriter) optInt(ok bool, x int) {
	if ok {
		w.int(int64(x))
	} else {
		w.null()
	}
}

// optFloat writes x when ok, else null.
func (w *recordWriter) optFloat(ok bool, x float64) {
	if ok {
		w.float(x)
	} else {
		w.null()
	}
}

// appendUUID appends the quoted record uuid of a request ordinal (docs/semantics/outputs.md
// §6.2) without formatting through fmt: 32 lower-case hex digits of the ordinal in 8-4-4-4-12 groups.
func appendUUID(dst []byte, ordinal int32) []byte {
	const hexDigits = "0123456789abcdef"
	var d [32]byte
	v := uint64(ordinal)
	for i := 31; i >= 0; i-- {
		d[i] = hexDigits[v&15]
		v >>= 4
	}
	dst = append(dst, '"')
	dst = append(dst, d[0:8]...)
	dst = append(dst, '-')
	dst = append(dst, d[8:12]...)
	dst = append(dst, '-')
	dst = append(dst, d[12:16]...)
	dst = append(dst, '-')
	dst = append(dst, d[16:20]...)
	dst = append(dst, '-')
	dst = append(dst, d[20:32]...)
	return append(dst, '"')
}
