package engine

import "aisimulate/simcore/internal/rng"

// Multi-token prediction bursts (docs/semantics/simulation.md §5.4). A request that emits a decode token in
// a pass emits 1 + k tokens, all stamped at the pass end: k is the number of leading accepted
// drafts, drawn from the request's own stream and clipped to what it still owes. A token that
// completes a prompt (the first token, or the first after a recompute) is a single token. The
// burst's tokens are appended to the sequence, so the request's next pass computes their KV
// (1 + k tokens scheduled against the budget and the KV pool, as for any tokens whose KV is
// missing); the timing model prices the drafts (perf.WithMTP).

// MTPStream is the name of the per-request MTP stream; its master seed is the request's
// ordinal, so each request draws from its own stream (docs/semantics/simulation.md §5.4).
const MTPStream = "mtp"

// acceptedDrafts draws how many of nextn = len(rates) drafts are accepted in a row: draft i
// is accepted iff uniform01() < rates[i], and the first rejection ends the draws.
func (r *Request) acceptedDrafts(rates []float64) int {
	if !r.mtpSeeded {
		r.mtpStream = *rng.New(uint64(r.Ordinal), MTPStream)
		r.mtpSeeded = true
	}
	n := 0
	for _, p := range rates {
		if r.mtpStream.Uniform01() >= p {
			break
		}
		n++
	}
	return n
}

// emitDecode records a decode step's tokens at t on worker w's pass index p: one token, then
// with MTP (cfg.NextN > 0) the accepted drafts as tokens with zero gaps.
func (k *Rank) emitDecode(r *Request, t float64, w *Worker, p int32) {
	r.emit(t, w, p)
	cfg := k.cfg
	if cfg.NextN == 0 {
		return
	}
	rem := r.remainingOut(cfg.MaxModelLen)
	if rem <= 0 {
		return
	}
	for n := min(r.acceptedDrafts(cfg.AcceptRates), rem); n > 0; n-- {
		r.emitDraft(t)
	}
}

// emitDraft records an accepted draft token at t, the time of the token before it: a zero
// ITL gap (docs/semantics/outputs.md §4.1 pools it; per-user throughput skips it).
func (r *Request) emitDraft(t float64) {
	if r.Tokens == 1 {
		r.SecondToken = t
	}
	r.gaps = append(r.gaps, 0)
	r.LastToken = t
	r.Tokens++
	r.generated++
}
