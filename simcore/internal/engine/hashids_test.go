package engine

import (
	"math/rand/v2"
	"testing"

	"aisimulate/simcore/internal/hashtab"
)

// The prefix-tree numbering gives every distinct sequence hash the id a plain map would give
// it (the order of first sight), whatever the branching: chains over a two-token alphabet
// share prefixes of every length, parents gain second and later children after their first
// child was numbered alone, and chains are re-walked in any order.
func TestHashIDsNumberInOrderOfFirstSight(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	in := NewHashIDs()
	want := map[uint64]int32{}
	for step := 0; step < 5000; step++ {
		parent, parentHash := hashtab.Root, uint64(0)
		for range rnd.IntN(30) {
			h := chainHash(parentHash, uint64(rnd.IntN(2)+1))
			id := in.ID(parent, h)
			w, seen := want[h]
			if !seen {
				w = int32(len(want) + 1) // after the root
				want[h] = w
			}
			if id != w || in.Hash(id) != h {
				t.Fatalf("step %d: hash %x numbered %d, want %d", step, h, id, w)
			}
			parent, parentHash = id, h
		}
	}
	if in.Len() != len(want)+1 {
		t.Fatalf("%d ids for %d hashes", in.Len(), len(want))
	}
}
