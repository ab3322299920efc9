package engine

// SGLang's steady decode cohort (docs/performance.md, "Calibration through the CLI"). An
// SGLang decode pass visited every running request: it claimed the KV slot of the token each
// produces (page size 1: one block per request per pass), emitted that token and checked for
// completion. A request that just decodes now joins the steady cohort of steady.go: its
// progress follows from the worker's pass index, and what the pass needs from it is taken in
// closed form over the cohort:
//
//   - its slot: one block per steady request per pass, granted with the others' slots when
//     free + evictable blocks cover every running request's need (claimDecodeSlots); when
//     they do not, every steady request is materialised first and the pass retracts exactly;
//   - its share of the timing model's Σ known (steadyKnown, as for vLLM);
//   - its share of the hand-off reservation's Σ min(remaining output, clip_max_new_tokens)
//     (takeDestination): a steady request's remaining output r₀ at its entry pass b is at
//     most the clip and drops by one per pass, so at pass p the cohort adds
//     Σ (r₀ + b) − n·p (steadyGrowth).
//
// A steady request is woken (materialised and run by the exact pass) at the pass that emits
// its last token. Every steady request is materialised before anything that reads requests
// one by one: an admission attempt (the new-token-ratio reservation Σ min(remaining, clip) ×
// ratio is a float sum in running order, which a closed form would round differently), an
// extend pass (running requests do not decode in it), a retraction (its victim is chosen on
// generated tokens) and the end of the run (Worker.Settle). Hand-offs join the running list
// at the start of a pass as active requests. The scheduler's poll (sglang_recv.go) only moves
// requests to the waiting queue, whose admission then materialises; each attention-DP rank
// keeps its own cohort and every rank forms a pass in every group round, so the worker's pass
// index numbers each rank's passes. Observable results are identical to visiting every
// request every pass (TestShortcutsChangeNothing runs SGLang both ways).

// sglSteadyAllowed reports whether an SGLang rank of cfg may use the steady cohort: as
// steadyAllowed (not with exact passes or MTP), without prefix caching (a claim registers
// full blocks one request at a time), at page size 1 (every pass takes one slot per request,
// never a partial page) and not on a disaggregated prefill rank (which never decodes).
func sglSteadyAllowed(cfg *RankConfig) bool {
	return steadyAllowed(cfg) && !cfg.PrefixCaching && cfg.BlockSize == 1 && cfg.Pool != PoolPrefill
}

// enterSGLangSteady moves the active requests that will only decode for at least one more
// pass into the steady cohort; next is the pass index they decode in next, on worker w.
// Such a request emitted a token on w's previous pass (so the tokens of its steady passes
// extend that run of consecutive passes, as materialize records them), holds exactly the slots of its known tokens
// and owes no more output than clip_max_new_tokens (steadyGrowth's closed form). It is woken
// at the pass that emits its last token.
func (k *Rank) enterSGLangSteady(next int64, w *Worker) {
	if !k.steadyOK || len(k.active) == 0 {
		return
	}
	kept := k.active[:0]
	for _, r := range k.active {
		rem := r.remainingOut(k.cfg.MaxModelLen)
		if r.runWorker != w || int64(r.runLast) != next-1 || r.computed != r.Known() ||
			r.held() != r.computed || rem > sglClipMaxNewTokens || !k.joinSteady(r, next, int64(rem-1)) {
			kept = append(kept, r)
		}
	}
	k.keepActive(kept)
}

// steadyGrowth is Σ min(remaining output, clip_max_new_tokens) over the steady requests at
// the start of pass: each owes at most the clip, one token less per pass since its entry.
func (k *Rank) steadyGrowth(pass int64) int64 {
	return k.steadySumRem - int64(k.steadyN)*pass
}
