package engine

import "aisimulate/simcore/internal/xmath"

// Block footprints of the TensorRT-LLM reservation rule (simulation.md §7) in both serving
// modes, and its disaggregated parts (§7 and §11.5 as amended 2026-12-03).

// footprintTokens is the number of tokens a request may ever hold on this rank: on a
// disaggregated prefill rank its prompt plus the hidden bootstrap token (never its output,
// §11.5), elsewhere its prompt plus its (clipped) output.
func (k *Rank) footprintTokens(r *Request) int {
	if k.cfg.Pool == PoolPrefill {
		return r.L + 1
	}
	return r.L + r.O
}

// admitTokens is the number of tokens the vLLM/SGLang admission and rejection rules size a
// waiting request by: its known tokens, or on a disaggregated prefill rank its prompt plus
// the bootstrap token (simulation.md §11.5 amended).
func (k *Rank) admitTokens(r *Request) int {
	if k.cfg.Pool == PoolPrefill {
		return r.L + 1
	}
	return r.Known()
}

// reserveTokens is the number of tokens r must hold blocks for once it has computed upTo
// tokens: on a disaggregated prefill rank the chunk that completes the prompt also reserves
// the bootstrap token's slot (simulation.md §11.5 amended).
func (k *Rank) reserveTokens(r *Request, upTo int) int {
	if k.cfg.Pool == PoolPrefill && upTo >= r.L {
		return r.L + 1
	}
	return upTo
}

// toCompletion is the TensorRT-LLM to_completion(r) of §7: blocks for the whole footprint.
func (k *Rank) toCompletion(r *Request) int {
	return xmath.CeilDiv(k.footprintTokens(r), k.cfg.BlockSize)
}

// trtAvailable is the TensorRT-LLM `available` of §7: free blocks minus what the running
// requests may still allocate until they complete.
func (k *Rank) trtAvailable() int {
	return (k.cfg.NumBlocks - k.KV.Active()) - (k.trtToCompletion - k.trtHeld)
}

// clipOutput applies the TensorRT-LLM enqueue clipping of §7 on an aggregated or decode rank:
// O shrinks so that the prompt and output fit the pool and the context. On an aggregated rank
// a prompt that leaves no room for one output token marks the request for rejection; a
// hand-off on a decode rank already has its first token and keeps at least one more to owe.
func (k *Rank) clipOutput(r *Request) {
	cfg := k.cfg
	if cfg.Policy != TRTLLM || cfg.Pool == PoolPrefill {
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

// trtHandedOff drops a finished prefill from the TensorRT-LLM reservation totals when it
// leaves the running list for the source hold: its blocks stay allocated (counted as active
// by the pool) until the transfer completes, but it will allocate nothing more.
func (k *Rank) trtHandedOff(r *Request) {
	if k.cfg.Policy == TRTLLM {
		k.trtToCompletion -= k.toCompletion(r)
		k.trtHeld -= r.held()
	}
}
