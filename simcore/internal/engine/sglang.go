package engine

import "aisimulate/simcore/internal/xmath"

// SGLang policy (docs/semantics/simulation.md §8): every pass is either an extend (prefill) pass or a decode
// pass; admission is budgeted with the new-token ratio; decode pressure retracts requests.

// SGLang server defaults (docs/semantics/simulation.md §8).
const (
	// sglClipMaxNewTokens is clip_max_new_tokens: the most output tokens one request
	// reserves in the admission budget.
	sglClipMaxNewTokens = 4096
	// SGLangChunkedPrefillSize is chunked_prefill_size, the per-pass prefill budget of a
	// worker; each attention-DP rank gets its floor share.
	SGLangChunkedPrefillSize = 8192
	// SGLangMaxPrefillTokens is max_prefill_tokens, the per-pass input budget of a rank.
	SGLangMaxPrefillTokens = 16384
	// SGLangConservativeness is schedule_conservativeness, which scales the initial
	// new-token ratio.
	SGLangConservativeness = 1.0
	// sglDPConservativenessScale multiplies the conservativeness with attention DP > 1.
	sglDPConservativenessScale = 0.3
	// sglInitRatioBase is init_new_token_ratio before the conservativeness factor:
	// init = min(0.7 × conservativeness, 1).
	sglInitRatioBase = 0.7
	// sglMinRatioFactor gives min_new_token_ratio = min(init × 0.14, 1).
	sglMinRatioFactor = 0.14
	// sglDecaySteps is the number of decode passes over which the ratio decays from init to
	// its minimum: decay = (init − min) / 600.
	sglDecaySteps = 600
	// sglRetractHeadroom is the per-survivor token allowance of the ratio re-estimated after
	// a retraction: (Σ generated + 20 × survivors) / Σ O.
	sglRetractHeadroom = 20
)

// SGLangDefaults returns the per-rank chunked_prefill_size, max_prefill_tokens and
// schedule_conservativeness of an SGLang worker with dp attention-DP ranks (docs/semantics/simulation.md §8:
// the chunk budget is split across ranks, conservativeness × 0.3 with DP > 1).
func SGLangDefaults(dp int) (chunkedPrefillSize, maxPrefillTokens int, conservativeness float64) {
	conservativeness = SGLangConservativeness
	if dp > 1 {
		conservativeness = SGLangConservativeness * sglDPConservativenessScale
	}
	return SGLangChunkedPrefillSize / dp, SGLangMaxPrefillTokens, conservativeness
}

// DestinationFirst reports whether a disaggregated hand-off to a rank of this configuration
// reserves its decode blocks before the KV transfer starts (SGLang, docs/semantics/simulation.md §11.3)
// rather than after it (source-first: vLLM; TensorRT-LLM reserves a slot instead, SlotFirst).
func (c *RankConfig) DestinationFirst() bool { return c.Policy == SGLang }

type sglState struct {
	ratio, initRatio, minRatio, decay float64
	chunked                           *Request // request in chunked prefill (not running)
	extend                            bool     // the formed pass is an extend pass
	batch                             []*Request
	undo                              []int32 // blocks each running request's decode slot took (claimDecodeSlots)
}

func (s *sglState) init(cfg *RankConfig) {
	cons := cfg.Conservativeness
	if cons == 0 {
		cons = SGLangConservativeness // a configuration built without SGLangDefaults
	}
	s.initRatio = min(sglInitRatioBase*cons, 1)
	s.minRatio = min(s.initRatio*sglMinRatioFactor, 1)
	s.decay = (s.initRatio - s.minRatio) / sglDecaySteps
	s.ratio = s.initRatio
}

// ReserveDestination takes the blocks a destination-first hand-off needs on this decode rank
// (ceil((L+1)/page) pages) before its transfer starts; when they are not available the
// request waits in FIFO order (RetryDestinations) and false is returned.
func (k *Rank) ReserveDestination(r *Request) bool {
	if len(k.pendingDest) == 0 && k.reserve(r) {
		return true
	}
	k.pendingDest = append(k.pendingDest, r)
	return false
}

// takeDestination is SGLang's decode pre-allocation (docs/semantics/simulation.md §11.3): the
// hand-off's ceil((L+1)/page) pages are set aside only when free + evictable tokens, less the
// new-token-ratio reservation of the requests already running or reserved on the rank
// (Σ min(remaining_out, clip) × ratio, as rem_total of the extend path, §8), exceed its
// page footprint plus its own output reservation g = min(O − 1, clip) (the candidate's c + r
// of §8). A rank with nothing running or reserved only needs the pages (no stall).
func (k *Rank) takeDestination(r *Request) bool {
	bs := k.cfg.BlockSize
	need := xmath.CeilDiv(r.L+1, bs)
	if !k.KV.CanReserve(need, 0) {
		return false
	}
	g := k.handoffGrowth(r)
	if len(k.running) > 0 || k.destGrowth > 0 {
		growth := k.destGrowth
		for _, q := range k.active {
			growth += min(k.reservedOut(q), sglClipMaxNewTokens)
		}
		if k.steadyN > 0 {
			growth += int(k.steadyGrowth(int64(len(k.worker.PassEnds))))
		}
		remTotal := float64((k.KV.Free()+k.KV.Inactive())*bs) - float64(growth)*k.sgl.ratio
		if float64(need*bs+g) >= remTotal {
			return false
		}
	}
	k.KV.TakeAnon(need)
	r.destBlocks = need
	r.destGrowth = g
	k.destGrowth += g
	return true
}

// handoffGrowth is the output a hand-off reserves on its decode rank: the tokens after the
// first (which arrives with the transfer), capped by max_model_len and clip_max_new_tokens.
func (k *Rank) handoffGrowth(r *Request) int {
	g := r.O - 1
	if m := k.cfg.MaxModelLen; m > 0 {
		g = min(g, m-(r.L+1))
	}
	return max(0, min(g, sglClipMaxNewTokens))
}

// dropDestGrowth removes r's booked output from the rank's pending reservations once it runs
// (its growth is then counted with the running batch) or never arrives.
func (k *Rank) dropDestGrowth(r *Request) {
	k.destGrowth -= r.destGrowth
	r.destGrowth = 0
}

// RetryDestinations reserves waiting hand-offs from the head while blocks (or slots) allow and returns
// the ones whose transfer can now start.
func (k *Rank) RetryDestinations() []*Request {
	var started []*Request
	for len(k.pendingDest) > 0 && k.reserve(k.pendingDest[0]) {
		started = append(started, k.pendingDest[0])
		k.pendingDest = k.pendingDest[1:]
	}
	return started
}

// ReleaseDestination frees the blocks (or the slot) a hand-off reserved on this decode
// rank when it never materialises there (a request with O = 1 completes at its transfer).
func (k *Rank) ReleaseDestination(r *Request) {
	if r.destBlocks > 0 {
		k.KV.Release(nil, r.destBlocks, 0, 0, true)
		r.destBlocks = 0
	}
	k.releaseSlot(r)
	k.dropDestGrowth(r)
}

func (k *Rank) formSGLangPass(start float64, w *Worker) (prefill, decode float64) {
	cfg := k.cfg
	s := &k.sgl
	bs := cfg.BlockSize
	pass := int64(len(w.PassEnds))
	if len(k.wakes) > 0 && k.wakes[0].pass() <= pass {
		k.wakeDue(pass, w)
	}
	// Hand-offs whose transfer completed join the running batch: their blocks were reserved
	// before the transfer (destination-first), so admission cannot fail.
	for k.mHead < len(k.materialized) && len(k.running) < cfg.MaxSequences {
		h := k.materialized[k.mHead]
		k.materialized[k.mHead] = nil
		k.mHead++
		h.computed = h.Known() // its reserved pages hold the slots of L + 1 tokens
		h.admitted(start, PoolDecode, 0)
		k.dropDestGrowth(h)
		k.addRunning(h)
	}
	if k.mHead == len(k.materialized) {
		k.materialized, k.mHead = k.materialized[:0], 0
	}
	s.extend = false
	s.batch = s.batch[:0]
	k.ready = k.ready[:0]
	k.passPrefillReqs, k.passPrefillTokens, k.passDecodeReqs, k.passDecodeKV = 0, 0, 0, 0
	if w.blockedRounds == 0 && (s.chunked != nil || k.wHead < len(k.waiting)) {
		k.admitSGLang(start, w, pass)
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
		return prefill, 0
	}
	if len(k.running) == 0 {
		return 0, 0
	}
	// Decode pass: every running request needs the KV slot of the token it produces, beyond
	// the slots of its known tokens (sglSlotsAhead).
	retracted := false
	var activeKV int64
	claimed := false
	if !cfg.PrefixCaching {
		activeKV, claimed = k.claimDecodeSlots(pass)
		if !claimed {
			k.materializeAll(pass, w) // the retraction below reads every running request
		}
	}
	for !claimed {
		need := 0
		for _, r := range k.running {
			need += xmath.CeilDiv(r.Known()+1, bs) - r.held()
		}
		if need <= k.KV.Free()+k.KV.Inactive() || len(k.running) == 0 {
			break
		}
		k.retract(w)
		retracted = true
	}
	switch {
	case claimed:
	case cfg.PrefixCaching:
		for _, r := range k.running {
			k.takeSlots(r, r.Known()+1)
			activeKV += int64(r.Known())
		}
	default:
		// Without prefix caching a slot is only anonymous blocks, which the pool hands out
		// the same one request at a time or all at once (KVPool.TakeAnon): one call per pass.
		fresh := 0
		for _, r := range k.running {
			fresh += r.claimSlots(r.Known()+1, bs)
			activeKV += int64(r.Known())
		}
		k.KV.TakeAnon(fresh)
	}
	// The decode batch is the whole running list, which finishSGLangPass visits itself: the
	// pass only counts it (passDecodeReqs) instead of copying it to k.ready.
	k.passDecodeReqs, k.passDecodeKV = len(k.running), activeKV
	// A pass that only retracted still counts (as a vLLM pass that only preempts): its empty
	// completion lets the victims be re-admitted or rejected instead of idling with work.
	k.formed = len(k.running) > 0 || retracted
	if n := len(k.running); n > 0 && cfg.Pool != PoolPrefill {
		decode = cfg.Timing.DecodeMs(n, activeKV, floorMean(activeKV, n), int64(cfg.NumBlocks)*int64(bs))
	}
	return 0, decode
}

// admitSGLang fills the extend batch of the pass at start (index pass): the request in
// chunked prefill first, then the waiting queue from its head, within SGLang's budgets
// (docs/semantics/simulation.md §8), rejecting what even an idle rank could never admit.
func (k *Rank) admitSGLang(start float64, w *Worker, pass int64) {
	cfg := k.cfg
	s := &k.sgl
	bs := cfg.BlockSize
	// rem_total: free + evictable tokens less the running requests' reservation. The
	// reservation is summed when an admission first gets past the batch limits (nothing
	// changes the running requests before), so a rank at max_running_requests does not
	// materialise its steady cohort only to turn the queue away (sglang_steady.go).
	freeTokens := (k.KV.Free() + k.KV.Inactive()) * bs
	var remTotal float64
	priced := false
	remInput := cfg.MaxPrefillTokens
	remChunk := cfg.ChunkedPrefillSize
	admitted := 0
	take := func(r *Request, first bool) bool {
		if len(k.running)+admitted >= cfg.MaxSequences || remChunk <= 0 || remInput <= 0 {
			return false
		}
		if !priced {
			k.materializeAll(pass, w)
			var reserved float64
			for _, q := range k.running {
				reserved += float64(min(k.reservedOut(q), sglClipMaxNewTokens)) * s.ratio
			}
			remTotal = float64(freeTokens) - reserved
			priced = true
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
			res = min(k.reservedOut(r), sglClipMaxNewTokens)
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
			// forever [decision, docs/semantics/simulation.md].
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
				// than blocking the queue forever [decision, docs/semantics/simulation.md].
				k.popFront()
				h.Status = Rejected
				h.Terminal = start
				w.Out = append(w.Out, Note{Kind: NoteRejected, R: h, Rank: k.ID})
				continue
			}
			break
		}
		k.admitFront(h, start, cfg.Pool, cached)
	}
}

// claimDecodeSlots is the decode pass's slot-taking without prefix caching in one visit per
// active request instead of two (one to count the blocks, one to claim them): it claims
// every active request's slot while counting the blocks the claims need, adds the steady
// cohort's one slot per request (sglang_steady.go), and hands those out when the pool holds
// them (free + evictable, as the retraction test of formSGLangPass). It returns Σ known over
// the running requests at pass and true then. Otherwise a retraction follows: it undoes
// every claim (the blocks each took, and computed, which claimSlots kept in before) and
// returns false, so formSGLangPass materialises the cohort, retracts and claims as if it had
// not been tried. An undone claim leaves before and scheduled changed, which no SGLang path
// reads before setting them again (claimSlots for the requests that stay, take for a
// retracted one).
func (k *Rank) claimDecodeSlots(pass int64) (activeKV int64, ok bool) {
	bs := k.cfg.BlockSize
	undo := k.sgl.undo[:0]
	need, fresh := k.steadyN, k.steadyN
	activeKV = k.steadyKnown(pass)
	for _, r := range k.active {
		tokens := r.Known() + 1
		need += xmath.CeilDiv(tokens, bs) - r.held()
		f := r.claimSlots(tokens, bs)
		fresh += f
		undo = append(undo, int32(f))
		activeKV += int64(tokens - 1)
	}
	k.sgl.undo = undo
	if need <= k.KV.Free()+k.KV.Inactive() {
		k.KV.TakeAnon(fresh)
		return activeKV, true
	}
	for i, r := range k.active {
		r.anon -= int(undo[i])
		r.computed = r.before
	}
	return 0, false
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
		s.ratio = min(1, float64(gen+sglRetractHeadroom*int64(len(k.running)))/float64(out))
	}
	if s.ratio < s.minRatio {
		s.ratio = s.minRatio
	}
}

func (k *Rank) finishSGLangPass(end float64, w *Worker, p int32) {
	cfg := k.cfg
	s := &k.sgl
	if s.extend {
		first := len(k.running)
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
		k.slotFirstTokens(k.running[first:])
		if cfg.Pool != PoolPrefill {
			k.enterSGLangSteady(int64(p)+1, w)
		}
		return
	}
	if k.passDecodeReqs == 0 {
		return
	}
	// max(minRatio, ratio − decay), compared in line: the module calls the float max out of
	// line (runtime.fmax64, for NaN and signed zeros, which neither ratio can be), once per
	// rank and decode pass (docs/performance.md, "Calibration through the CLI").
	if r := s.ratio - s.decay; r > s.minRatio {
		s.ratio = r
	} else {
		s.ratio = s.minRatio
	}
	// Steady requests emit in closed form (materialize); none emits its last token here.
	var done []*Request
	for _, r := range k.active {
		if cfg.NextN == 0 {
			// emitDecode's one token, without a call per request in the common case
			if !r.extendRun(end, w, p) {
				r.emit(end, w, p)
			}
		} else {
			k.emitDecode(r, end, w, p) // MTP bursts (mtp.go)
		}
		if r.remainingOut(cfg.MaxModelLen) <= 0 {
			done = append(done, r)
		}
	}
	for _, r := range done {
		k.complete(r, end, w)
		k.removeRunning(r)
	}
	k.enterSGLangSteady(int64(p)+1, w)
}

// complete makes r terminal `completed` at end and frees its KV.
func (k *Rank) complete(r *Request, end float64, w *Worker) {
	k.releaseBlocks(r, true)
	r.Status = Completed
	r.Terminal = end
	w.Out = append(w.Out, Note{Kind: NoteCompleted, R: r, Rank: k.ID})
}

// countIntervalRound advances prefill_decode_interval (docs/semantics/simulation.md §8 item 4) after every
// rank of the worker formed its part of a group pass: an extend pass on any rank blocks prefill
// on every rank for the next N group rounds, and any other round consumes one of them, whether
// the rank decoded or was idle.
func (w *Worker) countIntervalRound() {
	n := w.Ranks[0].cfg.PrefillDecodeInterval
	if n == 0 {
		return
	}
	for _, k := range w.Ranks {
		if k.sgl.extend {
			w.blockedRounds = n
			return
		}
	}
	if w.blockedRounds > 0 {
		w.blockedRounds--
	}
}

// drainIdleRounds runs at once the blocked rounds left when no rank of the group has anything
// to run: such rounds take no time and do nothing but count down, so a rank that went idle
// during the interval is not stalled by it. A round in which the whole group is idle resets
// every rank's new-token ratio to its initial value (SGLang's on_idle); it never decays it,
// since decay follows decode passes only (docs/semantics/simulation.md, "SGLang
// prefill_decode_interval").
func (w *Worker) drainIdleRounds() {
	w.blockedRounds = 0
	for _, k := range w.Ranks {
		k.sgl.ratio = k.sgl.initRatio
	}
}

// The KV slots of an SGLang request run one token ahead of vLLM's (docs/semantics/simulation.md §8, as the
// reference implementation keeps them): a request holds a slot for every known token, the one
// it just produced included, and a decode pass first takes the slot of the token it produces.
// The extend pass that completes a prompt gives the first output token its slot at once when
// the pool can hold those of the whole batch (evicting cached pages if needed); otherwise the
// next decode pass takes both. A request whose first token is also its last takes none.
// [decision, docs/semantics/simulation.md §8 "KV slots run one token ahead"]

// takeSlots gives r KV slots through tokens (the caller checked that the pool holds them).
func (k *Rank) takeSlots(r *Request, tokens int) {
	if fresh := r.claimSlots(tokens, k.cfg.BlockSize); fresh > 0 {
		k.KV.TakeAnon(fresh)
	}
	if k.cfg.PrefixCaching {
		k.registerFull(r)
	}
}

// claimSlots is takeSlots' part on the request (block size bs): r takes as anonymous the
// blocks its first tokens tokens need beyond those it holds, those tokens are scheduled, and
// the number of blocks taken is returned for the rank's pool to hand out.
func (r *Request) claimSlots(tokens, bs int) int {
	fresh := max(xmath.CeilDiv(tokens, bs)-r.held(), 0)
	r.anon += fresh
	r.before = r.computed
	r.scheduled = tokens - r.computed
	r.computed = tokens
	return fresh
}

// slotFirstTokens gives the requests that just joined the running list after their extend
// pass the slot of their first output token, all of them or none.
func (k *Rank) slotFirstTokens(joined []*Request) {
	need := 0
	for _, r := range joined {
		need += xmath.CeilDiv(r.Known(), k.cfg.BlockSize) - r.held()
	}
	if !k.KV.CanReserve(need, 0) {
		return
	}
	for _, r := range joined {
		k.takeSlots(r, r.Known())
	}
}
