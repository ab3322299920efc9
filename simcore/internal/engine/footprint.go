package engine

// The prefill footprint of a disaggregated prefill rank (docs/semantics/simulation.md §11.5 amended): for
// every backend it reserves, charges, admits and rejects by the prompt plus the hidden
// bootstrap token, never by the output the decode pool will produce. TensorRT-LLM's
// to-completion rule reads it through trtOut (trtllm.go), SGLang's rem_total charge through
// reservedOut (rank.go).

// bootstrapOut is the output a disaggregated prefill rank produces for r: the hidden bootstrap
// token, or none for a prefill-only request (O = 0, docs/semantics/simulation.md §3).
func bootstrapOut(r *Request) int { return min(r.O, 1) }

// admitTokens is the number of tokens the vLLM admission and rejection rules size a waiting
// request by: its known tokens, or on a disaggregated prefill rank its prompt plus the
// bootstrap token.
func (k *Rank) admitTokens(r *Request) int {
	if k.cfg.Pool == PoolPrefill {
		return r.L + bootstrapOut(r)
	}
	return r.Known()
}

// reserveTokens is the number of tokens r must hold blocks for once it has computed upTo
// tokens: on a disaggregated prefill rank the chunk that completes the prompt also reserves
// the bootstrap token's slot, which stays held with the prompt until the transfer completes.
func (k *Rank) reserveTokens(r *Request, upTo int) int {
	if k.cfg.Pool == PoolPrefill && upTo >= r.L {
		return r.L + bootstrapOut(r)
	}
	return upTo
}
