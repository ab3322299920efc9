package engine

import "testing"

// Dead blocks (unique blocks of finished requests) keep their place in the LRU order: a live
// cached block released after them is evicted only once every dead block before it has been
// taken. Counts match a pool that keeps every block in its LRU list.
func TestKVPoolDeadBlocksKeepLRUOrder(t *testing.T) {
	p := NewKVPool(10, true, true)
	counts := func(step string, free, active, inactive int) {
		t.Helper()
		if p.Free() != free || p.Active() != active || p.Inactive() != inactive {
			t.Fatalf("%s: free %d active %d inactive %d, want %d %d %d", step, p.Free(), p.Active(), p.Inactive(), free, active, inactive)
		}
	}
	a := p.TakeN(nil, 4)
	p.Release(a, 0, 4, true) // four unique full blocks of a finished request: dead
	counts("after A", 6, 0, 4)
	b := p.TakeN(nil, 1)
	p.Register(b[0], 777, 0, true)
	p.Release(b, 0, 0, false) // a shared block: live, behind the dead ones
	counts("after B", 5, 0, 5)
	p.Events = p.Events[:0]
	p.TakeN(nil, 5) // never-used blocks first
	counts("after C", 0, 5, 5)
	p.TakeN(nil, 4) // the four dead blocks come first in LRU order
	counts("after D", 0, 9, 1)
	if p.Match([]uint64{777}) != 1 || len(p.Events) != 0 {
		t.Fatalf("the shared block was evicted before the dead blocks ahead of it (events %v)", p.Events)
	}
	p.TakeN(nil, 1)
	counts("after E", 0, 10, 0)
	if p.Match([]uint64{777}) != 0 || len(p.Events) != 1 || p.Events[0] != (KVEvent{Kind: KVRemoved, Hash: 777}) {
		t.Fatalf("the shared block should be evicted now (events %v)", p.Events)
	}
}

// A preempted request's unique blocks stay live: they can be matched by their owner until
// evicted, and pinning one of them moves the dead blocks before it to its successor.
func TestKVPoolOwnBlocksAfterPreemption(t *testing.T) {
	p := NewKVPool(6, true, false)
	d := p.TakeN(nil, 2)
	p.Release(d, 0, 2, true) // two dead blocks
	own := p.TakeN(nil, 2)
	gens := []uint32{p.Gen(own[0]), p.Gen(own[1])}
	p.Release(own, 0, 2, false) // preempted: live, MatchOwn-able
	if got := p.MatchOwn(own, gens); got != 2 {
		t.Fatalf("MatchOwn = %d, want 2", got)
	}
	p.PinID(own[1]) // the owner re-pins its last block: 2 dead, own[0] remain inactive
	if p.Inactive() != 3 {
		t.Fatalf("inactive %d, want 3", p.Inactive())
	}
	p.TakeN(nil, 2) // the never-used blocks
	p.TakeN(nil, 2) // the two dead blocks, which came before own[0]
	if got := p.MatchOwn(own[:1], gens[:1]); got != 1 {
		t.Fatalf("own block evicted before the dead blocks ahead of it")
	}
	p.TakeN(nil, 1)
	if got := p.MatchOwn(own[:1], gens[:1]); got != 0 {
		t.Fatalf("own block should be evicted now")
	}
}

// The wake-up heap pops in (pass, admission sequence) order under interleaved pushes.
func TestWakeHeapOrder(t *testing.T) {
	var h wakeHeap
	var ref []wake
	seq := int64(0)
	for step := 0; step < 5000; step++ {
		if step%3 != 2 || len(h) == 0 {
			seq++
			x := wake{pass: int64(step/7 + int(seq*7919%13)), seq: seq}
			h.push(x)
			ref = append(ref, x)
			continue
		}
		got := h.pop()
		best := 0
		for i := range ref {
			if ref[i].before(&ref[best]) {
				best = i
			}
		}
		if got.pass != ref[best].pass || got.seq != ref[best].seq {
			t.Fatalf("step %d: popped (%d,%d), want (%d,%d)", step, got.pass, got.seq, ref[best].pass, ref[best].seq)
		}
		ref = append(ref[:best], ref[best+1:]...)
	}
}
