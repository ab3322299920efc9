package engine

import "testing"

// counts checks the pool's free, active and inactive block counts.
func counts(t *testing.T, p *KVPool, step string, free, active, inactive int) {
	t.Helper()
	if p.Free() != free || p.Active() != active || p.Inactive() != inactive {
		t.Fatalf("%s: free %d active %d inactive %d, want %d %d %d", step, p.Free(), p.Active(), p.Inactive(), free, active, inactive)
	}
}

// Dead blocks (unique blocks of finished requests) keep their place in the LRU order: a live
// cached block released after them is evicted only once every dead block before it has been
// taken. Counts match a pool that keeps every block in its LRU list.
func TestKVPoolDeadBlocksKeepLRUOrder(t *testing.T) {
	p := NewKVPool(10, true, true)
	p.TakeAnon(4)
	p.Release(nil, 4, 0, 4, true) // four unique full blocks of a finished request: dead
	counts(t, p, "after A", 6, 0, 4)
	p.TakeAnon(1)
	b := p.Identify()
	p.Register(b, 777, 0, true)
	p.Release([]int32{b}, 0, 0, 0, false) // a shared block: live, behind the dead ones
	counts(t, p, "after B", 5, 0, 5)
	p.Events = p.Events[:0]
	p.TakeAnon(5) // free blocks first
	counts(t, p, "after C", 0, 5, 5)
	p.TakeAnon(4) // the four dead blocks come first in LRU order
	counts(t, p, "after D", 0, 9, 1)
	if p.Match([]int32{777}) != 1 || len(p.Events) != 0 {
		t.Fatalf("the shared block was evicted before the dead blocks ahead of it (events %v)", p.Events)
	}
	p.TakeAnon(1)
	counts(t, p, "after E", 0, 10, 0)
	if p.Match([]int32{777}) != 0 || len(p.Events) != 1 || p.Events[0] != (KVEvent{Kind: KVRemoved, Hash: 777}) {
		t.Fatalf("the shared block should be evicted now (events %v)", p.Events)
	}
}

// A preempted request's unique blocks stay live: they can be matched by their owner until
// evicted, pinning one of them moves the dead blocks before it to its successor, and an
// evicted own block never matches again even before its id is reused.
func TestKVPoolOwnBlocksAfterPreemption(t *testing.T) {
	p := NewKVPool(6, true, false)
	p.TakeAnon(2)
	p.Release(nil, 2, 0, 2, true) // two dead blocks
	p.TakeAnon(2)
	own := []int32{p.Identify(), p.Identify()}
	gens := []uint32{p.Gen(own[0]), p.Gen(own[1])}
	p.Release(own, 0, 0, 2, false) // preempted: live, MatchOwn-able
	if got := p.MatchOwn(own, gens); got != 2 {
		t.Fatalf("MatchOwn = %d, want 2", got)
	}
	p.PinID(own[1]) // the owner re-pins its last block: 2 dead and own[0] remain inactive
	counts(t, p, "after pin", 2, 1, 3)
	p.TakeAnon(2) // the free blocks
	p.TakeAnon(2) // the two dead blocks, which came before own[0]
	if got := p.MatchOwn(own[:1], gens[:1]); got != 1 {
		t.Fatalf("own block evicted before the dead blocks ahead of it")
	}
	p.TakeAnon(1)
	if got := p.MatchOwn(own[:1], gens[:1]); got != 0 {
		t.Fatalf("own block should be evicted now")
	}
	counts(t, p, "full", 0, 6, 0)
}

// Releasing a mix: leading identified blocks (a shared hit, a unique own block), then
// anonymous unique and private blocks. Final: unique ones turn dead, private ones free.
func TestKVPoolReleaseMixed(t *testing.T) {
	p := NewKVPool(8, true, false)
	p.TakeAnon(5)
	hit := p.Identify()
	p.Register(hit, 5, 0, true)
	uniq := p.Identify()
	// Held: [hit, uniq] identified + 3 anonymous; blocks 1..3 unique (registered 4), 4 private.
	p.Release([]int32{hit, uniq}, 3, 1, 4, true)
	counts(t, p, "released", 4, 0, 4) // 3 dead + the shared block; the private one is free
	if p.Match([]int32{5}) != 1 {
		t.Fatal("the shared block must stay cached")
	}
}

// Match remembers the copies it found, by position: ActiveHits counts the matched hashes with
// an active copy, and PinMatched prefers an active copy of a hash with several (docs/semantics/simulation.md §4.3) and pins the
// inactive one otherwise, taking it out of the LRU.
func TestKVPoolPinsMatchedCopies(t *testing.T) {
	p := NewKVPool(8, true, false)
	p.TakeAnon(3)
	a1, b1, a2 := p.Identify(), p.Identify(), p.Identify()
	p.Register(a1, 10, 0, true)
	p.Register(b1, 11, 10, false)
	p.Register(a2, 10, 0, true)                // a second copy of hash 10
	p.Release([]int32{a1, b1}, 0, 0, 0, false) // a1 and b1 inactive; a2 still held
	counts(t, p, "released", 5, 1, 2)
	if got := p.Match([]int32{10, 11, 12}); got != 2 {
		t.Fatalf("Match = %d, want 2", got)
	}
	if got := p.ActiveHits(2); got != 1 {
		t.Fatalf("ActiveHits(2) = %d, want 1 (hash 10 has the active copy a2)", got)
	}
	if got := p.PinMatched(2, nil); len(got) != 2 || got[0] != a2 || got[1] != b1 {
		t.Fatalf("PinMatched(2) = blocks %v, want the active copy %d and %d", got, a2, b1)
	}
	counts(t, p, "pinned", 5, 2, 1) // b1 left the LRU; a1 stays inactive
	if p.Match([]int32{11}) != 1 || p.ActiveHits(1) != 1 {
		t.Fatal("a new Match must describe its own hashes")
	}
}

// The wake-up heap pops in (pass, admission sequence) order under interleaved pushes and
// delays of its earliest entry, whatever the two parts of the key (up to 2^32 − 1 each).
func TestWakeHeapOrder(t *testing.T) {
	type ps struct{ pass, seq int64 }
	var h wakeHeap
	var ref []ps
	less := func(a, b ps) bool { return a.pass < b.pass || a.pass == b.pass && a.seq < b.seq }
	earliest := func() int {
		best := 0
		for i := range ref {
			if less(ref[i], ref[best]) {
				best = i
			}
		}
		return best
	}
	seq := int64(0)
	for step := 0; step < 5000; step++ {
		if step%5 == 4 && len(h) > 0 {
			best := earliest()
			later := min(ref[best].pass+int64(step%11), 1<<32-1)
			ref[best].pass = later
			h.delayTop(later)
			continue
		}
		if step%3 != 2 || len(h) == 0 {
			seq++
			x := ps{pass: int64(step/7 + int(seq*7919%13)), seq: seq}
			if step%17 == 0 {
				x = ps{pass: 1<<32 - 1 - int64(step%3), seq: 1<<32 - 1 - seq} // the keys' extremes
			}
			if !wakeKeyFits(x.pass, x.seq) {
				t.Fatalf("(%d,%d) must fit a wake key", x.pass, x.seq)
			}
			h.push(wake{key: wakeKey(x.pass, x.seq)})
			ref = append(ref, x)
			continue
		}
		got := h.pop()
		best := earliest()
		if got.pass() != ref[best].pass || got.key&(1<<32-1) != uint64(ref[best].seq) {
			t.Fatalf("step %d: popped key %#x, want (%d,%d)", step, got.key, ref[best].pass, ref[best].seq)
		}
		ref = append(ref[:best], ref[best+1:]...)
	}
	if wakeKeyFits(1<<32, 0) || wakeKeyFits(0, 1<<32) || wakeKeyFits(-1, 0) {
		t.Error("wakeKeyFits must refuse passes and sequences of 2^32 and more, and negative ones")
	}
}

// A lazy pool allocates state only for the ids it gives out: anonymous blocks cost nothing,
// identified ones grow the array by doubling up to the capacity, freed ids are reused before
// the array grows again, and the counters are those of the whole capacity throughout.
func TestKVPoolLazyState(t *testing.T) {
	p := NewKVPool(1000, true, false)
	p.TakeAnon(900)
	counts(t, p, "900 anonymous", 100, 900, 0)
	if p.StateBlocks() != 0 || p.NumBlocks() != 1000 {
		t.Fatalf("anonymous blocks: state for %d blocks of %d; want 0 of 1000", p.StateBlocks(), p.NumBlocks())
	}
	ids := make([]int32, 0, 100)
	for i := 0; i < 100; i++ {
		ids = append(ids, p.Identify())
	}
	if n := p.StateBlocks(); n < 100 || n > 200 {
		t.Fatalf("100 identified blocks: state for %d, want 100–200 (doubling from 16)", n)
	}
	counts(t, p, "100 of them identified", 100, 900, 0)
	p.Release(ids, 800, 0, 0, true)
	counts(t, p, "all released", 1000, 0, 0)
	before := p.StateBlocks()
	p.TakeAnon(100)
	for i := 0; i < 100; i++ {
		if b := p.Identify(); int(b) >= 100 {
			t.Fatalf("a new id %d while 100 freed ids were left", b)
		}
	}
	if p.StateBlocks() != before {
		t.Fatalf("reusing freed ids grew the state from %d to %d blocks", before, p.StateBlocks())
	}

	small := NewKVPool(20, true, false)
	small.TakeAnon(20)
	for i := 0; i < 20; i++ {
		small.Identify()
	}
	if small.StateBlocks() != 20 {
		t.Fatalf("a full pool of 20: state for %d blocks, want exactly 20 (never past the capacity)", small.StateBlocks())
	}
}

// After Clear (worker removal) the pool holds no state, and a preempted request's stale own
// ids, which may lie past the new array, match nothing.
func TestKVPoolClearDropsState(t *testing.T) {
	p := NewKVPool(64, true, false)
	p.TakeAnon(40)
	var ids []int32
	var gens []uint32
	for i := 0; i < 40; i++ {
		b := p.Identify()
		ids, gens = append(ids, b), append(gens, p.Gen(b))
	}
	p.Release(ids, 0, 0, 40, false)
	if n := p.MatchOwn(ids, gens); n != 40 {
		t.Fatalf("before Clear: %d own blocks match, want 40", n)
	}
	p.Clear()
	counts(t, p, "cleared", 64, 0, 0)
	if p.StateBlocks() != 0 {
		t.Fatalf("cleared pool keeps state for %d blocks", p.StateBlocks())
	}
	if n := p.MatchOwn(ids[30:], gens[30:]); n != 0 {
		t.Fatalf("after Clear: %d stale own blocks match, want 0", n)
	}
}
