package hashtab

import (
	"math/rand/v2"
	"testing"
)

// The tree numbers nodes as a map from (parent, key) would, in order of first sight, however
// paths branch: walks over a small alphabet share prefixes of every length, parents gain
// second and later children after the first was numbered alone, the root's children are
// revisited in any order, and keys wider than 32 bits are told apart too.
func TestTreeNumbersLikeAMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(7, 8))
	type edge struct {
		parent int32
		key    uint64
	}
	var tree Tree
	want := map[edge]int32{}
	for step := 0; step < 5000; step++ {
		parent := Root
		for range rnd.IntN(30) {
			key := uint64(rnd.IntN(3) + 1)
			if step%2 == 1 {
				key <<= 40 // wide keys
			}
			node := tree.Child(parent, key)
			w, seen := want[edge{parent, key}]
			if !seen {
				w = int32(len(want) + 1) // Root is node 0
				want[edge{parent, key}] = w
			}
			if node != w || tree.Key(node) != key {
				t.Fatalf("step %d: child %d of %d numbered %d, want %d", step, key, parent, node, w)
			}
			parent = node
		}
	}
	if tree.Len() != len(want)+1 {
		t.Fatalf("%d nodes for %d edges", tree.Len(), len(want))
	}
}
