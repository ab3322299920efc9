package engine

import (
	"aisimulate/simcore/internal/grow"
	"aisimulate/simcore/internal/xmath"
)

// Steady decode cohort. In a vLLM or TensorRT-LLM pass most running requests just decode:
// one token scheduled, one token emitted, no new block, no registration, no completion. The
// rank does not visit those requests every pass. A request that emitted a token and whose
// next passes are of that kind becomes *steady*: its progress is implied by the worker's pass
// index (computed = steadyComputed + (pass − steadyBasePass), likewise generated and tokens), the rank keeps
// Σ known over steady requests in closed form for the timing model, and the request is woken
// — materialised and processed by the exact algorithm — at the first pass in which something
// else happens to it: it needs a new block, a block becomes full (registration), or it emits
// its last token. If a pass could run out of budget or KV blocks (the only cases where the
// position of a steady request in the running order matters), every steady request is
// materialised first and the pass runs exactly. Observable results are identical to visiting
// every request every pass (docs/semantics/simulation.md: "any shortcut … as long as every observable result
// is identical"). SGLang's cohort (sglang_steady.go) joins, settles and wakes through the
// same functions; its steady requests also take a KV slot every pass, in closed form.

type wake struct {
	key uint64 // wakeKey(pass, admission sequence): the heap's order in one comparison
	r   *Request
}

// wakeKey packs a wake-up's pass and the request's admission sequence into one key ordered
// as (pass, sequence), for passes and sequences below 2^32 (wakeKeyFits): a sift level then
// compares one integer and moves 16 bytes instead of three comparisons and 24 bytes, which
// in WebAssembly is most of the wake-up heap's cost.
func wakeKey(pass, seq int64) uint64 { return uint64(pass)<<32 | uint64(seq) }

// wakeKeyFits reports whether wakeKey keeps pass and seq apart. Beyond 2^32 passes or
// admissions on a rank (days of simulated serving at a request per pass) a request simply
// does not become steady and the exact algorithm runs it.
func wakeKeyFits(pass, seq int64) bool { return uint64(pass)|uint64(seq) < 1<<32 }

// pass is the pass the wake-up is due at.
func (x *wake) pass() int64 { return int64(x.key >> 32) }

// wakeHeap is a min-heap of wake-ups by (pass, admission sequence).
type wakeHeap []wake

// before orders wake-ups by pass, then admission sequence.
func (x *wake) before(y *wake) bool { return x.key < y.key }

// push and pop move a hole instead of swapping, one write per level.
func (h *wakeHeap) push(x wake) {
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(&a[p]) {
			break
		}
		a[i] = a[p]
		i = p
	}
	a[i] = x
}

func (h *wakeHeap) pop() wake {
	a := *h
	top := a[0]
	n := len(a) - 1
	x := a[n]
	a[n] = wake{}
	*h = a[:n]
	h.siftDown(x)
	return top
}

// delayTop moves the earliest wake-up to a later pass (pop and push in one sift); pass
// and the request's admission sequence must fit wakeKey.
func (h *wakeHeap) delayTop(pass int64) {
	x := (*h)[0]
	x.key = uint64(pass)<<32 | x.key&(1<<32-1)
	h.siftDown(x)
}

// siftDown places x, which replaces the root, at its position.
func (h *wakeHeap) siftDown(x wake) {
	a := *h
	n := len(a)
	if n == 0 {
		return
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a[r].before(&a[l]) {
			m = r
		}
		if !a[m].before(&x) {
			break
		}
		a[i] = a[m]
		i = m
	}
	a[i] = x
}

// steadyKnown is Σ known over steady requests at the given pass.
func (k *Rank) steadyKnown(pass int64) int64 {
	return k.steadySumKnown + int64(k.steadyN)*pass - k.steadySumBase
}

// steadyAllowed reports whether a vLLM or TensorRT-LLM rank of cfg may use the steady cohort:
// not when exact passes are asked for, and not with MTP, whose bursts advance a request by a
// random number of tokens per pass where the cohort's closed form advances one.
func steadyAllowed(cfg *RankConfig) bool { return !cfg.Exact && cfg.NextN == 0 }

// enterSteady moves requests that just emitted and will only decode for at least one pass
// out of the active list; next is the pass index they decode in next.
func (k *Rank) enterSteady(next int64) {
	if !k.steadyOK {
		return
	}
	cfg := k.cfg
	bs := cfg.BlockSize
	kept := k.active[:0]
	for _, r := range k.active {
		// One token to compute next, after a pass that scheduled tokens for it: a decode
		// step, or the pass that completed its prompt (such a request becomes steady at
		// once, unless its next token needs a new block: off = 0 below).
		if !r.inRunning || r.prefilling || r.scheduled < 1 || !r.pinned || r.L+r.generated-r.computed != 1 {
			kept = append(kept, r)
			continue
		}
		c := r.computed
		off := int64(r.held()*bs - c) // passes until a new block is needed
		// Passes until the block being filled becomes full: a shareable block must be
		// registered in that very pass (another request may look it up); a unique one only
		// changes how it is released, so its registration waits for the next wake-up.
		if cfg.PrefixCaching && xmath.FloorDiv(c, bs) < r.Shareable(bs) {
			if n := int64(bs - 1 - int(uint(c)%uint(bs))); n < off { // tokens left in the block being filled
				off = n
			}
		}
		if n := int64(r.remainingOut(cfg.MaxModelLen) - 1); n < off {
			off = n // passes until the last token
		}
		if !k.joinSteady(r, next, off) {
			kept = append(kept, r)
		}
	}
	k.keepActive(kept)
}

// keepActive makes kept, a prefix-built filter of the active list, the active list.
func (k *Rank) keepActive(kept []*Request) {
	clear(k.active[len(kept):])
	k.active = kept
}

// joinSteady makes r, which holds the state it starts pass next with, steady until its
// wake-up off passes later, and reports false, changing nothing, when off < 1 or the
// wake-up would not fit a heap key. The caller removes r from the active list.
func (k *Rank) joinSteady(r *Request, next, off int64) bool {
	if off < 1 || !wakeKeyFits(next+off, r.admSeq) {
		return false
	}
	r.steady = true
	r.steadyBasePass, r.steadyWakePass = next, next+off
	r.steadyComputed, r.steadyGenerated, r.steadyTokens = r.computed, r.generated, r.Tokens
	k.steadyN++
	k.steadySumKnown += int64(r.Known())
	k.steadySumBase += next
	if k.steadySlots {
		k.steadySumRem += int64(r.remainingOut(k.cfg.MaxModelLen)) + next
	}
	k.wakes.push(wake{key: wakeKey(r.steadyWakePass, r.admSeq), r: r})
	return true
}

// materialize brings a steady request's state up to the start of pass and returns it to the
// active list.
func (k *Rank) materialize(r *Request, pass int64, w *Worker) {
	k.settle(r, pass, w)
	// Reinsert into the active list at its admission position.
	i := len(k.active)
	for i > 0 && k.active[i-1].admSeq > r.admSeq {
		i--
	}
	k.active = append(k.active, nil)
	copy(k.active[i+1:], k.active[i:])
	k.active[i] = r
}

// settle brings a steady request's state up to the start of pass and takes it out of the
// cohort's sums; the caller puts it back in the active list. Its fields still hold their
// values at steadyBasePass until then, so Known and remainingOut give those of its entry.
func (k *Rank) settle(r *Request, pass int64, w *Worker) {
	n := int(pass - r.steadyBasePass)
	k.steadyN--
	k.steadySumKnown -= int64(r.Known())
	k.steadySumBase -= r.steadyBasePass
	if k.steadySlots {
		k.steadySumRem -= int64(r.remainingOut(k.cfg.MaxModelLen)) + r.steadyBasePass
		r.anon += n // the slot of each token computed while steady (sglang_steady.go)
	}
	r.steady = false
	r.computed = r.steadyComputed + n
	r.generated = r.steadyGenerated + n
	r.Tokens = r.steadyTokens + n
	if k.cfg.PrefixCaching {
		k.registerFull(r) // unique blocks filled while steady
	}
	if n > 0 {
		if r.steadyTokens == 1 {
			r.SecondToken = w.PassEnds[r.steadyBasePass] // it became steady right after its first token
		}
		r.LastToken = w.PassEnds[pass-1]
		r.runLast = int32(pass - 1)
		if r.runWorker != w {
			r.runWorker, r.runStart = w, int32(r.steadyBasePass)
		}
	}
}

// wakeDue materialises every steady request whose wake-up pass has come.
func (k *Rank) wakeDue(pass int64, w *Worker) {
	for len(k.wakes) > 0 && k.wakes[0].pass() <= pass {
		x := k.wakes.pop()
		if x.r.steady && x.r.steadyWakePass == x.pass() {
			k.materialize(x.r, pass, w)
		}
	}
}

// materializeAll returns every steady request to the active list (exact pass), settling them
// in wake-up order (with prefix caching settling registers blocks, whose ids follow that
// order). The active list is then the whole running list, in the same admission order, so
// it is copied from it rather than each request inserted at its position.
func (k *Rank) materializeAll(pass int64, w *Worker) {
	settled := false
	for len(k.wakes) > 0 {
		x := k.wakes.pop()
		if x.r.steady && x.r.steadyWakePass == x.pass() {
			k.settle(x.r, pass, w)
			settled = true
		}
	}
	if settled {
		k.active = append(k.active[:0], k.running...)
	}
}

// steadyFits reports whether this pass can leave steady requests unvisited: every running
// request gets all the tokens it asks for and every block reservation succeeds.
func (k *Rank) steadyFits() bool {
	cfg := k.cfg
	demand := k.steadyN
	fresh := 0
	for _, r := range k.active {
		d := r.Known() - r.computed
		demand += d
		have := r.held()
		if !r.pinned {
			have = r.hitBlocks
		}
		if f := xmath.CeilDiv(r.computed+d, cfg.BlockSize) - have; f > 0 {
			fresh += f
		}
	}
	return demand <= cfg.MaxBatchedTokens && fresh <= k.KV.Free()+k.KV.Inactive()
}

// Settle materialises every steady request of every rank (end of run, worker removal).
func (w *Worker) Settle() {
	pass := int64(len(w.PassEnds))
	for _, k := range w.Ranks {
		k.materializeAll(pass, w)
	}
}

// FastForward runs, without the event loop, the passes of a worker whose ranks hold nothing
// but steady requests, for as long as each pass ends before horizon (the next event that
// could place a request on it), and returns the time at which the next regular pass starts.
// Such passes only decode: per rank the timing model sees the steady cohort in closed form.
// A steady request that needs a new block in one of them gets it here (no other request of
// the rank takes or frees a block in that pass, so eviction order is unchanged); any other
// wake-up — a completion, a shareable block to register, or too few blocks — ends the
// fast-forward before that pass, which then runs exactly. The caller guarantees that pass
// ends of other workers cannot create releases (open-loop, single-turn, aggregated runs).
// publish receives each applied pass's KV events (evictions of shareable blocks), as a pass
// completion would publish them; events of the pass left to run regularly stay queued.
// At most limit passes are run per call, so callers can account for the work.
func (w *Worker) FastForward(now, horizon float64, limit int, publish func(rank int, evs []KVEvent)) float64 {
	start := now
	for limit > 0 {
		// ffReady handles the wake-ups due at this pass; the passes after it up to the next
		// wake-up of any rank would find nothing due and nothing else changed, so they run
		// as one stretch that only prices the steady cohorts (their Σ known grows by the
		// cohort size each pass).
		pass := int64(len(w.PassEnds))
		stretch := int64(limit)
		for _, k := range w.Ranks {
			if !k.ffReady(pass) {
				return start
			}
			if len(k.wakes) > 0 {
				stretch = min(stretch, k.wakes[0].pass()-pass)
			}
		}
		from := len(w.PassEnds)
		if len(w.Ranks) == 1 {
			// One rank: the timing model prices the whole stretch in one call.
			if k := w.Ranks[0]; k.steadyN > 0 {
				w.PassEnds = k.cfg.Timing.DecodeRun(k.steadyN, k.steadyKnown(pass), int64(k.cfg.NumBlocks)*int64(k.cfg.BlockSize),
					start, horizon, int(stretch), w.PassEnds)
			}
		} else {
			w.appendStretch(pass, start, horizon, stretch)
		}
		ran := len(w.PassEnds) - from
		if ran == 0 {
			return start
		}
		w.Passes += int64(ran)
		limit -= ran
		start = w.PassEnds[len(w.PassEnds)-1]
		// Only ffReady takes blocks (and may evict), so only the stretch's first pass has
		// events to publish; pricing the passes after it does not read them.
		for r, k := range w.Ranks {
			if len(k.KV.Events) > 0 {
				publish(r, k.KV.Events)
				k.KV.Events = k.KV.Events[:0]
			}
		}
		if int64(ran) < stretch {
			return start
		}
	}
	return start
}

// appendStretch appends to PassEnds the ends of up to n fast-forwarded passes from pass on,
// the first starting at start: each lasts as long as its slowest rank's steady cohort, and
// the stretch stops before a pass that would end at or after horizon or take no time (as
// Timing.DecodeRun does for one rank).
func (w *Worker) appendStretch(pass int64, start, horizon float64, n int64) {
	for i := int64(0); i < n; i++ {
		end := start
		for _, k := range w.Ranks {
			if k.steadyN == 0 {
				continue
			}
			kv := k.steadyKnown(pass + i)
			d := k.cfg.Timing.DecodeMs(k.steadyN, kv, floorMean(kv, k.steadyN), int64(k.cfg.NumBlocks)*int64(k.cfg.BlockSize))
			if e := start + d; e > end {
				end = e
			}
		}
		if end >= horizon || end == start {
			return
		}
		w.PassEnds = append(grow.Room(w.PassEnds, 1), end)
		start = end
	}
}

// ffReady reports whether pass can run without visiting any request of the rank, taking the
// new blocks steady requests need in it. An SGLang rank never fast-forwards: its passes
// decay the new-token ratio and take the cohort's slots (sglang_steady.go), which the
// stretch does not.
func (k *Rank) ffReady(pass int64) bool {
	cfg := k.cfg
	if !k.steadyOK || k.steadySlots || len(k.active) > 0 || k.wHead < len(k.waiting) ||
		k.mHead < len(k.materialized) || len(k.Held) > 0 || k.steadyN > cfg.MaxBatchedTokens {
		return false
	}
	bs := cfg.BlockSize
	for len(k.wakes) > 0 && k.wakes[0].pass() <= pass {
		x := k.wakes[0]
		r := x.r
		if !r.steady || r.steadyWakePass != x.pass() {
			k.wakes.pop() // stale
			continue
		}
		n := int(pass - r.steadyBasePass)
		c, gen := r.steadyComputed+n, r.steadyGenerated+n
		if c != r.held()*bs || !k.KV.CanReserve(1, 0) {
			return false // not a block need, or the pass could run short of blocks
		}
		off := int64(bs) // passes until the block taken now is full and the next is needed
		if cfg.PrefixCaching && xmath.FloorDiv(c, bs) < r.Shareable(bs) {
			off = int64(bs - 1) // a shareable block is registered when it becomes full
		}
		rem := r.O - gen
		if cfg.MaxModelLen > 0 {
			rem = min(rem, cfg.MaxModelLen-(r.L+gen))
		}
		if int64(rem-1) < off {
			off = int64(rem - 1)
		}
		if off < 1 || !wakeKeyFits(pass+off, r.admSeq) {
			return false // this pass emits its last token (or the wake-up would not fit a key)
		}
		k.KV.TakeAnon(1)
		r.anon++
		k.blocksTaken(1)
		r.steadyWakePass = pass + off
		k.wakes.delayTop(r.steadyWakePass)
	}
	return true
}
