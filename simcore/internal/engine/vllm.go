package engine

import "aisimulate/simcore/internal/xmath"

// vLLM policy (docs/semantics/simulation.md §6): each pass schedules running requests first in admission
// order, then materialized hand-offs (decode ranks), then the waiting head FIFO with
// head-of-line blocking; admission is optimistic and a failed block reservation of a running
// request preempts the newest running request. TensorRT-LLM shares this pass and differs only
// in admission, rejection and no preemption (trtllm.go).

// formVLLMPass schedules one vLLM pass at start (docs/semantics/simulation.md §6.2) and returns its
// prefill and decode parts. TensorRT-LLM runs the same pass with its own admission and
// rejection rule (admits, rejects).
func (k *Rank) formVLLMPass(start float64, w *Worker) (prefill, decode float64) {
	cfg := k.cfg
	pass := int64(len(w.PassEnds))
	k.wakeDue(pass, w)
	if k.steadyN > 0 && !k.steadyFits() {
		k.materializeAll(pass, w)
	}
	k.budget = cfg.MaxBatchedTokens - k.steadyN
	k.preempted = false
	for _, r := range k.active {
		r.scheduled = 0
	}
	// (a) running requests first, in admission order. Steady requests (all of which fit, as
	// steadyFits checked) take one token each without being visited.
	for i := 0; i < len(k.active); {
		if k.budget == 0 {
			break
		}
		r := k.active[i]
		// Fast path: a decoding request whose next token fits its last block.
		if !r.prefilling && r.pinned && r.L+r.generated-r.computed == 1 && r.computed < r.held()*cfg.BlockSize {
			r.before = r.computed
			r.computed++
			r.scheduled = 1
			k.budget--
			if cfg.PrefixCaching && r.computed%cfg.BlockSize == 0 {
				k.registerFull(r)
			}
			i++
			continue
		}
		res := k.schedule(r, true, w)
		if res == blocked {
			break
		}
		if res == currentPreempted {
			continue
		}
		i++
	}
	// (b) decode ranks: materialized hand-offs, FIFO, head-of-line.
	for len(k.running) < cfg.MaxSequences && k.budget > 0 && k.mHead < len(k.materialized) {
		h := k.materialized[k.mHead]
		hits := k.KV.Match(h.PromptHashIDs(cfg.BlockSize, cfg.HashIDs))
		if k.noEvict && k.trtRejects(h) {
			// A hand-off the decode pool can never hold is rejected as at enqueue instead
			// of stalling the rank (docs/semantics/simulation.md §7).
			k.materialized[k.mHead] = nil
			k.mHead++
			h.Status, h.Terminal = Rejected, start
			w.Out = append(w.Out, Note{Kind: NoteRejected, R: h, Rank: k.ID})
			continue
		}
		if !k.admitsHandoff(h, hits) {
			break
		}
		h.computed = h.L
		h.hitBlocks, h.pinned, h.registered = hits, false, 0
		h.scheduled = 0
		if k.schedule(h, false, w) != ok {
			h.computed = 0
			break
		}
		k.materialized[k.mHead] = nil
		k.mHead++
		if k.mHead == len(k.materialized) {
			k.materialized, k.mHead = k.materialized[:0], 0
		}
		h.admitted(start, PoolDecode, hits*cfg.BlockSize)
		k.addRunning(h)
	}
	// (c) waiting head, FIFO with head-of-line blocking.
	for !k.preempted && len(k.running) < cfg.MaxSequences && k.budget > 0 && k.wHead < len(k.waiting) {
		h := k.waiting[k.wHead]
		if k.rejects(h) {
			k.popFront()
			h.Status = Rejected
			h.Terminal = start
			w.Out = append(w.Out, Note{Kind: NoteRejected, R: h, Rank: k.ID})
			continue
		}
		known := h.Known()
		bs := cfg.BlockSize
		cached := 0
		var hashes []int32
		if cfg.PrefixCaching {
			h.extendHashIDs(known, bs, cfg.HashIDs)
			hashes = h.hashIDs[:min(xmath.FloorDiv(known, bs), h.Shareable(bs))]
			m := k.KV.Match(hashes)
			if m == len(hashes) && h.ownPool == k.KV && len(h.ownIDs) > 0 {
				m += k.KV.MatchOwn(h.ownIDs, h.ownGens)
			}
			cached = min(m, xmath.FloorDiv(known, bs)) * bs
			if h.remainingOut(cfg.MaxModelLen) > 0 {
				if c := xmath.FloorDiv(known-1, bs) * bs; c < cached {
					cached = c
				}
			}
		}
		hitBlocks := xmath.FloorDiv(cached, bs)
		activeHits := 0
		if hitBlocks > 0 {
			activeHits = k.KV.ActiveHits(min(hitBlocks, len(hashes)))
		}
		if !k.admits(h, activeHits) {
			break
		}
		h.computed = cached
		h.hitBlocks, h.pinned, h.registered = hitBlocks, false, 0
		h.scheduled = 0
		if k.schedule(h, false, w) != ok {
			h.computed, h.hitBlocks = 0, 0
			break
		}
		k.admitFront(h, start, cfg.Pool, cached)
		k.addRunning(h)
	}
	return k.passTimes(pass)
}

// rejects applies the context-length and capacity rejection rules (docs/semantics/simulation.md §3, §7).
func (k *Rank) rejects(h *Request) bool {
	cfg := k.cfg
	if cfg.MaxModelLen > 0 && h.L >= cfg.MaxModelLen {
		return true
	}
	if k.noEvict {
		return k.trtRejects(h)
	}
	return xmath.CeilDiv(k.admitTokens(h), cfg.BlockSize) > cfg.NumBlocks
}

// admits is the admission rule of the waiting head h whose cached prefix holds activeHits
// blocks already active on the rank: vLLM admits optimistically when the blocks of its known
// tokens fit the free blocks (docs/semantics/simulation.md §6.2 (c)); TensorRT-LLM reserves to completion (trtAdmits).
func (k *Rank) admits(h *Request, activeHits int) bool {
	if k.noEvict {
		return k.trtAdmits(h, activeHits)
	}
	cfg := k.cfg
	return xmath.CeilDiv(k.admitTokens(h), cfg.BlockSize)-activeHits <= cfg.NumBlocks-k.KV.Active()
}

// admitsHandoff is the admission rule of the materialized head h with hits prefix blocks
// resident on the decode rank (docs/semantics/simulation.md §11.3): vLLM counts the active ones as credit against the
// blocks of its known tokens; TensorRT-LLM needs its whole to-completion footprint, no prefix
// credit (docs/semantics/simulation.md §7, §11.3 amended).
func (k *Rank) admitsHandoff(h *Request, hits int) bool {
	if k.noEvict {
		return k.trtAdmits(h, 0)
	}
	cfg := k.cfg
	return xmath.CeilDiv(h.Known(), cfg.BlockSize)-k.KV.ActiveHits(hits) <= cfg.NumBlocks-k.KV.Active()
}

// preempt releases victim's KV and pushes it to the front of the waiting queue (docs/semantics/simulation.md §6.2).
func (k *Rank) preempt(victim *Request, w *Worker) {
	k.releaseBlocks(victim, false)
	if victim.scheduled > 0 {
		k.budget += victim.scheduled
		victim.scheduled = 0
	}
	victim.computed = 0
	victim.prefilling = false
	victim.Preemptions++
	k.removeRunning(victim)
	k.pushFront(victim)
	k.preempted = true
	w.Out = append(w.Out, Note{Kind: NotePreempted, R: victim, Rank: k.ID})
}

// finishVLLMPass applies a vLLM or TensorRT-LLM pass's results at end (docs/semantics/simulation.md §6.3).
func (k *Rank) finishVLLMPass(end float64, w *Worker, p int32) {
	cfg := k.cfg
	anyDone := false
	for _, r := range k.active {
		if r.prefilling && r.scheduled > 0 && r.computed >= r.Known() {
			r.prefilling = false
			r.promptDone = true // MTP: its token this pass is a single one (mtp.go)
			w.Out = append(w.Out, Note{Kind: NotePrefillDone, R: r, Rank: k.ID})
			if cfg.Pool == PoolPrefill || r.remainingOut(cfg.MaxModelLen) <= 0 {
				anyDone = true
			}
		}
	}
	for _, r := range k.ready {
		if r.promptDone {
			r.promptDone = false
			r.emit(end, w, p)
		} else {
			k.emitDecode(r, end, w, p) // MTP bursts (mtp.go)
		}
		if r.remainingOut(cfg.MaxModelLen) <= 0 {
			anyDone = true
		}
	}
	if anyDone {
		// Completions, hand-offs and prefill-only finishes leave running, order preserved.
		kept := k.active[:0]
		for _, r := range k.active {
			switch {
			case cfg.Pool == PoolPrefill && r.O > 0 && !r.prefilling && r.scheduled > 0 && r.computed >= r.Known():
				k.running = removeBySeq(k.running, r)
				k.heldUncounted(r)
				r.inRunning = false
				k.footprintRemoved(r)
				k.Held = append(k.Held, r)
				w.Out = append(w.Out, Note{Kind: NoteHandoff, R: r, Rank: k.ID})
			case !r.prefilling && r.remainingOut(cfg.MaxModelLen) <= 0:
				k.releaseBlocks(r, true)
				k.running = removeBySeq(k.running, r)
				r.inRunning = false
				k.footprintRemoved(r)
				r.Status = Completed
				r.Terminal = end
				w.Out = append(w.Out, Note{Kind: NoteCompleted, R: r, Rank: k.ID})
			default:
				kept = append(kept, r)
			}
		}
		for i := len(kept); i < len(k.active); i++ {
			k.active[i] = nil
		}
		k.active = kept
	}
	// Requests that emitted this pass and will only decode for a while leave the active list.
	if len(k.ready) > 0 && cfg.Pool != PoolPrefill {
		k.enterSteady(int64(p) + 1)
	}
}
