package outputs

import (
	"math"
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
// h is scratch space for r's history, reused from record to record.
func AppendRecord(dst []byte, res *replay.Result, r *engine.Outcome, disagg bool, h *engine.History) ([]byte, error) {
	w := recordWriter{b: dst}
	w.record(res, r, disagg, h)
	return w.b, w.err
}

// AppendRecordBoth appends the record of r both ways in one pass: compact to dst (the bytes
// AppendRecord makes) and laid out pretty to pretty (the bytes canon.AppendPrettyCompact makes
// of them with the prefix recordIndent, an element of prediction.json's per_request). Each
// value is formatted once, into the compact bytes, and copied to the pretty ones; keys and
// structure come from strings made once per key (recordKey), so the pretty layout needs no
// scan of the compact bytes.
func AppendRecordBoth(dst, pretty []byte, res *replay.Result, r *engine.Outcome, disagg bool, h *engine.History) ([]byte, []byte, error) {
	w := recordWriter{b: dst, p: pretty, pretty: true, laid: len(dst)}
	w.record(res, r, disagg, h)
	w.flush()
	return w.b, w.p, w.err
}

// record appends the record of r.
func (w *recordWriter) record(res *replay.Result, r *engine.Outcome, disagg bool, h *engine.History) {
	h = historyOf(res, r, h)
	tok := r.Tokens
	w.b = append(w.b, '{')
	readm := 0
	for i := range h.Admissions {
		if admissionOrdinal(h.Admissions, i) > 0 {
			readm++
		}
	}
	w.key(&kAdmissionCount, true)
	w.int(int64(len(h.Admissions)))
	w.key(&kAdmissionHistory, false)
	w.listOpen(len(h.Admissions))
	for i, a := range h.Admissions {
		if i > 0 {
			w.raw(&elementSeparator)
		}
		po := admissionOrdinal(h.Admissions, i)
		w.b = append(w.b, '{')
		w.key(&kAdmissionOrdinal, true)
		w.int(int64(i))
		w.key(&kAtMs, false)
		w.float(a.At)
		w.key(&kIsReadmission, false)
		w.b = strconv.AppendBool(w.b, po > 0)
		w.key(&kPool, false)
		w.b = canon.AppendString(w.b, engine.Pool(a.Pool).String())
		w.key(&kPoolAdmissionOrdinal, false)
		w.int(int64(po))
		w.key(&kAdmissionReusedInputTokens, false)
		w.int(int64(a.Reused))
		w.raw(&elementClose)
	}
	w.listClose(len(h.Admissions))
	w.key(&kArrivalTimeMs, false)
	w.float(r.Arrival)
	decodeSeen := disagg && (r.DecodeAdmit > 0 || r.DecodeReused > 0)
	w.key(&kDecodeAdmitMs, false)
	w.optFloat(decodeSeen, r.DecodeAdmit)
	w.key(&kDecodeReusedInputTokens, false)
	w.optInt(decodeSeen, r.DecodeReused)
	w.key(&kDecodeRouteOverlapTokens, false)
	w.null()
	w.key(&kDecodeWorkerIdx, false)
	w.optInt(r.WorkerID >= 0, int(r.WorkerID))
	w.key(&kDestinationActivatedMs, false)
	w.optFloat(disagg && r.DestActivated > 0, r.DestActivated)
	w.key(&kDestinationReservedMs, false)
	w.optFloat(disagg && r.DestReserved > 0, r.DestReserved)
	w.key(&kDispatchedAtMs, false)
	w.float(r.Arrival)
	w.key(&kE2eLatencyMs, false)
	w.optFloat(tok >= 1, max(0, r.LastToken-r.Arrival))
	w.key(&kFirstAdmitMs, false)
	w.optFloat(r.FirstAdmit >= 0, r.FirstAdmit)
	w.key(&kFirstTokenMs, false)
	w.optFloat(tok >= 1, r.FirstToken)
	w.key(&kInputLength, false)
	w.int(int64(r.L))
	w.key(&kItlMs, false)
	w.optFloat(tok >= 2, max(0, r.LastToken-r.FirstToken)/float64(tok-1))
	w.key(&kLastTokenMs, false)
	w.optFloat(tok >= 1, r.LastToken)
	w.key(&kOutputLength, false)
	w.int(int64(tok))
	if r.PlayRef != 0 {
		w.key(&kPlayID, false)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.PlayRef))
	}
	w.key(&kPrefillAdmitMs, false)
	w.optFloat(disagg && r.FirstAdmit >= 0, r.FirstAdmit)
	w.key(&kPrefillRouteOverlapTokens, false)
	w.optInt(r.HasRouteOverlap, r.PrefillOverlapTokens)
	w.key(&kPrefillWorkerIdx, false)
	w.optInt(disagg && (r.FirstAdmit >= 0 || r.PrefillWorker >= 0), int(r.PrefillWorker))
	w.key(&kPressureRecordOrdinals, false)
	w.listOpen(len(h.Pressure))
	for i, x := range h.Pressure {
		if i > 0 {
			w.raw(&elementSeparator)
		}
		w.int(int64(x))
	}
	w.listClose(len(h.Pressure))
	w.key(&kReadmissionCount, false)
	w.int(int64(readm))
	if r.RequestRef != 0 {
		w.key(&kRequestID, false)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.RequestRef))
	}
	w.key(&kRequestedOutputLength, false)
	w.int(int64(r.O))
	w.key(&kReusedInputTokens, false)
	w.int(int64(r.Reuse))
	w.key(&kRoutingHistory, false)
	w.listOpen(len(h.Routes))
	for i, rt := range h.Routes {
		if i > 0 {
			w.raw(&elementSeparator)
		}
		w.route(rt, r.L)
	}
	w.listClose(len(h.Routes))
	w.key(&kSessionID, false)
	if r.SessionRef != 0 {
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.SessionRef))
	} else {
		w.null()
	}
	sourceSeen := disagg && (r.SourceHeld > 0 || r.SourceReleased > 0)
	w.key(&kSourceHeldMs, false)
	w.optFloat(sourceSeen, r.SourceHeld)
	w.key(&kSourceReleasedMs, false)
	w.optFloat(sourceSeen, r.SourceReleased)
	w.key(&kTerminalStatus, false)
	w.b = canon.AppendString(w.b, r.Status.String())
	w.key(&kTerminalTimeMs, false)
	w.float(r.Terminal)
	w.key(&kTtftMs, false)
	w.optFloat(tok >= 1, max(0, r.FirstToken-r.Arrival))
	w.key(&kTtstMs, false)
	w.optFloat(tok >= 2, max(0, r.SecondToken-r.FirstToken))
	w.key(&kTurnIndex, false)
	w.optInt(r.HasTurn, int(r.Turn))
	w.key(&kUUID, false)
	w.b = appendUUID(w.b, r.Ordinal)
	w.raw(&recordClose)
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
	w.key(&kBestAvailableOverlapBlocks, true)
	w.optInt(rt.HasOverlap, rt.BestOverlap)
	w.key(&kDPRank, false)
	w.optInt(placed, int(rt.Rank))
	w.key(&kLogicalWorkerID, false)
	w.optInt(placed, int(rt.Worker))
	w.key(&kOutcome, false)
	if rt.Queued {
		w.b = canon.AppendString(w.b, "queued")
	} else {
		w.b = canon.AppendString(w.b, "immediate")
	}
	w.key(&kOverlapRegretBlocks, false)
	w.optInt(rt.HasOverlap, rt.BestOverlap-rt.Overlap)
	w.key(&kPlacementReplicaID, false)
	w.null()
	w.key(&kPool, false)
	w.b = canon.AppendString(w.b, engine.Pool(rt.Pool).String())
	w.key(&kQueueEnteredAtMs, false)
	w.optFloat(rt.Queued, rt.EnteredAt)
	w.key(&kQueueWaitMs, false)
	switch {
	case !rt.Queued:
		w.float(0)
	default:
		w.optFloat(placed, max(0, rt.ReleasedAt-rt.EnteredAt))
	}
	w.key(&kReleasedAtMs, false)
	w.optFloat(rt.Queued && placed, rt.ReleasedAt)
	w.key(&kReportedOverlapTokens, false)
	w.optInt(rt.HasOverlap, min(l, rt.Overlap*rt.BlockSize))
	w.key(&kSchedulerID, false)
	w.optInt(placed, int(rt.Scheduler))
	w.key(&kSelectedOverlapBlocks, false)
	w.optInt(rt.HasOverlap, rt.Overlap)
	w.raw(&elementClose)
}

// recordWriter appends the members of a record, compact to b and, when pretty is set, laid
// out pretty to p as well; the first non-finite float is its error. Values are formatted into
// b only; b[laid:] are value bytes not yet copied to p, copied before the next key or
// structural string.
type recordWriter struct {
	b, p   []byte
	pretty bool
	laid   int
	err    error
	at     string // the key being written, for the error
	// floats are the last floats written (end 0: none), nextFloat the one to replace.
	floats    [4]recentFloat
	nextFloat int
}

// flush copies the value bytes written since the last key or structure to the pretty layout.
func (w *recordWriter) flush() {
	if w.pretty {
		w.p = append(w.p, w.b[w.laid:]...)
	}
}

// key starts the member k (a comma before every member but the first).
func (w *recordWriter) key(k *recordKey, first bool) {
	skip := 1 // the comma of both forms
	if !first {
		skip = 0
	}
	w.flush()
	w.b = append(w.b, k.compact[skip:]...)
	if w.pretty {
		w.p = append(w.p, k.pretty[skip:]...)
	}
	w.laid = len(w.b)
	w.at = k.name
}

// raw writes a structural string, its compact and pretty forms.
func (w *recordWriter) raw(s *recordKey) {
	w.flush()
	w.b = append(w.b, s.compact...)
	if w.pretty {
		w.p = append(w.p, s.pretty...)
	}
	w.laid = len(w.b)
}

// listOpen starts an array of n elements: [] when it is empty (the whole array).
func (w *recordWriter) listOpen(n int) {
	if n == 0 {
		w.b = append(w.b, '[', ']')
		return
	}
	w.raw(&listOpen)
}

// listClose ends an array of n elements.
func (w *recordWriter) listClose(n int) {
	if n > 0 {
		w.raw(&listClose)
	}
}

func (w *recordWriter) null()       { w.b = append(w.b, "null"...) }
func (w *recordWriter) int(x int64) { w.b = strconv.AppendInt(w.b, x, 10) }

// float writes x, copying the bytes of an earlier float of the record with the same bits
// (a record repeats a few times: arrival_time_ms is dispatched_at_ms, e2e_latency_ms is
// last_token_ms and usually terminal_time_ms, 0.0 is common) instead of formatting it again.
func (w *recordWriter) float(x float64) {
	bits := math.Float64bits(x)
	for i := range w.floats {
		if f := &w.floats[i]; f.end > 0 && f.bits == bits {
			w.b = append(w.b, w.b[f.start:f.end]...)
			return
		}
	}
	start := len(w.b)
	b, err := canon.AppendFloat(w.b, x)
	if err != nil && w.err == nil {
		w.err = &canon.NonFiniteError{Path: w.at}
	}
	w.b = b
	if err == nil {
		w.floats[w.nextFloat] = recentFloat{bits: bits, start: start, end: len(b)}
		w.nextFloat = (w.nextFloat + 1) % len(w.floats)
	}
}

// recentFloat is where a float the record wrote lies in its compact bytes.
type recentFloat struct {
	bits       uint64
	start, end int
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
