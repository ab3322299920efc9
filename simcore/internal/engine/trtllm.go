package engine

import "aisimulate/simcore/internal/xmath"

// TensorRT-LLM policy (docs/semantics/simulation.md §7, GUARANTEED_NO_EVICT): the vLLM pass of vllm.go with
// a different admission and rejection rule and no preemption. A request is admitted only when
// the pool can hold its whole sequence, ceil((L + O)/block_size) blocks (L + 1 tokens on a
// disaggregated prefill rank, trtOut), on top of what every running request may still take
// until it completes; its output is first clipped to what the pool and the context can hold. The rank keeps Σ to-completion blocks and Σ held blocks over
// running requests so that admission does not visit the running list.
//
// Every hook below is a no-op on other backends (k.noEvict is false), so the shared code
// calls them unconditionally.

// clipOutput clips r's output to what the pool and context can hold (docs/semantics/simulation.md §7), at
// enqueue on an aggregated rank and when a hand-off is materialized on a decode rank. On an
// aggregated rank a prompt that leaves no room for one output token is rejected at its first
// pass; a hand-off already has its first token and keeps at least one more to owe (a decode
// rank that can never hold it rejects it, formVLLMPass (b)). A prefill rank clips nothing: its
// footprint is the prompt and the bootstrap token (docs/semantics/simulation.md §11.5 amended), the output is the decode
// pool's.
func (k *Rank) clipOutput(r *Request) {
	cfg := k.cfg
	if !k.noEvict || cfg.Pool == PoolPrefill {
		return
	}
	limit := cfg.NumBlocks * cfg.BlockSize
	if cfg.MaxModelLen > 0 && cfg.MaxModelLen < limit {
		limit = cfg.MaxModelLen
	}
	if r.L+r.O <= limit {
		return
	}
	r.O = limit - r.L
	if cfg.Pool == PoolDecode {
		r.O = max(r.O, r.generated+1)
		return
	}
	if r.O < 1 {
		r.O = 0
		r.noRoom = true
	}
}

// trtOut is the output r reserves to completion: all of it, except on a disaggregated prefill
// rank, which produces only the hidden bootstrap token (footprint.go).
func (k *Rank) trtOut(r *Request) int {
	if k.cfg.Pool == PoolPrefill {
		return bootstrapOut(r)
	}
	return r.O
}

// trtFootprint is the number of blocks r reserves to completion: ceil((L + out)/block_size).
func (k *Rank) trtFootprint(r *Request) int {
	return xmath.CeilDiv(r.L+k.trtOut(r), k.cfg.BlockSize)
}

// trtRejects is the capacity rejection rule: no room for one output token, or a whole
// sequence larger than the pool.
func (k *Rank) trtRejects(h *Request) bool {
	return h.noRoom || k.trtFootprint(h) > k.cfg.NumBlocks
}

// trtAdmits is the admission rule: the whole sequence's blocks, less the cached prefix blocks
// already active on the rank, must fit the free blocks left after every running request's
// remaining to-completion reservation. A decode rank admits a hand-off with activeHits 0: no
// prefix credit (docs/semantics/simulation.md §7, §11.3 amended).
func (k *Rank) trtAdmits(h *Request, activeHits int) bool {
	cfg := k.cfg
	need := k.trtFootprint(h) - activeHits
	avail := (cfg.NumBlocks - k.KV.Active()) - (k.trtToCompletion - k.trtHeld)
	return need <= avail
}

// footprintAdded counts r, which joined the running list, in Σ to-completion blocks.
func (k *Rank) footprintAdded(r *Request) {
	if k.noEvict {
		k.trtToCompletion += k.trtFootprint(r)
	}
}

// footprintRemoved takes r, which left the running list, out of Σ to-completion blocks.
func (k *Rank) footprintRemoved(r *Request) {
	if k.noEvict {
		k.trtToCompletion -= k.trtFootprint(r)
	}
}

// blocksTaken counts n blocks a request of the running list (or one being admitted to it)
// took in Σ held blocks.
func (k *Rank) blocksTaken(n int) {
	if k.noEvict {
		k.trtHeld += n
	}
}

// heldUncounted takes r's held blocks out of Σ held blocks, if r counts: it is about to
// release them, or it leaves the running list holding them (a finished disaggregated prefill
// waiting for its transfer).
func (k *Rank) heldUncounted(r *Request) {
	if k.noEvict && r.inRunning {
		k.trtHeld -= r.held()
	}
}
