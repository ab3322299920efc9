package engine

import "aisimulate/simcore/internal/grow"

// KVPool is one rank's KV block pool with prefix caching (docs/semantics/simulation.md §4). Cached copies
// are registered under the hash id of their sequence hash (HashIDs); a hash may have
// several resident copies (linked through nextCopy). Copies with no references sit in an
// LRU list and are evicted from its head. All links are int32 indices into blocks; -1 ends
// a list.
//
// Only blocks whose identity matters have an id: cached copies (registered under a hash, or
// a preempted request's unique blocks it may reuse) and the hits a request pins. A request's
// other blocks — private blocks being filled, unique blocks nobody else can share — are
// anonymous: the pool and the request only count them (Request.anon), and a block gets an id
// when it becomes a cached copy (Identify). Taking n blocks is then a few counter updates
// however large n is, unless live cached copies must be evicted.
//
// The pool is lazy: blocks holds state only for ids that have been given out, and grows
// (doubling, never past the capacity) when Identify needs a new id, so a pool whose blocks
// stay anonymous — prefix caching off — allocates no block state at all, whatever its
// capacity (docs/performance.md, "Lazy KV pools"). Ids are reused before new ones are made,
// so len(blocks) is at most max(16, twice the most ids ever in use at once) and at most
// the capacity.
type KVPool struct {
	blocks      []kvBlock
	capacity    int     // the pool's size in blocks, identified or not
	freeIDs     []int32 // ids no block uses
	nextNew     int32   // ids from nextNew on have never been used
	numUsed     int     // blocks held, identified or anonymous, plus cached copies
	numInactive int     // LRU length, dead blocks included
	lruHead     int32
	lruTail     int32
	// copyHead holds, by hash id, 1 + the first resident copy of that hash (0: none); it
	// grows as hash ids are registered.
	copyHead []int32
	// heads holds, for each hash the last Match found, the first of its resident copies:
	// admission checks (ActiveHits) and pins (PinMatched) of that request then need no lookups.
	heads         []int32
	prefixCaching bool
	// Events collects Stored/Removed events for a router that consumes them.
	Events     []KVEvent
	wantEvents bool
	// Dead blocks are the unique cached blocks of requests that finished: nobody can ever
	// hit them again, so only their places in the LRU order matter (they delay the eviction
	// of the live blocks behind them). They are counts, not list nodes: gapTail dead blocks
	// follow the last live LRU block and each live block's gapBefore counts those just
	// before it. Taking from the LRU head takes dead blocks while the head gap is not empty,
	// exactly as walking a full list would.
	gapTail int
}

type kvBlock struct {
	hash      int32 // hash id a shareable cached copy is registered under
	refs      int32
	gen       uint32 // bumped every time the id is given to a block or freed
	cached    bool
	unique    bool // cached copy of a block no other request can share (not indexed)
	prev      int32
	next      int32
	nextCopy  int32
	gapBefore int // dead blocks just before this one in the LRU (see KVPool.gapTail)
}

// KVEventKind says what happened to a hash on a rank.
type KVEventKind uint8

// Event kinds published to the KV router (docs/semantics/simulation.md §4.3).
const (
	KVStored KVEventKind = iota
	KVRemoved
	KVCleared
)

// KVEvent is one block-residency change, published at the end of the pass it happened in.
// Blocks are named by the hash ids of their sequence hashes (HashIDs).
type KVEvent struct {
	Kind   KVEventKind
	Hash   int32
	Parent int32 // Stored only; the parent block's hash id, unused for a root block
	Root   bool  // Stored of block 0 (no parent)
}

// NewKVPool makes a pool of n blocks; no block state is allocated until ids are given out.
// wantEvents records events for a KV router.
func NewKVPool(n int, prefixCaching, wantEvents bool) *KVPool {
	return &KVPool{
		capacity:      n,
		lruHead:       -1,
		lruTail:       -1,
		prefixCaching: prefixCaching,
		wantEvents:    wantEvents,
	}
}

// MaxStateBlocks bounds the blocks whose state a rank's pool of cfg ever allocates, for the
// memory estimate of a run (simcore/budget.go, docs/robustness.md "Memory"). Only Identify
// allocates state, and only prefix caching calls it (Rank.registerFull for the blocks a
// request may share, and Rank.releaseBlocks for a preempted request's unique blocks): without
// prefix caching every block stays anonymous and the bound is 0. With it, the ids in use at
// once are at most the capacity; and when no request is ever preempted or retracted
// (NeverPreempts), every id is a registered copy of a shareable block, each request
// registering each of its shareable blocks at most once per rank, so they are also at most
// shareableBlocks, the shareable blocks of all the run's requests. Ids are reused before new
// ones are made and the array doubles from 16, so it holds at most max(16, 2 × those ids),
// and grow.Within never grows it past the capacity.
func MaxStateBlocks(cfg RankConfig, holders, maxSeqTokens int, shareableBlocks float64) int {
	if !cfg.PrefixCaching {
		return 0
	}
	ids := float64(cfg.NumBlocks)
	if NeverPreempts(cfg, holders, maxSeqTokens) {
		ids = min(ids, shareableBlocks)
	}
	return int(min(float64(cfg.NumBlocks), max(16, 2*ids)))
}

// NeverPreempts reports whether holders requests, each of at most maxSeqTokens tokens, fit in
// the pool of cfg all at once (HoldersThatFit), so that taking a block never finds the pool
// full of referenced blocks and no request is preempted (vLLM) or retracted (SGLang).
func NeverPreempts(cfg RankConfig, holders, maxSeqTokens int) bool {
	return holders <= HoldersThatFit(cfg, maxSeqTokens)
}

// HoldersThatFit is how many requests of at most maxSeqTokens tokens (input and output, cut
// at the context) the pool of cfg holds at once. A request's footprint is counted as its
// tokens plus the tokens a pass may reserve ahead (one, footprint.go, and the MTP drafts),
// rounded up to blocks, plus one block of slack.
func HoldersThatFit(cfg RankConfig, maxSeqTokens int) int {
	tokens := maxSeqTokens
	if cfg.MaxModelLen > 0 {
		tokens = min(tokens, cfg.MaxModelLen)
	}
	bs := max(cfg.BlockSize, 1)
	return cfg.NumBlocks / ((tokens+1+cfg.NextN+bs-1)/bs + 1)
}

// NumBlocks is the pool capacity.
func (p *KVPool) NumBlocks() int { return p.capacity }

// StateBlocks is the number of blocks whose state the pool has allocated (at most
// NumBlocks): what the pool costs in memory, KVBlockBytes each.
func (p *KVPool) StateBlocks() int { return len(p.blocks) }

// Free is the number of blocks holding nothing.
func (p *KVPool) Free() int { return p.capacity - p.numUsed }

// Active is the number of blocks referenced by some request (private or pinned cached).
func (p *KVPool) Active() int { return p.numUsed - p.numInactive }

// Inactive is the number of evictable cached blocks.
func (p *KVPool) Inactive() int { return p.numInactive }

// Match counts the leading hash ids that have a resident cached copy (no LRU change) and
// remembers their copies for ActiveHits and PinMatched, which refer to them by position. Those
// stay valid until blocks are evicted: the admission that matched pins its hits before it
// takes fresh blocks.
func (p *KVPool) Match(hashes []int32) int {
	heads, copyHead := p.heads[:0], p.copyHead
	if p.prefixCaching {
		for _, h := range hashes {
			if int(h) >= len(copyHead) || copyHead[h] == 0 {
				break
			}
			heads = append(heads, copyHead[h]-1)
		}
	}
	p.heads = heads
	return len(heads)
}

// hitCopy picks the copy of the i-th matched hash to pin: an active one if any, else the
// first inactive one.
func (p *KVPool) hitCopy(i int) int32 {
	first := p.heads[i]
	for b := first; b >= 0; b = p.blocks[b].nextCopy {
		if p.blocks[b].refs > 0 {
			return b
		}
	}
	return first
}

// ActiveHits counts how many of the first n hashes of the last Match have an active copy.
func (p *KVPool) ActiveHits(n int) (active int) {
	for i := 0; i < n; i++ {
		if p.blocks[p.hitCopy(i)].refs > 0 {
			active++
		}
	}
	return active
}

// CanReserve reports whether fresh new blocks can be taken while pinning hits, of which
// inactiveHits are currently inactive (docs/semantics/simulation.md §4.3: fails iff fresh − free > inactive − pinned).
func (p *KVPool) CanReserve(fresh, inactiveHits int) bool {
	return fresh-p.Free() <= p.numInactive-inactiveHits
}

// PinMatched takes a reference on the chosen copy of each of the first n hashes of the last
// Match and appends their block ids to dst (one call per admission, not per block).
func (p *KVPool) PinMatched(n int, dst []int32) []int32 {
	for i := 0; i < n; i++ {
		b := p.hitCopy(i)
		blk := &p.blocks[b]
		if blk.refs == 0 {
			p.lruRemove(b)
		}
		blk.refs++
		dst = append(dst, b)
	}
	return dst
}

// TakeAnon takes n anonymous blocks: free ones first, then from the LRU head (dead blocks,
// or live cached copies, which are evicted). The caller has checked CanReserve.
func (p *KVPool) TakeAnon(n int) {
	k := min(n, p.capacity-p.numUsed)
	p.numUsed += k
	n -= k
	for n > 0 {
		h := p.lruHead
		if h < 0 {
			p.gapTail -= n
			p.numInactive -= n
			return
		}
		blk := &p.blocks[h]
		if gap := min(n, blk.gapBefore); gap > 0 {
			blk.gapBefore -= gap
			p.numInactive -= gap
			n -= gap
			continue
		}
		p.lruRemove(h)
		if blk.cached && !blk.unique {
			p.unregister(h)
		}
		p.freeID(h)
		n--
	}
}

// Identify gives one of a request's anonymous blocks an id (it is about to become a cached
// copy) and returns it; the block stays held (refs 1).
func (p *KVPool) Identify() int32 {
	var b int32
	if n := len(p.freeIDs); n > 0 {
		b = p.freeIDs[n-1]
		p.freeIDs = p.freeIDs[:n-1]
	} else {
		b = p.nextNew
		p.nextNew++
		if int(b) >= len(p.blocks) {
			// Ids in use never outnumber the blocks held, so b < capacity.
			p.blocks = grow.Within(p.blocks, int(b)+1, p.capacity)
		}
	}
	blk := &p.blocks[b]
	*blk = kvBlock{refs: 1, prev: -1, next: -1, nextCopy: -1, gen: blk.gen + 1}
	return b
}

// freeID returns id b: the block it named is now anonymous or free. Its generation moves on
// so a stale MatchOwn cannot match it.
func (p *KVPool) freeID(b int32) {
	blk := &p.blocks[b]
	blk.gen++
	blk.cached, blk.unique, blk.refs = false, false, 0
	p.freeIDs = append(p.freeIDs, b)
}

// Gen is block b's generation (for MatchOwn).
func (p *KVPool) Gen(b int32) uint32 { return p.blocks[b].gen }

// MatchOwn counts the leading blocks of ids, released earlier by one request with the given
// generations, that are still resident unique cached copies.
func (p *KVPool) MatchOwn(ids []int32, gens []uint32) int {
	n := 0
	for i, b := range ids {
		if int(b) >= len(p.blocks) {
			break // the pool was cleared since (Clear)
		}
		blk := &p.blocks[b]
		if !blk.cached || !blk.unique || blk.gen != gens[i] {
			break
		}
		n++
	}
	return n
}

// PinID takes a reference on a specific cached block (an own unique hit).
func (p *KVPool) PinID(b int32) int32 {
	blk := &p.blocks[b]
	if blk.refs == 0 {
		p.lruRemove(b)
	}
	blk.refs++
	return b
}

// Register turns private block b, now full, into a cached copy under hash id h (parent: the
// previous block's hash id, unless root).
func (p *KVPool) Register(b int32, h, parent int32, root bool) {
	if !p.prefixCaching {
		return
	}
	blk := &p.blocks[b]
	blk.cached = true
	blk.hash = h
	if int(h) >= len(p.copyHead) {
		p.copyHead = grow.To(p.copyHead, int(h)+1)
	}
	if head := p.copyHead[h]; head != 0 {
		blk.nextCopy = p.blocks[head-1].nextCopy
		p.blocks[head-1].nextCopy = b
		return
	}
	p.copyHead[h] = b + 1
	blk.nextCopy = -1
	if p.wantEvents {
		p.Events = append(p.Events, KVEvent{Kind: KVStored, Hash: h, Parent: parent, Root: root})
	}
}

// Release drops a request's blocks — ids (its leading identified blocks) then anon
// anonymous ones — last block first (docs/semantics/simulation.md §4.3), so a sequence's leaf blocks enter the LRU before
// their parents and are evicted first. Blocks [uniqueFrom, uniqueTo) are full blocks only
// this request can reuse: when the request is final (it will never be admitted on this pool
// again) they become dead blocks that only hold their place in the LRU order; otherwise the
// caller has identified them and they become unique cached copies in the LRU (never indexed
// or announced). Other anonymous blocks are freed.
func (p *KVPool) Release(ids []int32, anon, uniqueFrom, uniqueTo int, final bool) {
	n := len(ids)
	if anon > 0 {
		unique := 0
		if p.prefixCaching && final {
			unique = max(0, min(uniqueTo, n+anon)-max(uniqueFrom, n))
			p.gapTail += unique
			p.numInactive += unique
		}
		p.numUsed -= anon - unique
	}
	for i := n - 1; i >= 0; i-- {
		b := ids[i]
		blk := &p.blocks[b]
		if p.prefixCaching && i >= uniqueFrom && i < uniqueTo {
			if final {
				p.freeID(b)
				p.gapTail++
				p.numInactive++
				continue
			}
			blk.refs = 0
			blk.cached, blk.unique = true, true
			p.lruAppend(b)
			continue
		}
		if !blk.cached {
			p.freeID(b)
			p.numUsed--
			continue
		}
		blk.refs--
		if blk.refs == 0 {
			p.lruAppend(b)
		}
	}
}

// unregister removes evicted cached block b from its hash's copy list.
func (p *KVPool) unregister(b int32) {
	blk := &p.blocks[b]
	if !blk.cached || blk.unique {
		return
	}
	h := blk.hash
	head := p.copyHead[h] - 1
	if head == b {
		p.copyHead[h] = blk.nextCopy + 1 // 0 when it was the last copy
		if blk.nextCopy < 0 && p.wantEvents {
			p.Events = append(p.Events, KVEvent{Kind: KVRemoved, Hash: h})
		}
		return
	}
	for c := head; c >= 0; c = p.blocks[c].nextCopy {
		if p.blocks[c].nextCopy == b {
			p.blocks[c].nextCopy = blk.nextCopy
			return
		}
	}
}

func (p *KVPool) lruAppend(b int32) {
	blk := &p.blocks[b]
	blk.gapBefore, p.gapTail = p.gapTail, 0
	blk.prev = p.lruTail
	blk.next = -1
	if p.lruTail >= 0 {
		p.blocks[p.lruTail].next = b
	} else {
		p.lruHead = b
	}
	p.lruTail = b
	p.numInactive++
}

// lruRemove takes block b out of the LRU list. It runs for every eviction and every pin of
// an inactive block, and is written to stay within the Go inliner's budget.
func (p *KVPool) lruRemove(b int32) {
	blk := &p.blocks[b]
	next, prev := blk.next, blk.prev
	// The dead blocks before b now come before its successor.
	if next >= 0 {
		nb := &p.blocks[next]
		nb.gapBefore += blk.gapBefore
		nb.prev = prev
	} else {
		p.gapTail += blk.gapBefore
		p.lruTail = prev
	}
	if prev >= 0 {
		p.blocks[prev].next = next
	} else {
		p.lruHead = next
	}
	blk.gapBefore, blk.prev, blk.next = 0, -1, -1
	p.numInactive--
}

// Clear empties the pool (worker removal) and records a Cleared event.
func (p *KVPool) Clear() {
	*p = KVPool{capacity: p.capacity, lruHead: -1, lruTail: -1,
		prefixCaching: p.prefixCaching, wantEvents: p.wantEvents}
	if p.wantEvents {
		p.Events = append(p.Events, KVEvent{Kind: KVCleared})
	}
}
