package engine

// SGLang's scheduler_recv_interval (docs/semantics/simulation.md §8 item 5; docs/timing.md,
// "SGLang's request polling"): with an interval N > 1 the scheduler takes new requests from
// its input socket only when a counter, advanced before every scheduling round by the weight
// of the previous round's forward mode, reaches N, and then restarts it. A decode round (or
// an idle one) weighs 1, any other round (an extend) 1000, so requests that arrive while a
// batch decodes wait until the N-th decode round after the last poll, and those that arrive
// during an extend are taken in the next round.
const (
	// sglRecvWeightDecode is the counter weight of a decode or idle round
	// (SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DECODE and _NONE).
	sglRecvWeightDecode = 1
	// sglRecvWeightOther is the counter weight of any other round, an extend
	// (SGLANG_SCHEDULER_RECV_SKIPPER_WEIGHT_DEFAULT).
	sglRecvWeightOther = 1000
)

// pollInbox is the scheduler's poll before a group round: it advances the worker's counter by
// the weight of the previous round and, when the counter reaches the interval, moves every
// request that arrived since the last poll to its rank's waiting queue, in arrival order. A
// group with nothing else to run polls at once: its idle rounds take no time and each weighs
// 1, so the counter reaches any interval before the next forward. idle says the round about
// to form ran nothing (the counter then only restarts). It reports whether requests moved.
func (w *Worker) pollInbox(idle bool) bool {
	n := w.Ranks[0].cfg.RecvInterval
	if n <= 1 {
		return false
	}
	if !idle {
		if w.lastExtend {
			w.recvCount += sglRecvWeightOther
		} else {
			w.recvCount += sglRecvWeightDecode
		}
		if w.recvCount < n && w.runnable() {
			return false
		}
	}
	w.recvCount = 0
	moved := false
	for _, k := range w.Ranks {
		moved = moved || len(k.inbox) > 0
		k.waiting = append(k.waiting, k.inbox...)
		clear(k.inbox)
		k.inbox = k.inbox[:0]
	}
	return moved
}

// noteRoundMode records, for the next poll, whether the group round just formed was an
// extend pass on any rank (SGLang's forward mode of the last batch).
func (w *Worker) noteRoundMode() {
	if w.Ranks[0].cfg.RecvInterval <= 1 {
		return
	}
	w.lastExtend = false
	for _, k := range w.Ranks {
		w.lastExtend = w.lastExtend || k.sgl.extend
	}
}

// runnable reports whether any rank has work besides requests not yet polled.
func (w *Worker) runnable() bool {
	for _, k := range w.Ranks {
		if len(k.running) > 0 || k.wHead < len(k.waiting) || k.mHead < len(k.materialized) || k.sgl.chunked != nil {
			return true
		}
	}
	return false
}
