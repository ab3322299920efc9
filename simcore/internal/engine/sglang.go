package engine

import "aisimulate/simcore/internal/xmath"

// SGLang policy (simulation.md §8): every pass is either an extend (prefill) pass or a decode
// pass; admission is budgeted with the new-token ratio; decode pressure retracts requests.

const sglClipMaxNewTokens = 4096

type sglState struct {
	ratio, initRatio, minRatio, decay float64
	chunked                           *Request // request in chunked prefill (not running)
	noPrefillPasses                   int      // prefill_decode_interval countdown
	extend                            bool     // the formed pass is an extend pass
	batch                             []*Request
}

func (s *sglState) init(cfg *RankConfig) {
	cons := cfg.Conservativeness
	if cons == 0 {
		cons = 1
	}
	s.initRatio = min(0.7*cons, 1)
	s.minRatio = min(s.initRatio*0.14, 1)
	s.decay = (s.initRatio - s.minRatio) / 600
	s.ratio = s.initRatio
}

// ReserveDestination takes the blocks a destination-first hand-off needs on this decode rank
// (ceil((L+1)/page) pages) before its transfer starts; when they are not available the
// request waits in FIFO order (RetryDestinations) and false is returned.
func (k *Rank) ReserveDestination(r *Request) bool {
	if len(k.pendingDest) == 0 && k.takeDestination(r) {
		return true
	}
	k.pendingDest = append(k.pendingDest, r)
	return false
}

func (k *Rank) takeDestination(r *Request) bool {
	need := xmath.CeilDiv(r.L+1, k.cfg.BlockSize)
	if !k.KV.CanReserve(need, 0) {
		return false
	}
	k.KV.TakeAnon(need)
	r.destBlocks = need
	return true
}

// RetryDestinations reserves waiting hand-offs from the head while blocks allow and returns
// the ones whose transfer can now start.
func (k *Rank) RetryDestinations() []*Request {
	var started []*Request
	for len(k.pendingDest) > 0 && k.takeDestination(k.pendingDest[0]) {
		started = append(started, k.pendingDest[0])
		k.pendingDest = k.pendingDest[1:]
	}
	return started
}

// ReleaseDestination frees the blocks a destination-first hand-off reserved on this decode
// rank when it never materialises there (a request with O = 1 completes at its transfer).
func (k *Rank) ReleaseDestination(r *Request) {
	if r.destBlocks > 0 {
		k.KV.Release(nil, r.destBlocks, 0, 0, true)
		r.destBlocks = 0
	}
}

func (k *Rank) formSGLangPass(start float64, w *Worker) (prefill, decode float64) {
	cfg := k.cfg
	s := &k.sgl
	bs := cfg.BlockSize
	// Hand-offs whose transfer completed join the running batch: their blocks were reserved
	// before the transfer (destination-first), so admission cannot fail.
	for k.mHead < len(k.materialized) && len(k.running) < cfg.MaxSequences {
		h := k.materialized[k.mHead]
		k.materialized[k.mHead] = nil
		k.mHead++
		h.computed = h.L
		h.admitted(start, PoolDecode, 0)
		k.addRunning(h)
	}
	if k.mHead == len(k.materialized) {
		k.materialized, k.mHead = k.materialized[:0], 0
	}
	s.extend = false
	s.batch = s.batch[:0]
	k.ready = k.ready[:0]
	k.passPrefillReqs, k.passPrefillTokens, k.passDecodeReqs, k.passDecodeKV = 0, 0, 0, 0
	if s.noPrefillPasses == 0 && (s.chunked != nil || k.wHead < len(k.waiting)) {
		var reserved float64
		for _, r := range k.running {
			reserved += float64(min(r.remainingOut(cfg.MaxModelLen), sglClipMaxNewTokens)) * s.ratio
		}
		remTotal := float64((k.KV.Free()+k.KV.Inactive())*bs) - reserved
		remInput := cfg.MaxPrefillTokens
		remChunk := cfg.ChunkedPrefillSize
		admitted := 0
		take := func(r *Request, first bool) bool {
			if len(k.running)+admitted >= cfg.MaxSequences || remChunk <= 0 || remInput <= 0 {
				return false
			}
			extend := r.Known() - r.computed
			// A truncated chunk is rounded down to whole pages; the rest of a prompt goes whole.
			c := min(extend, remChunk, remInput)
			if c < extend {
				c = xmath.FloorDiv(c, bs) * bs
				if c == 0 {
					return false
				}
			}
			res := 0
			if c >= extend {
				c = extend
				res = min(r.remainingOut(cfg.MaxModelLen), sglClipMaxNewTokens)
				if cfg.Pool == PoolPrefill {
					res = 1 // the bootstrap token, never the output (simulation.md §11.5)
				}
			}
			if float64(c+res) >= remTotal {
				return false
			}
			fresh := xmath.CeilDiv(k.reserveTokens(r, r.computed+c), bs) - r.held()
			if !r.pinned {
				fresh = xmath.CeilDiv(k.reserveTokens(r, r.computed+c), bs) - r.hitBlocks
			}
			inactiveHits := 0
			if !r.pinned && r.hitBlocks > 0 {
				inactiveHits = r.hitBlocks - k.KV.ActiveHits(min(r.hitBlocks, len(r.hashIDs)))
			}
			if fresh > 0 && !k.KV.CanReserve(fresh, inactiveHits) {
				return false
			}
			k.budget = c
			if k.schedule(r, false, w) != ok {
				return false
			}
			remChunk -= c
			remInput -= c
			remTotal -= float64(c + res)
			admitted++
			s.batch = append(s.batch, r)
			if c < extend {
				s.chunked = r
			} else if s.chunked == r {
				s.chunked = nil
			}
			return true
		}
		if s.chunked != nil {
			r := s.chunked
			r.scheduled = 0
			if !take(r, false) && len(k.running) == 0 && k.KV.Active() == r.held() {
				// Its last chunk plus reserved output exceed everything the pool could
				// ever free (nothing else runs or holds blocks): like a head that even an
				// idle rank cannot admit, it is rejected instead of stalling the rank
				// forever [decision, docs/simulation.md].
				k.releaseBlocks(r, true)
				r.computed, r.prefilling = 0, false
				s.chunked = nil
				r.Status = Rejected
				r.Terminal = start
				w.Out = append(w.Out, Note{Kind: NoteRejected, R: r, Rank: k.ID})
			}
		}
		for s.chunked == nil && k.wHead < len(k.waiting) {
			h := k.waiting[k.wHead]
			if (cfg.MaxModelLen > 0 && h.L >= cfg.MaxModelLen) || xmath.CeilDiv(h.L+1, bs) > cfg.NumBlocks {
				k.popFront()
				h.Status = Rejected
				h.Terminal = start
				w.Out = append(w.Out, Note{Kind: NoteRejected, R: h, Rank: k.ID})
				continue
			}
			cached := 0
			if cfg.PrefixCaching && h.Admissions == 0 && h.FirstAdmit < 0 {
				cached = k.KV.Match(h.PromptHashIDs(bs, k.cfg.HashIDs)) * bs
				if cached > h.L-1 {
					cached = xmath.FloorDiv(h.L-1, bs) * bs
				}
			}
			h.computed = cached
			h.hitBlocks, h.pinned, h.registered = xmath.FloorDiv(cached, bs), false, 0
			h.scheduled = 0
			if !take(h, true) {
				h.computed, h.hitBlocks = 0, 0
				if admitted == 0 && len(k.running) == 0 && s.chunked == nil && k.KV.Active() == 0 {
					// Even an idle rank cannot admit it (its prompt plus reserved output
					// exceed the pool): nothing would ever change, so it is rejected rather
					// than blocking the queue forever [decision, docs/simulation.md].
					k.popFront()
					h.Status = Rejected
					h.Terminal = start
					w.Out = append(w.Out, Note{Kind: NoteRejected, R: h, Rank: k.ID})
					continue
				}
				break
			}
			k.popFront()
			h.prefilling = true
			if h.Admissions == 0 {
				k.FirstAdmits++
				k.FirstAdmitReuse += int64(cached)
				k.FirstAdmitL += int64(h.L)
			}
			h.admitted(start, cfg.Pool, cached)
		}
	}
	if len(s.batch) > 0 {
		s.extend = true
		k.formed = true
		var sumISL, sumPrefix int64
		for _, r := range s.batch {
			sumPrefix += int64(r.before)
			sumISL += int64(r.before + r.scheduled)
		}
		n := len(s.batch)
		k.passPrefillReqs, k.passPrefillTokens = n, sumISL-sumPrefix
		if cfg.Pool != PoolDecode {
			prefill = cfg.Timing.PrefillMs(n, floorMean(sumISL, n), floorMean(sumPrefix, n))
		}
		if cfg.PrefillDecodeInterval > 0 {
			s.noPrefillPasses = cfg.PrefillDecodeInterval
		}
		return prefill, 0
	}
	if s.noPrefillPasses > 0 {
		s.noPrefillPasses--
	}
	if len(k.running) == 0 {
		return 0, 0
	}
	// Decode pass: every running request needs KV for its newest token.
	retracted := false
	for {
		need := 0
		for _, r := range k.running {
			need += xmath.CeilDiv(r.Known(), bs) - r.held()
		}
		if need <= k.KV.Free()+k.KV.Inactive() || len(k.running) == 0 {
			break
		}
		k.retract(w)
		retracted = true
	}
	var activeKV int64
	for _, r := range k.running {
		// One new token, or with MTP every token of the last burst (mtp.go).
		k.budget = max(1, r.Known()-r.computed)
		r.scheduled = 0
		k.schedule(r, false, w)
		k.ready = append(k.ready, r)
		activeKV += int64(r.Known())
	}
	k.passDecodeReqs, k.passDecodeKV = len(k.ready), activeKV
	// A pass that only retracted still counts (as a vLLM pass that only preempts): its empty
	// completion lets the victims be re-admitted or rejected instead of idling with work.
	k.formed = len(k.ready) > 0 || retracted
	if n := len(k.ready); n > 0 && cfg.Pool != PoolPrefill {
		decode = cfg.Timing.DecodeMs(n, activeKV, floorMean(activeKV, n), int64(cfg.NumBlocks)*int64(bs))
	}
	return 0, decode
}

// retract removes the running request with the fewest generated tokens (ties: longest
// prompt, then highest ordinal), resets it to the back of waiting and re-estimates the ratio.
func (k *Rank) retract(w *Worker) {
	vi := 0
	for i, r := range k.running {
		v := k.running[vi]
		if r.generated < v.generated || r.generated == v.generated && (r.L > v.L || r.L == v.L && r.Ordinal > v.Ordinal) {
			vi = i
		}
	}
	victim := k.running[vi]
	k.releaseBlocks(victim, false)
	victim.computed = 0
	victim.Preemptions++
	k.removeRunning(victim)
	k.waiting = append(k.waiting, victim)
	w.Out = append(w.Out, Note{Kind: NotePreempted, R: victim, Rank: k.ID})
	var gen, out int64
	for _, r := range k.running {
		gen += int64(r.generated)
		out += int64(r.O)
	}
	s := &k.sgl
	if out > 0 {
		s.ratio = min(1, float64(gen+20*int64(len(k.running)))/float64(out))
	}
	if s.ratio < s.minRatio {
		s.ratio = s.minRatio
	}
}

func (k *Rank) finishSGLangPass(end float64, w *Worker, p int32) {
	cfg := k.cfg
	s := &k.sgl
	if s.extend {
		for _, r := range s.batch {
			if r.computed < r.Known() {
				continue
			}
			r.prefilling = false
			w.Out = append(w.Out, Note{Kind: NotePrefillDone, R: r, Rank: k.ID})
			switch {
			case cfg.Pool == PoolPrefill && r.O > 0:
				k.Held = append(k.Held, r)
				w.Out = append(w.Out, Note{Kind: NoteHandoff, R: r, Rank: k.ID})
			case r.remainingOut(cfg.MaxModelLen) <= 0:
				k.complete(r, end, w)
			default:
				r.emit(end, w, p)
				if r.remainingOut(cfg.MaxModelLen) <= 0 {
					k.complete(r, end, w)
				} else {
					k.addRunning(r)
				}
			}
		}
		return
	}
	if len(k.ready) == 0 {
		return
	}
	s.ratio = max(s.minRatio, s.ratio-s.decay)
	var done []*Request
	for _, r := range k.running {
		k.emitDecode(r, end, w, p) // MTP bursts (mtp.go)
		if r.remainingOut(cfg.MaxModelLen) <= 0 {
			done = append(done, r)
		}
	}
	for _, r := range done {
		k.complete(r, end, w)
		k.removeRunning(r)
	}
}

// complete makes r terminal `completed` at end and frees its KV.
func (k *Rank) complete(r *Request, end float64, w *Worker) {
	k.releaseBlocks(r, true)
	r.Status = Completed
	r.Terminal = end
	w.Out = append(w.Out, Note{Kind: NoteCompleted, R: r, Rank: k.ID})
}
