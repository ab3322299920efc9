package report

import (
	"math/rand/v2"
	"testing"
)

// benchKeys is n distinct-ish gap keys shaped like the pooled ITL's: values of 5–60 ms with
// a few hundred thousand distinct float values.
func benchKeys(n int) ([]uint64, []int64) {
	rnd := rand.New(rand.NewPCG(9, 10))
	keys, counts := make([]uint64, n), make([]int64, n)
	for i := range keys {
		keys[i] = floatKey(5 + 55*rnd.Float64())
		counts[i] = int64(i)
	}
	return keys, counts
}

// BenchmarkSortKeys sorts 286 thousand gap keys (the Mooncake trace's pooled ITL groups) with
// 12- and 16-bit digits.
func BenchmarkSortKeys(b *testing.B) {
	for _, bits := range []uint{12, 16} {
		b.Run(map[uint]string{12: "12bit", 16: "16bit"}[bits], func(b *testing.B) {
			src, srcC := benchKeys(286000)
			keys, counts := make([]uint64, len(src)), make([]int64, len(src))
			for b.Loop() {
				copy(keys, src)
				copy(counts, srcC)
				sortKeysDigits(keys, counts, bits)
			}
		})
	}
}
