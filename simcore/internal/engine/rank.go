package engine

import "aisimulate/simcore/internal/xmath"

// Rank is one attention-DP rank: a scheduler with its queues and one KV block pool.
type Rank struct {
	cfg  *RankConfig
	ID   int32
	KV   *KVPool
	Held []*Request // disaggregated prefill: finished prefills whose KV awaits transfer

	running      []*Request // admission order, steady requests included
	active       []*Request // running requests that are not steady, admission order
	admSeq       int64
	waiting      []*Request
	wHead        int
	inbox        []*Request // SGLang: arrived, not yet polled (sglang_recv.go)
	materialized []*Request
	mHead        int

	ready     []*Request
	formed    bool // the current pass scheduled tokens
	preempted bool
	budget    int
	// TensorRT-LLM (trtllm.go): noEvict selects its guaranteed-no-evict rules; Σ
	// to-completion blocks and Σ held blocks over running requests.
	noEvict         bool
	trtToCompletion int
	trtHeld         int
	// Steady decode cohort (see steady.go); steadyOK: the backend's passes and the
	// configuration allow it (steadyAllowed, sglSteadyAllowed). steadySlots: a steady
	// request takes the KV slot of every token it computes in closed form (SGLang,
	// sglang_steady.go), and steadySumRem is Σ (remaining output + entry pass) over steady
	// requests then.
	steadyOK       bool
	steadySlots    bool
	steadyN        int
	steadySumKnown int64 // Σ known at entry over steady requests
	steadySumBase  int64 // Σ entry pass over steady requests
	steadySumRem   int64
	wakes          wakeHeap
	// worker runs the rank's lock-step passes; its finished passes number them.
	worker *Worker
	// SGLang destination-first hand-offs waiting for their reservation (docs/semantics/simulation.md §11.3).
	pendingDest []*Request
	// destGrowth is Σ handoffGrowth over the hand-offs reserved on this rank that have not
	// joined its running batch yet (docs/semantics/simulation.md §11.3, decode pre-allocation).
	destGrowth int
	// inTransfer counts the TensorRT-LLM hand-offs holding a slot of this rank whose KV is
	// still in transfer (trtllm_slots.go).
	inTransfer int
	// SGLang state (docs/semantics/simulation.md §8).
	sgl sglState
	// Pass counters for FPM samples.
	passPrefillReqs   int
	passPrefillTokens int64
	passDecodeReqs    int
	passDecodeKV      int64
	queuedPrefill     int64 // after the pass's admissions (FPM)
	queuedDecode      int64
	// First admissions in the counted pool (planner traffic window).
	FirstAdmits, FirstAdmitReuse, FirstAdmitL int64
}

func newRank(cfg *RankConfig, id int32, w *Worker) *Rank {
	k := &Rank{cfg: cfg, ID: id, KV: NewKVPool(cfg.NumBlocks, cfg.PrefixCaching, cfg.WantEvents), worker: w}
	// The backend's rules that the shared code consults (formPass and finishPass choose the
	// backend's pass itself).
	switch cfg.Policy {
	case SGLang:
		k.sgl.init(cfg)
		k.steadyOK = sglSteadyAllowed(cfg)
		k.steadySlots = true
	case TRTLLM:
		k.noEvict = true
		k.steadyOK = steadyAllowed(cfg)
	default:
		k.steadyOK = steadyAllowed(cfg)
	}
	return k
}

// Config is the rank's scheduler configuration.
func (k *Rank) Config() *RankConfig { return k.cfg }

// Running is the number of running requests.
func (k *Rank) Running() int { return len(k.running) }

// Waiting is the number of requests waiting for admission (incl. materialized hand-offs).
func (k *Rank) Waiting() int { return len(k.waiting) - k.wHead + len(k.materialized) - k.mHead }

func (k *Rank) hasWork() bool {
	// An SGLang request in chunked prefill is in neither queue but still needs passes.
	return len(k.running) > 0 || k.wHead < len(k.waiting) || k.mHead < len(k.materialized) || k.sgl.chunked != nil || len(k.inbox) > 0
}

// Enqueue appends a routed request to the waiting queue. TRT-LLM first clips its output to
// what the pool and context can hold; a prompt that leaves no room for one output token is
// rejected at its first pass (docs/semantics/simulation.md §7).
func (k *Rank) Enqueue(r *Request) {
	k.clipOutput(r)
	if k.cfg.RecvInterval > 1 {
		k.inbox = append(k.inbox, r)
		return
	}
	k.waiting = append(k.waiting, r)
}

// Materialize queues a disaggregated hand-off on a decode rank (TensorRT-LLM clips its output
// to the pool first, as at enqueue).
func (k *Rank) Materialize(r *Request) {
	k.releaseSlot(r)
	k.clipOutput(r)
	k.materialized = append(k.materialized, r)
}

func (k *Rank) pushFront(r *Request) {
	if k.wHead > 0 {
		k.wHead--
		k.waiting[k.wHead] = r
		return
	}
	k.waiting = append(k.waiting, nil)
	copy(k.waiting[1:], k.waiting)
	k.waiting[0] = r
}

func (k *Rank) popFront() *Request {
	r := k.waiting[k.wHead]
	k.waiting[k.wHead] = nil
	k.wHead++
	if k.wHead == len(k.waiting) {
		k.waiting = k.waiting[:0]
		k.wHead = 0
	} else if k.wHead > 1024 && k.wHead*2 > len(k.waiting) {
		n := copy(k.waiting, k.waiting[k.wHead:])
		k.waiting = k.waiting[:n]
		k.wHead = 0
	}
	return r
}

// floorMean is ⌊sum/n⌋ for sum ≥ 0, n > 0: the integer mean inputs of the timing model
// (docs/semantics/simulation.md §5.2), unsigned for the reason xmath.CeilDiv is.
func floorMean(sum int64, n int) int { return int(uint64(sum) / uint64(n)) }

// QueuedTokens returns Σ known over waiting requests that have not generated a token
// (prefill backlog) and over those that have plus materialized hand-offs (decode backlog).
func (k *Rank) QueuedTokens() (prefill, decode int64) {
	for _, r := range k.waiting[k.wHead:] {
		if r.generated == 0 {
			prefill += int64(r.Known())
		} else {
			decode += int64(r.Known())
		}
	}
	for _, r := range k.materialized[k.mHead:] {
		decode += int64(r.Known())
	}
	return
}

// ScheduledKV returns Σ known over running requests at the worker's next pass.
func (k *Rank) ScheduledKV(pass int64) (n int64) {
	for _, r := range k.active {
		n += int64(r.Known())
	}
	return n + k.steadyKnown(pass)
}

// idlePass forms the empty pass of a rank without work in a group pass (docs/semantics/simulation.md §9):
// nothing from its previous pass may be finished again.
func (k *Rank) idlePass() {
	k.ready = k.ready[:0]
	k.sgl.extend = false
	k.sgl.batch = k.sgl.batch[:0]
	k.passPrefillReqs, k.passPrefillTokens, k.passDecodeReqs, k.passDecodeKV = 0, 0, 0, 0
	for _, r := range k.active {
		r.scheduled = 0
	}
}

// reservedOut is the output a rank reserves for r: its remaining output, except on a
// disaggregated prefill rank, which produces only the hidden bootstrap token and reserves
// that one, never the output length (docs/semantics/simulation.md §11.5 amended).
func (k *Rank) reservedOut(r *Request) int {
	rem := r.remainingOut(k.cfg.MaxModelLen)
	if k.cfg.Pool == PoolPrefill {
		rem = min(rem, bootstrapOut(r))
	}
	return rem
}

// formPass schedules one pass at start and returns its prefill and decode parts: the one
// place where the backend's pass formation is chosen (vllm.go serves vLLM and TensorRT-LLM,
// sglang.go SGLang).
func (k *Rank) formPass(start float64, w *Worker) (prefill, decode float64) {
	if k.cfg.Policy == SGLang {
		return k.formSGLangPass(start, w)
	}
	return k.formVLLMPass(start, w)
}

// finishPass applies the pass's results at end (docs/semantics/simulation.md §6.3), by the backend that
// formed it.
func (k *Rank) finishPass(end float64, w *Worker, p int32) {
	if k.cfg.Policy == SGLang {
		k.finishSGLangPass(end, w, p)
		return
	}
	k.finishVLLMPass(end, w, p)
}

func (k *Rank) addRunning(r *Request) {
	k.admSeq++
	r.admSeq = k.admSeq
	k.running = append(k.running, r)
	k.active = append(k.active, r)
	r.inRunning = true
	k.footprintAdded(r)
}

// passTimes derives the timing-model inputs of the formed pass (docs/semantics/simulation.md §5.2).
func (k *Rank) passTimes(pass int64) (prefill, decode float64) {
	cfg := k.cfg
	var batchP, decodePhase int
	var sumISL, sumPrefix, activeKV, decodePhaseKV int64
	k.ready = k.ready[:0]
	for _, r := range k.active {
		if r.scheduled == 0 {
			continue
		}
		if r.prefilling {
			batchP++
			sumPrefix += int64(r.before)
			sumISL += int64(r.before + r.scheduled)
		}
		if cfg.Pool != PoolPrefill && r.computed >= r.Known() && r.remainingOut(cfg.MaxModelLen) > 0 {
			k.ready = append(k.ready, r)
			activeKV += int64(r.Known())
			if !r.prefilling {
				decodePhase++
				decodePhaseKV += int64(r.Known())
			}
		}
	}
	batchD := len(k.ready) + k.steadyN
	var steadyKV int64
	if k.steadyN > 0 {
		steadyKV = k.steadyKnown(pass)
		activeKV += steadyKV
	}
	// A pass that only preempted still counts: its (empty) completion lets the victims be
	// re-admitted or rejected at once instead of leaving the rank idle with work.
	k.formed = batchD > 0 || batchP > 0 || k.preempted || k.anyScheduled()
	k.passPrefillReqs, k.passPrefillTokens = batchP, sumISL-sumPrefix
	k.passDecodeReqs, k.passDecodeKV = decodePhase+k.steadyN, decodePhaseKV+steadyKV
	if batchP > 0 && cfg.Pool != PoolDecode {
		prefill = cfg.Timing.PrefillMs(batchP, floorMean(sumISL, batchP), floorMean(sumPrefix, batchP))
	}
	if batchD > 0 {
		decode = cfg.Timing.DecodeMs(batchD, activeKV, floorMean(activeKV, batchD), int64(cfg.NumBlocks)*int64(cfg.BlockSize))
	}
	return prefill, decode
}

func (k *Rank) anyScheduled() bool {
	for _, r := range k.active {
		if r.scheduled > 0 {
			return true
		}
	}
	return false
}

type schedResult uint8

const (
	ok schedResult = iota
	blocked
	currentPreempted
)

// schedule gives r min(known − computed, budget) tokens, reserving the blocks they need;
// from the running queue a failed reservation preempts the last running request (vLLM).
func (k *Rank) schedule(r *Request, fromRunning bool, w *Worker) schedResult {
	cfg := k.cfg
	bs := cfg.BlockSize
	desired := r.Known() - r.computed
	if desired > k.budget {
		desired = k.budget
	}
	if desired < 0 {
		desired = 0
	}
	need := k.reserveTokens(r, r.computed+desired)
	for {
		have := r.held()
		inactiveHits := 0
		if !r.pinned {
			have = r.hitBlocks
			if r.hitBlocks > 0 {
				inactiveHits = r.hitBlocks - k.KV.ActiveHits(min(r.hitBlocks, len(r.hashIDs)))
			}
		}
		fresh := xmath.CeilDiv(need, bs) - have
		if fresh <= 0 || k.KV.CanReserve(fresh, inactiveHits) {
			if !r.pinned {
				// Shared hits first (by their position in the last Match), then own ones.
				shared := min(r.hitBlocks, len(r.hashIDs))
				r.growBlocks(len(r.blocks) + r.hitBlocks)
				r.blocks = k.KV.PinMatched(shared, r.blocks)
				for i := shared; i < r.hitBlocks; i++ {
					r.blocks = append(r.blocks, k.KV.PinID(r.ownIDs[i-len(r.hashIDs)]))
				}
				k.blocksTaken(r.hitBlocks)
				r.registered = r.hitBlocks
				r.pinned = true
			}
			if fresh > 0 {
				k.KV.TakeAnon(fresh)
				r.anon += fresh
				k.blocksTaken(fresh)
			}
			break
		}
		// Only vLLM preempts, and only for a request of its running list (docs/semantics/simulation.md §6.2 (a)).
		if !fromRunning || k.noEvict || len(k.running) == 0 {
			return blocked
		}
		victim := k.running[len(k.running)-1]
		k.preempt(victim, w)
		if victim == r {
			return currentPreempted
		}
	}
	r.before = r.computed
	r.computed += desired
	r.scheduled += desired
	k.budget -= desired
	if cfg.PrefixCaching {
		k.registerFull(r)
	}
	return ok
}

// registerFull registers every block of r that is now full up to r.computed (docs/semantics/simulation.md §6.2).
func (k *Rank) registerFull(r *Request) {
	bs := k.cfg.BlockSize
	full := xmath.FloorDiv(r.computed, bs)
	if full <= r.registered {
		return
	}
	if r.registered >= r.Shareable(bs) {
		r.registered = full // only unique blocks are left (see below)
		return
	}
	r.extendHashIDs(full*bs, bs, k.cfg.HashIDs)
	shared := min(len(r.hashIDs), full)
	for b := r.registered; b < shared; b++ {
		parent := int32(0)
		if b > 0 {
			parent = r.hashIDs[b-1]
		}
		// Block b is the first anonymous one: it becomes a cached copy with an id.
		id := k.KV.Identify()
		r.blocks = append(r.blocks, id)
		r.anon--
		k.KV.Register(id, r.hashIDs[b], parent, b == 0)
	}
	// Blocks [shared, full) are unique: registering them only changes how they are
	// released (KVPool.Release), which follows from r.registered.
	r.registered = full
}

// keepOwn remembers r's registered unique blocks before a preemption releases them, so its
// re-admission can reuse whatever survives (the prefix lookup of docs/semantics/simulation.md §4.3 for
// blocks no other request can hold).
func (k *Rank) keepOwn(r *Request) {
	r.ownIDs, r.ownGens = r.ownIDs[:0], r.ownGens[:0]
	r.ownPool = nil
	if !k.cfg.PrefixCaching || !r.pinned {
		return
	}
	shared := min(len(r.hashIDs), r.registered)
	for b := shared; b < r.registered; b++ {
		id := r.blocks[b]
		r.ownIDs = append(r.ownIDs, id)
		r.ownGens = append(r.ownGens, k.KV.Gen(id))
	}
	if len(r.ownIDs) > 0 {
		r.ownPool = k.KV
	}
}

// releaseBlocks frees r's KV on this rank; final means r will never be admitted on this
// pool again (it completed, was rejected or handed off), so its unique blocks are dead.
func (k *Rank) releaseBlocks(r *Request, final bool) {
	k.heldUncounted(r)
	if !final {
		// A preempted request may reuse its unique blocks when re-admitted: they become
		// cached copies it can find by id (keepOwn).
		if k.cfg.PrefixCaching {
			r.growBlocks(r.registered)
			for len(r.blocks) < r.registered {
				r.blocks = append(r.blocks, k.KV.Identify())
				r.anon--
			}
		}
		k.keepOwn(r)
	}
	k.KV.Release(r.blocks, r.anon, min(r.Shareable(k.cfg.BlockSize), r.registered), r.registered, final)
	r.blocks, r.anon = r.blocks[:0], 0
	r.pinned, r.hitBlocks, r.registered = false, 0, 0
}

func (k *Rank) removeRunning(r *Request) {
	k.running = removeBySeq(k.running, r)
	k.active = removeBySeq(k.active, r)
	r.inRunning = false
	k.footprintRemoved(r)
}

// removeBySeq removes r from a list sorted by admission sequence, keeping the order.
func removeBySeq(list []*Request, r *Request) []*Request {
	lo, hi := 0, len(list)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if list[mid].admSeq < r.admSeq {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == len(list) || list[lo] != r {
		return list
	}
	copy(list[lo:], list[lo+1:])
	list[len(list)-1] = nil
	return list[:len(list)-1]
}

// ReleaseSource frees a held disaggregated prefill's blocks once its KV has been transferred.
func (k *Rank) ReleaseSource(r *Request) {
	for i, h := range k.Held {
		if h == r {
			copy(k.Held[i:], k.Held[i+1:])
			k.Held[len(k.Held)-1] = nil
			k.Held = k.Held[:len(k.Held)-1]
			break
		}
	}
	k.releaseBlocks(r, true)
}

// admitFront admits the request at the head of the waiting queue into prefill at pass start
// with cached reused tokens: it leaves the queue, the rank's first-admission statistics count
// it on its first admission, and the request records the admission (admitted).
func (k *Rank) admitFront(h *Request, start float64, pool Pool, cached int) {
	k.popFront()
	h.prefilling = true
	if h.Admissions == 0 {
		k.FirstAdmits++
		k.FirstAdmitReuse += int64(cached)
		k.FirstAdmitL += int64(h.L)
	}
	h.admitted(start, pool, cached)
}

// admitted records an admission at pass start in pool with reuse tokens (docs/semantics/simulation.md §6.4).
func (r *Request) admitted(at float64, pool Pool, reused int) {
	if pool == PoolDecode && !r.DecodeAdmitted {
		r.DecodeAdmitted = true
		r.DecodeAdmit, r.DecodeReused = at, reused
	}
	if pool != PoolDecode {
		if r.FirstAdmit < 0 {
			r.FirstAdmit = at
		}
		if r.Admissions == 0 {
			r.FirstReuse = reused
		}
		if reused > r.Reuse {
			r.Reuse = reused
		}
		r.Admissions++
	}
	if r.History != nil {
		r.History.AddAdmission(r.Ordinal, Admission{At: at, Pool: uint8(pool), Reused: reused})
	}
}
