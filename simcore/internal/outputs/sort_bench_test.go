package outputs

import (
	"math/rand/v2"
	"testing"
)

// benchSlots is n distinct-ish gap groups shaped like the pooled ITL's: values of 5–60 ms
// with a few hundred thousand distinct float values.
func benchSlots(n int) []mergeSlot {
	rnd := rand.New(rand.NewPCG(9, 10))
	s := make([]mergeSlot, n)
	for i := range s {
		s[i] = mergeSlot{floatKey(5 + 55*rnd.Float64()), int64(i)}
	}
	return s
}

// BenchmarkSortSlots sorts 286 thousand gap keys (the Mooncake trace's pooled ITL groups) with
// 12- and 16-bit digits.
func BenchmarkSortSlots(b *testing.B) {
	for _, bits := range []uint{12, 16} {
		b.Run(map[uint]string{12: "12bit", 16: "16bit"}[bits], func(b *testing.B) {
			src := benchSlots(286000)
			s := make([]mergeSlot, len(src))
			for b.Loop() {
				copy(s, src)
				sortSlotsDigits(s, bits)
			}
		})
	}
}
