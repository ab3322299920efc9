package outputs

import (
	"math"
	"strconv"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
)

// AppendRecordBoth appends the per-request record of r (docs/semantics/outputs.md §6.3) both
// ways in one pass: compact to dst (the bytes canon.Compact makes of the record object,
// written field by field in sorted key order, so a captured run allocates nothing per record:
// a map per record, sorted and encoded, cost a millisecond per request in WebAssembly) and
// laid out pretty to pretty (the bytes canon.AppendPrettyCompact makes
// of them with the prefix recordIndent, an element of prediction.json's per_request). Each
// value is formatted once, into the compact bytes, and copied to the pretty ones; keys, nulls
// and structure come from texts made once per object kind (objectLayout), the keys and nulls
// between two values in one append per layout, so the pretty layout needs no scan of the
// compact bytes.
//
// TestAppendRecordIsCanon checks both against the record built as a map, on random outcomes
// covering every branch. h is scratch space for r's history, reused from record to record.
func AppendRecordBoth(dst, pretty []byte, res *replay.Result, r *engine.Outcome, disagg bool, h *engine.History) ([]byte, []byte, error) {
	w := recordWriter{b: dst, p: pretty, laid: len(dst)}
	w.record(res, r, disagg, h)
	w.emit()
	return w.b, w.p, w.err
}

// record appends the record of r.
func (w *recordWriter) record(res *replay.Result, r *engine.Outcome, disagg bool, h *engine.History) {
	h = historyOf(res, r, h)
	tok := r.Tokens
	o := &layouts.record
	readm := 0
	for i := range h.Admissions {
		if admissionOrdinal(h.Admissions, i) > 0 {
			readm++
		}
	}
	w.member(o, kAdmissionCount)
	w.int(int64(len(h.Admissions)))
	w.member(o, kAdmissionHistory)
	w.listOpen(len(h.Admissions))
	for i, a := range h.Admissions {
		if i > 0 {
			w.raw(&elementSeparator)
		}
		po := admissionOrdinal(h.Admissions, i)
		e := &layouts.admission
		w.member(e, kAdmissionOrdinal)
		w.int(int64(i))
		w.optFloat(e, kAtMs, true, a.At)
		w.member(e, kIsReadmission)
		w.b = strconv.AppendBool(w.b, po > 0)
		w.member(e, kAdmissionPool)
		w.b = canon.AppendString(w.b, engine.Pool(a.Pool).String())
		w.optInt(e, kPoolAdmissionOrdinal, true, po)
		w.optInt(e, kAdmissionReusedInputTokens, true, a.Reused)
		w.close(e)
	}
	w.listClose(len(h.Admissions))
	w.optFloat(o, kArrivalTimeMs, true, r.Arrival)
	decodeSeen := disagg && (r.DecodeAdmit > 0 || r.DecodeReused > 0)
	w.optFloat(o, kDecodeAdmitMs, decodeSeen, r.DecodeAdmit)
	w.optInt(o, kDecodeReusedInputTokens, decodeSeen, r.DecodeReused)
	w.null(o, kDecodeRouteOverlapTokens)
	w.optInt(o, kDecodeWorkerIdx, r.WorkerID >= 0, int(r.WorkerID))
	w.optFloat(o, kDestinationActivatedMs, disagg && r.DestActivated > 0, r.DestActivated)
	w.optFloat(o, kDestinationReservedMs, disagg && r.DestReserved > 0, r.DestReserved)
	w.optFloat(o, kDispatchedAtMs, true, r.Arrival)
	w.optFloat(o, kE2eLatencyMs, tok >= 1, max(0, r.LastToken-r.Arrival))
	w.optFloat(o, kFirstAdmitMs, r.FirstAdmit >= 0, r.FirstAdmit)
	w.optFloat(o, kFirstTokenMs, tok >= 1, r.FirstToken)
	w.optInt(o, kInputLength, true, r.L)
	w.optFloat(o, kItlMs, tok >= 2, max(0, r.LastToken-r.FirstToken)/float64(tok-1))
	w.optFloat(o, kLastTokenMs, tok >= 1, r.LastToken)
	w.optInt(o, kOutputLength, true, tok)
	if r.PlayRef != 0 {
		w.member(o, kPlayID)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.PlayRef))
	} else {
		w.skip()
	}
	w.optFloat(o, kPrefillAdmitMs, disagg && r.FirstAdmit >= 0, r.FirstAdmit)
	w.optInt(o, kPrefillRouteOverlapTokens, r.HasRouteOverlap, r.PrefillOverlapTokens)
	w.optInt(o, kPrefillWorkerIdx, disagg && (r.FirstAdmit >= 0 || r.PrefillWorker >= 0), int(r.PrefillWorker))
	w.member(o, kPressureRecordOrdinals)
	w.listOpen(len(h.Pressure))
	for i, x := range h.Pressure {
		if i > 0 {
			w.raw(&elementSeparator)
		}
		w.int(int64(x))
	}
	w.listClose(len(h.Pressure))
	w.optInt(o, kReadmissionCount, true, readm)
	if r.RequestRef != 0 {
		w.member(o, kRequestID)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.RequestRef))
	} else {
		w.skip()
	}
	w.optInt(o, kRequestedOutputLength, true, r.O)
	w.optInt(o, kReusedInputTokens, true, r.Reuse)
	w.member(o, kRoutingHistory)
	w.listOpen(len(h.Routes))
	for i, rt := range h.Routes {
		if i > 0 {
			w.raw(&elementSeparator)
		}
		w.route(rt, r.L)
	}
	w.listClose(len(h.Routes))
	if r.SessionRef != 0 {
		w.member(o, kSessionID)
		w.b = canon.AppendString(w.b, lookup(res.Strings, r.SessionRef))
	} else {
		w.null(o, kSessionID)
	}
	sourceSeen := disagg && (r.SourceHeld > 0 || r.SourceReleased > 0)
	w.optFloat(o, kSourceHeldMs, sourceSeen, r.SourceHeld)
	w.optFloat(o, kSourceReleasedMs, sourceSeen, r.SourceReleased)
	w.member(o, kTerminalStatus)
	w.b = canon.AppendString(w.b, r.Status.String())
	w.optFloat(o, kTerminalTimeMs, true, r.Terminal)
	w.optFloat(o, kTtftMs, tok >= 1, max(0, r.FirstToken-r.Arrival))
	w.optFloat(o, kTtstMs, tok >= 2, max(0, r.SecondToken-r.FirstToken))
	w.optInt(o, kTurnIndex, r.HasTurn, int(r.Turn))
	w.member(o, kUUID)
	w.b = appendUUID(w.b, r.Ordinal)
	w.close(o)
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
	e := &layouts.route
	w.optInt(e, kBestAvailableOverlapBlocks, rt.HasOverlap, rt.BestOverlap)
	w.optInt(e, kDPRank, placed, int(rt.Rank))
	w.optInt(e, kLogicalWorkerID, placed, int(rt.Worker))
	w.member(e, kOutcome)
	if rt.Queued {
		w.b = canon.AppendString(w.b, "queued")
	} else {
		w.b = canon.AppendString(w.b, "immediate")
	}
	w.optInt(e, kOverlapRegretBlocks, rt.HasOverlap, rt.BestOverlap-rt.Overlap)
	w.null(e, kPlacementReplicaID)
	w.member(e, kRoutePool)
	w.b = canon.AppendString(w.b, engine.Pool(rt.Pool).String())
	w.optFloat(e, kQueueEnteredAtMs, rt.Queued, rt.EnteredAt)
	switch {
	case !rt.Queued:
		w.optFloat(e, kQueueWaitMs, true, 0)
	default:
		w.optFloat(e, kQueueWaitMs, placed, max(0, rt.ReleasedAt-rt.EnteredAt))
	}
	w.optFloat(e, kReleasedAtMs, rt.Queued && placed, rt.ReleasedAt)
	w.optInt(e, kReportedOverlapTokens, rt.HasOverlap, min(l, rt.Overlap*rt.BlockSize))
	w.optInt(e, kSchedulerID, placed, int(rt.Scheduler))
	w.optInt(e, kSelectedOverlapBlocks, rt.HasOverlap, rt.Overlap)
	w.close(e)
}

// recordWriter appends the members of a record, compact to b and laid out pretty to p; the
// first non-finite float is its error. Values are formatted into
// b only; b[laid:] are value bytes not yet copied to p. Keys and nulls are not written at
// once: they are the pending run, c0:c1 of layouts.compact and p0:p1 of layouts.pretty,
// written when a value or a structural string follows (emit), so consecutive keys and nulls
// are one append per layout. A member continues the run when the run ends where it starts.
type recordWriter struct {
	b, p           []byte
	laid           int
	err            error
	key            int // the end of the key being written in layouts.compact, for the error
	c0, c1, p0, p1 int
	// floats are the last floats written (end 0: none), nextFloat the one to replace.
	floats    [4]recentFloat
	nextFloat int
}

// emit copies the value bytes written since the last emit to the pretty layout, then writes
// the pending run.
func (w *recordWriter) emit() {
	if w.laid < len(w.b) {
		w.p = append(w.p, w.b[w.laid:]...)
	}
	if w.c0 < w.c1 {
		w.b = append(w.b, layouts.compact[w.c0:w.c1]...)
		w.p = append(w.p, layouts.pretty[w.p0:w.p1]...)
		w.c0, w.p0 = w.c1, w.p1
	}
	w.laid = len(w.b)
}

// member writes the key of member m of o, and the pending run before it; the value follows.
func (w *recordWriter) member(o *objectLayout, m int) {
	s := &o.at[m]
	if w.c1 != s.cStart {
		w.c0, w.p0 = s.cStart, s.pStart // the run is empty (see null)
	}
	w.c1, w.p1 = s.cKey, s.pKey
	w.emit()
	w.key = s.cKey
}

// null writes member m of o with the value null: it extends the pending run, or starts one
// at m when the run ends elsewhere. The run is empty then (a value, a structural string or
// skip wrote it), so null never writes and is inlined.
func (w *recordWriter) null(o *objectLayout, m int) {
	s := &o.at[m]
	if w.c1 != s.cStart {
		w.c0, w.p0 = s.cStart, s.pStart
	}
	w.c1, w.p1 = s.cNull, s.pNull
}

// skip leaves out a member the record does not have (play_id, request_id): the pending run,
// which ends before it, is written.
func (w *recordWriter) skip() { w.emit() }

// close ends the object o, whose members are written.
func (w *recordWriter) close(o *objectLayout) {
	last := &o.at[len(o.at)-1]
	if w.c1 != last.cNull {
		w.c0, w.p0 = last.cNull, last.pNull // the run is empty (see null)
	}
	w.c1, w.p1 = o.cEnd, o.pEnd
}

// raw writes a structural string, its compact and pretty forms.
func (w *recordWriter) raw(s *structural) {
	w.emit()
	w.b = append(w.b, s.compact...)
	w.p = append(w.p, s.pretty...)
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

// int writes x; a single digit, the common case (counts, ranks, ordinals), without a call.
func (w *recordWriter) int(x int64) {
	if uint64(x) < 10 {
		w.b = append(w.b, byte('0'+x))
		return
	}
	w.b = strconv.AppendInt(w.b, x, 10)
}

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
		w.err = &canon.NonFiniteError{Path: layouts.keyBefore(w.key)}
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

// optInt writes member m of o: x when ok, else null.
func (w *recordWriter) optInt(o *objectLayout, m int, ok bool, x int) {
	if ok {
		w.member(o, m)
		w.int(int64(x))
	} else {
		w.null(o, m)
	}
}

// optFloat writes member m of o: x when ok, else null.
func (w *recordWriter) optFloat(o *objectLayout, m int, ok bool, x float64) {
	if ok {
		w.member(o, m)
		w.float(x)
	} else {
		w.null(o, m)
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
