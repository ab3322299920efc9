package hashtab

import "testing"

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
