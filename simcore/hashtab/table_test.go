package hashtab

import (
	"math/rand/v2"
	"testing"
)

// The table behaves exactly like a Go map under random puts and deletes, including keys
// that collide in their low bits (probe runs that wrap around the end).
func TestTableMatchesMap(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	tab := New(8)
	ref := map[uint64]int32{}
	for step := 0; step < 200000; step++ {
		k := uint64(rnd.IntN(300)+1) | uint64(rnd.IntN(4))<<40 // many low-bit collisions
		switch rnd.IntN(3) {
		case 0, 1:
			v := int32(rnd.IntN(1000))
			tab.Put(k, v)
			ref[k] = v
		case 2:
			tab.Delete(k)
			delete(ref, k)
		}
		if step%1000 == 0 {
			if tab.Len() != len(ref) {
				t.Fatalf("len %d vs %d", tab.Len(), len(ref))
			}
			for rk, rv := range ref {
				if v, ok := tab.Get(rk); !ok || v != rv {
					t.Fatalf("step %d: key %d = %d,%v want %d", step, rk, v, ok, rv)
				}
			}
		}
		if v, ok := tab.Get(k); ok != (ref[k] != 0 || func() bool { _, ok := ref[k]; return ok }()) || ok && v != ref[k] {
			t.Fatalf("step %d: key %d mismatch", step, k)
		}
	}
}

func BenchmarkTable(b *testing.B) {
	t := New(16384)
	for i := 0; i < b.N; i++ {
		k := uint64(i)*0x9e3779b97f4a7c15 | 1
		t.Put(k, int32(i))
		t.Get(k)
		if i > 8000 {
			t.Delete(uint64(i-8000)*0x9e3779b97f4a7c15 | 1)
		}
	}
}

// Spread keeps distinct keys distinct (it is a bijection) and nonzero keys nonzero, on keys
// that differ only in a few structured bits.
func TestSpreadIsInjective(t *testing.T) {
	seen := map[uint64]uint64{}
	for parent := uint64(1); parent < 300; parent++ {
		for token := uint64(0); token < 300; token++ {
			k := parent<<32 | token
			s := Spread(k)
			if s == 0 {
				t.Fatalf("Spread(%#x) = 0", k)
			}
			if prev, dup := seen[s]; dup {
				t.Fatalf("Spread(%#x) = Spread(%#x)", k, prev)
			}
			seen[s] = k
		}
	}
	if Spread(0) != 0 {
		t.Error("Spread(0) must be 0")
	}
}

// holdsExactly checks that tab maps exactly the keys of want to their values.
func holdsExactly(t *testing.T, tab *Table, want map[uint64]int32) {
	t.Helper()
	if tab.Len() != len(want) {
		t.Fatalf("%d keys, want %d", tab.Len(), len(want))
	}
	for k, v := range want {
		if got, ok := tab.Get(k); !ok || got != v {
			t.Fatalf("key %d: %d %v, want %d", k, got, ok, v)
		}
	}
}

// TestIncDecCount checks Inc and Dec as reference counts against a map, through growth and
// the backward shifts of deletions.
func TestIncDecCount(t *testing.T) {
	tab := New(4)
	want := map[uint64]int32{}
	rnd := rand.New(rand.NewPCG(7, 8))
	for step := 0; step < 200000; step++ {
		k := Spread(rnd.Uint64N(5000) + 1)
		if rnd.IntN(2) == 0 {
			if got := tab.Inc(k); got != want[k] {
				t.Fatalf("step %d: Inc returned %d, want %d", step, got, want[k])
			}
			want[k]++
		} else {
			if got := tab.Dec(k); got != want[k] {
				t.Fatalf("step %d: Dec returned %d, want %d", step, got, want[k])
			}
			if want[k] <= 1 {
				delete(want, k)
			} else {
				want[k]--
			}
		}
		if tab.Len() != len(want) {
			t.Fatalf("step %d: %d keys, want %d", step, tab.Len(), len(want))
		}
	}
	holdsExactly(t, tab, want)
}

// Insert, Find, At, SetAt and DeleteAt against a map, through growth and deletions.
func TestSlotOperations(t *testing.T) {
	tab := New(4)
	want := map[uint64]int32{}
	rnd := rand.New(rand.NewPCG(9, 10))
	for step := 0; step < 100000; step++ {
		k := Spread(rnd.Uint64N(3000) + 1)
		switch rnd.IntN(3) {
		case 0:
			old, ok := tab.Insert(k, int32(step))
			if w, had := want[k]; ok != had || old != w {
				t.Fatalf("step %d: Insert = %d %v, want %d %v", step, old, ok, w, had)
			}
			if !ok {
				want[k] = int32(step)
			}
		case 1:
			slot, ok := tab.Find(k)
			if _, had := want[k]; ok != had {
				t.Fatalf("step %d: Find = %v, want %v", step, ok, had)
			}
			if ok {
				if tab.At(slot) != want[k] {
					t.Fatalf("step %d: At = %d, want %d", step, tab.At(slot), want[k])
				}
				tab.SetAt(slot, -int32(step))
				want[k] = -int32(step)
			}
		default:
			if slot, ok := tab.Find(k); ok {
				tab.DeleteAt(slot)
				delete(want, k)
			}
		}
		if tab.Len() != len(want) {
			t.Fatalf("step %d: %d keys, want %d", step, tab.Len(), len(want))
		}
	}
	holdsExactly(t, tab, want)
}
