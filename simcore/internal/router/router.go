// Package router places released requests onto (worker, rank) pairs of a pool: round robin,
// or the KV-aware router with its prefix indexer, active-load bookkeeping, cost function,
// seeded tie-breaks and temperature sampling (docs/semantics/simulation.md §10, §11.1).
package router

import (
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/grow"
	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/xmath"
)

// Policy is the routing policy.
type Policy uint8

// Routing policies.
const (
	RoundRobin Policy = iota
	KV
)

// Config configures one pool's router.
type Config struct {
	Policy             Policy
	OverlapScoreCredit float64
	PrefillLoadScale   float64
	Temperature        float64
	TrackPrefill       bool // count active prefill tokens (agg, prefill pools)
	TrackDecodeBlocks  bool // count active decode blocks (agg, decode pools)
	AssumeKVReuse      bool // identities are shared hashes (false: unique per request)
	UseEvents          bool // consume KV events for overlap (agg, prefill pools)
	BlockSize          int
	QueueThreshold     float64 // 16 × max_batched_tokens
	// AIC load model: expected prefill ms of one request (nil = none).
	ExpectedPrefillMs func(L, prefix int) float64
}

// Router is one pool's router.
type Router struct {
	cfg    Config
	stream *rng.Stream
	// hashIDs is the numbering of block hashes the pool's workers use (their KV events
	// name hash ids of it), taken from the workers by SetWorkers.
	hashIDs *engine.HashIDs
	// Candidates in ascending (worker_id, dp_rank) order; rebuilt by SetWorkers.
	workers []*engine.Worker
	scheds  [][]*sched // by worker id, then rank; persistent across lifecycle
	cands   []*sched
	cursor  int32 // round robin: last chosen worker id, -1 none
	costs   []float64
	weights []float64 // softmax scratch
	overlap []int
	queue   []*engine.Request
	qHead   int
}

// sched is the router's view of one (worker, rank).
type sched struct {
	worker    *engine.Worker
	rank      int32
	rrCounter int
	// indexed[h] says the rank holds hash id h per its KV events (UseEvents); it grows as
	// hash ids are stored.
	indexed  []bool
	apt      int64        // active prefill tokens
	prefills []aicPrefill // AIC load model: active prefills in placement order
	anchorAt float64
	adb      int64   // active decode blocks
	refs     []int32 // by hash id: number of placed requests holding it; grows as needed
}

// held is the number of placed requests holding hash id h.
func (s *sched) held(h int32) int32 {
	if int(h) < len(s.refs) {
		return s.refs[h]
	}
	return 0
}

type aicPrefill struct {
	r        *engine.Request
	tokens   int64
	expected float64
}

// New makes a router for a pool; stream is the pool's `router.<pool>` stream.
func New(cfg Config, stream *rng.Stream) *Router {
	return &Router{cfg: cfg, stream: stream, cursor: -1}
}

// schedOf is the router's view of (w, rank), nil if it never knew that worker.
func (rt *Router) schedOf(w *engine.Worker, rank int32) *sched {
	if int(w.ID) < len(rt.scheds) {
		if ranks := rt.scheds[w.ID]; int(rank) < len(ranks) {
			return ranks[rank]
		}
	}
	return nil
}

// SetWorkers sets the routable workers (ascending worker id) and releases queued requests
// that can now be placed. It returns requests placed from the queue.
func (rt *Router) SetWorkers(ws []*engine.Worker) {
	rt.workers = ws
	rt.cands = rt.cands[:0]
	for _, w := range ws {
		if in := w.Ranks[0].Config().HashIDs; rt.hashIDs == nil {
			rt.hashIDs = in
		} else if in != rt.hashIDs {
			panic("router: the pool's workers number block hashes differently")
		}
		for i := range w.Ranks {
			for int(w.ID) >= len(rt.scheds) {
				rt.scheds = append(rt.scheds, nil)
			}
			for len(rt.scheds[w.ID]) <= i {
				rt.scheds[w.ID] = append(rt.scheds[w.ID], nil)
			}
			s := rt.scheds[w.ID][i]
			if s == nil {
				s = &sched{worker: w, rank: int32(i)}
				rt.scheds[w.ID][i] = s
			}
			rt.cands = append(rt.cands, s)
		}
	}
}

// Placement is where a request went and what the router saw.
type Placement struct {
	Worker      *engine.Worker
	Rank        int32
	Overlap     int // selected overlap blocks (KV router)
	BestOverlap int
}

// Place routes r at time now. ok is false when the KV router queues it instead.
func (rt *Router) Place(r *engine.Request, now float64) (p Placement, ok bool) {
	if len(rt.cands) == 0 {
		return p, false
	}
	if rt.cfg.Policy == RoundRobin {
		return rt.roundRobin(), true
	}
	if rt.cfg.TrackPrefill && rt.qHead < len(rt.queue) {
		rt.queue = append(rt.queue, r)
		return p, false
	}
	return rt.kvPlace(r, now, true)
}

func (rt *Router) roundRobin() Placement {
	var next *engine.Worker
	for _, w := range rt.workers {
		if w.ID > rt.cursor {
			next = w
			break
		}
	}
	if next == nil {
		next = rt.workers[0]
	}
	rt.cursor = next.ID
	s := rt.schedOf(next, 0)
	rank := int32(s.rrCounter % len(next.Ranks))
	s.rrCounter++
	return Placement{Worker: next, Rank: rank, Overlap: -1}
}

// kvPlace computes every candidate's cost and picks one (docs/semantics/simulation.md §10.2–§10.4).
func (rt *Router) kvPlace(r *engine.Request, now float64, mayQueue bool) (Placement, bool) {
	cfg := &rt.cfg
	bs := cfg.BlockSize
	hashes := r.PromptHashIDs(bs, rt.hashIDs)
	reqBlocks := xmath.CeilDiv(r.L, bs)
	rt.costs = rt.costs[:0]
	rt.overlap = rt.overlap[:0]
	allOver := cfg.TrackPrefill
	best := 0
	for _, s := range rt.cands {
		ov := 0
		if cfg.UseEvents {
			indexed := s.indexed // a local: no reload of the field per block
			for _, h := range hashes {
				if int(h) >= len(indexed) || !indexed[h] {
					break
				}
				ov++
			}
		}
		if ov > best {
			best = ov
		}
		rt.overlap = append(rt.overlap, ov)
		apt := s.activePrefill(now)
		if float64(apt) <= cfg.QueueThreshold {
			allOver = false
		}
		var adjusted float64
		if cfg.TrackPrefill {
			raw := float64(apt+int64(r.L)) / float64(bs)
			adjusted = raw - cfg.OverlapScoreCredit*float64(ov)
			if adjusted < 0 {
				adjusted = 0
			}
		}
		var decodeBlocks float64
		if cfg.TrackDecodeBlocks {
			nb := int64(reqBlocks)
			if cfg.AssumeKVReuse {
				// Unique (unshareable) full blocks and the partial block are always new;
				// shared ones are new unless a request placed on the rank holds them.
				nb = int64(reqBlocks - s.heldPrefix(hashes))
			}
			decodeBlocks = float64(s.adb + nb)
		}
		rt.costs = append(rt.costs, float64(cfg.PrefillLoadScale*adjusted)+decodeBlocks)
	}
	if mayQueue && allOver {
		rt.queue = append(rt.queue, r)
		return Placement{}, false
	}
	i := rt.pick()
	s := rt.cands[i]
	rt.account(s, r, hashes, rt.overlap[i], now)
	return Placement{Worker: s.worker, Rank: s.rank, Overlap: rt.overlap[i], BestOverlap: best}, true
}

// pick selects a candidate index from rt.costs (docs/semantics/simulation.md §10.3).
func (rt *Router) pick() int {
	costs := rt.costs
	if rt.cfg.Temperature <= 0 {
		bi, ties := 0, 1
		for i := 1; i < len(costs); i++ {
			switch {
			case costs[i] < costs[bi]:
				bi, ties = i, 1
			case costs[i] == costs[bi]:
				ties++
				if rt.stream.UniformInt(uint64(ties)) == 0 {
					bi = i
				}
			}
		}
		return bi
	}
	lo, hi := costs[0], costs[0]
	for _, c := range costs {
		lo = min(lo, c)
		hi = max(hi, c)
	}
	u := rt.stream.Uniform01()
	n := len(costs)
	if hi == lo {
		// Uniform: pick the first i with u ≤ (i+1)/n.
		for i := 0; i < n; i++ {
			if u <= float64(i+1)/float64(n) {
				return i
			}
		}
		return n - 1
	}
	weights := rt.weights[:0]
	for range costs {
		weights = append(weights, 0)
	}
	rt.weights = weights
	var sum float64
	for i, c := range costs {
		weights[i] = xmath.Exp(-(c - lo) / float64((hi-lo)*rt.cfg.Temperature))
		sum += weights[i]
	}
	var cum float64
	for i := range weights {
		cum += weights[i] / sum
		if u <= cum {
			return i
		}
	}
	return n - 1
}

// account books r's load on s after placement.
func (rt *Router) account(s *sched, r *engine.Request, hashes []int32, ov int, now float64) {
	cfg := &rt.cfg
	bs := cfg.BlockSize
	if cfg.TrackPrefill {
		e := int64(r.L - ov*bs)
		if e < 0 {
			e = 0
		}
		r.RoutedPrefillTokens = e
		s.apt += e
		if cfg.ExpectedPrefillMs != nil {
			if len(s.prefills) == 0 {
				s.anchorAt = now
			}
			s.prefills = append(s.prefills, aicPrefill{r: r, tokens: e, expected: cfg.ExpectedPrefillMs(r.L, ov*bs)})
		}
		r.RoutedPrefillBooked = true
	}
	if cfg.TrackDecodeBlocks {
		if cfg.AssumeKVReuse {
			s.refs = grow.To(s.refs, rt.hashIDs.Len()) // every hash id is below Len
			refs, fresh := s.refs, int64(0)
			for _, h := range hashes {
				if refs[h] == 0 {
					fresh++
				}
				refs[h]++
			}
			s.adb += fresh
			s.adb += int64(xmath.CeilDiv(r.L, bs) - len(hashes))
		} else {
			s.adb += int64(xmath.CeilDiv(r.L, bs))
		}
		r.RoutedDecodeBlocksBooked = true
	}
}

// heldPrefix is how many of hashes (the hash ids of a request's chain of full-block seq
// hashes) are in s's active set. The set holds whole leading chains of placed requests, and a seq hash fixes
// every hash before it, so the held hashes are a prefix of the request's chain: a binary
// search finds its length with O(log n) lookups instead of one per block.
func (s *sched) heldPrefix(hashes []int32) int {
	lo, hi := 0, len(hashes)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if s.held(hashes[mid]) > 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// activePrefill is apt(w) at time now, decayed by the AIC load model when configured.
func (s *sched) activePrefill(now float64) int64 {
	if len(s.prefills) == 0 || s.prefills[0].expected < 0 {
		return s.apt
	}
	a := s.prefills[0]
	done := a.tokens
	if a.expected > 0 {
		done = int64(float64(a.tokens) * (now - s.anchorAt) / a.expected)
		if done > a.tokens {
			done = a.tokens
		}
	}
	if v := s.apt - done; v > 0 {
		return v
	}
	return 0
}

// PrefillDone removes r's prefill tokens from its rank's load (docs/semantics/simulation.md §10.2).
func (rt *Router) PrefillDone(r *engine.Request, w *engine.Worker, rank int32, now float64) {
	if !r.RoutedPrefillBooked {
		return
	}
	r.RoutedPrefillBooked = false
	s := rt.schedOf(w, rank)
	if s == nil {
		return
	}
	s.apt -= r.RoutedPrefillTokens
	for i, p := range s.prefills {
		if p.r != r {
			continue
		}
		if i == 0 {
			s.anchorAt = now
		} else {
			s.anchorAt = min(s.anchorAt+p.expected, now)
		}
		s.prefills = append(s.prefills[:i], s.prefills[i+1:]...)
		break
	}
}

// Free removes all of r's load from its rank (completion, rejection).
func (rt *Router) Free(r *engine.Request, w *engine.Worker, rank int32, now float64) {
	rt.PrefillDone(r, w, rank, now)
	if !r.RoutedDecodeBlocksBooked {
		return
	}
	r.RoutedDecodeBlocksBooked = false
	s := rt.schedOf(w, rank)
	if s == nil {
		return
	}
	bs := rt.cfg.BlockSize
	if rt.cfg.AssumeKVReuse {
		hashes := r.PromptHashIDs(bs, rt.hashIDs)
		refs, freed := s.refs, int64(0)
		for _, h := range hashes {
			v := int32(0)
			if int(h) < len(refs) {
				v = refs[h]
			}
			if v <= 1 {
				freed++
			}
			if v > 0 {
				refs[h] = v - 1
			}
		}
		s.adb -= freed
		s.adb -= int64(xmath.CeilDiv(r.L, bs) - len(hashes))
	} else {
		s.adb -= int64(xmath.CeilDiv(r.L, bs))
	}
}

// Events applies a rank's KV events, published at the end of a pass (docs/semantics/simulation.md §10.2).
func (rt *Router) Events(w *engine.Worker, rank int32, evs []engine.KVEvent) {
	s := rt.schedOf(w, rank)
	if s == nil || !rt.cfg.UseEvents {
		return
	}
	s.indexed = grow.To(s.indexed, rt.hashIDs.Len()) // every hash id is below Len
	indexed := s.indexed
	for _, e := range evs {
		switch e.Kind {
		case engine.KVStored:
			if e.Root || indexed[e.Parent] {
				indexed[e.Hash] = true
			}
		case engine.KVRemoved:
			indexed[e.Hash] = false
		case engine.KVCleared:
			clear(indexed)
		}
	}
}

// Queued is the number of requests waiting in the router queue.
func (rt *Router) Queued() int { return len(rt.queue) - rt.qHead }

// Drain places queued requests from the head while the queueing condition no longer holds
// (docs/semantics/simulation.md §10.4); place is called for each placed request.
func (rt *Router) Drain(now float64, place func(*engine.Request, Placement)) {
	for rt.qHead < len(rt.queue) {
		r := rt.queue[rt.qHead]
		p, ok := rt.kvPlace(r, now, true)
		if !ok {
			// kvPlace appended it again; undo that and stop.
			rt.queue = rt.queue[:len(rt.queue)-1]
			return
		}
		rt.queue[rt.qHead] = nil
		rt.qHead++
		place(r, p)
	}
	rt.queue, rt.qHead = rt.queue[:0], 0
}
