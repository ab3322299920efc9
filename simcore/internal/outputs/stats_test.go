package outputs

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Percentile ranks of docs/semantics/outputs.md §4.2: N = 2 → the median is the larger value; N = 4 → p50
// and p75 take index 2, p90/p95/p99 index 3. Mean and population std of E4's pooled ITL.
func TestDistStatsSpecExamples(t *testing.T) {
	var d Dist
	d.Add(1)
	d.Add(3)
	if st := d.Stats(); st.Median != 3 || st.Mean != 2 || st.Std != 1 {
		t.Errorf("N=2: %+v", st)
	}
	var e Dist
	for _, v := range []float64{4, 1, 3, 2} {
		e.Add(v)
	}
	if st := e.Stats(); st.Median != 3 || st.P75 != 3 || st.P90 != 4 || st.P99 != 4 || st.Min != 1 || st.Max != 4 {
		t.Errorf("N=4: %+v", st)
	}
	var g Dist
	g.Add(2)
	g.AddN(1, 3) // E4 gaps {2,1,1,1} as one weighted entry
	st := g.Stats()
	if st.Mean != 1.25 || st.Median != 1 || st.P90 != 2 || st.Std != 0.4330127018922193 {
		t.Errorf("E4 ITL: %+v", st)
	}
	var empty Dist
	if (empty.Stats() != Stats{}) {
		t.Error("empty distribution must be all zero")
	}
}

// The per-user distribution derived from the sorted gap groups equals a fresh distribution of
// 1000/gap over the positive gaps, bit for bit.
func TestReciprocalEqualsFreshDist(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	var gaps, fresh Dist
	for i := 0; i < 20000; i++ {
		g := float64(rnd.IntN(400)) / 37
		n := int64(rnd.IntN(3) + 1)
		gaps.AddN(g, n)
		if g > 0 {
			fresh.AddN(1000/g, n)
		}
	}
	gaps.Add(0)
	if a, b := gaps.Reciprocal(1000).Stats(), fresh.Stats(); a != b {
		t.Errorf("reciprocal %+v != fresh %+v", a, b)
	}
}

// Unit and weighted representations of one multiset give identical bits.
func TestDistWeightedEqualsUnit(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	var a, b Dist
	for i := 0; i < 5000; i++ {
		v := float64(rnd.IntN(50)) / 7
		n := int64(rnd.IntN(4) + 1)
		b.AddN(v, n)
		for j := int64(0); j < n; j++ {
			a.Add(v)
		}
	}
	if sa, sb := a.Stats(), b.Stats(); sa != sb {
		t.Errorf("unit %+v != weighted %+v", sa, sb)
	}
}

// The radix sort orders keys as a comparison sort orders the floats, stably (payloads of
// equal values keep their order), at both digit widths, with negative values, duplicates and
// values that tie above the low 16 bits of their keys (the fix-up pass).
func TestSortKeysMatchesComparisonSort(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{radixMin, 20000, 1<<18 + 5} {
		for _, bits := range []uint{12, 16} {
			ws := make([]sample, n)
			for i := range ws {
				v := rnd.Float64() * 100
				switch {
				case i%13 == 0:
					v = 1 + float64(rnd.IntN(1000))*0x1p-40 // ties in the high 48 bits of the key
				case i%11 == 0:
					v = -v
				case i%7 == 0:
					v = float64(rnd.IntN(5)) // many duplicates
				}
				ws[i] = sample{Gap: v, Count: int64(i)}
			}
			want := slices.Clone(ws)
			slices.SortStableFunc(want, func(a, b sample) int { return cmp.Compare(a.Gap, b.Gap) })
			slots := make([]mergeSlot, n)
			for i, w := range ws {
				slots[i] = mergeSlot{floatKey(w.Gap), w.Count}
			}
			sortSlotsDigits(slots, bits)
			for i := range want {
				if got := (sample{Gap: keyFloat(slots[i].key), Count: slots[i].count}); got != want[i] {
					t.Fatalf("n=%d, %d-bit digits, index %d: %+v, want %+v (the sort must be stable and ordered)", n, bits, i, got, want[i])
				}
			}
		}
	}
}

// sample is a value with a count, as the tests build them.
type sample struct {
	Gap   float64
	Count int64
}

// Grouping (equal values merged in a hash table as they arrive, then sorted) gives the groups
// of sorting every sample and merging equal neighbours: for few and for many distinct values
// (both sorts), unit and weighted samples together, and round values whose keys end in zero
// bits.
func TestDistGroupsMatchSortThenMerge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, distinct := range []int{3, 1000, 50000} {
		for _, n := range []int{10, 60000} {
			ws := make([]sample, n)
			ones := make([]float64, n/2)
			for i := range ws {
				v := float64(rnd.IntN(distinct)) // round values
				if distinct == 50000 {
					v = 5 + float64(rnd.IntN(distinct))*0x1p-30
				}
				ws[i] = sample{Gap: v, Count: int64(rnd.IntN(5) + 1)}
			}
			all := slices.Clone(ws)
			for i := range ones {
				ones[i] = ws[i].Gap
				all = append(all, sample{Gap: ones[i], Count: 1})
			}
			slices.SortFunc(all, func(a, b sample) int { return cmp.Compare(a.Gap, b.Gap) })
			var wk []uint64
			var wc []int64
			for _, x := range all {
				if k := floatKey(x.Gap); len(wk) > 0 && wk[len(wk)-1] == k {
					wc[len(wc)-1] += x.Count
				} else {
					wk, wc = append(wk, k), append(wc, x.Count)
				}
			}
			d := NewDist(len(ones))
			for _, v := range ones {
				d.Add(v)
			}
			for _, w := range ws {
				d.AddN(w.Gap, w.Count)
			}
			d.group()
			gk := make([]uint64, len(d.vals))
			for i, v := range d.vals {
				gk[i] = floatKey(v)
			}
			if gc := d.counts; !slices.Equal(gk, wk) || !slices.Equal(gc, wc) {
				t.Fatalf("%d samples of %d distinct values: %d groups, want %d", n, distinct, len(gk), len(wk))
			}
		}
	}
}

// nonNegKey is floatKey of nonNeg for every kind of float.
func TestNonNegKey(t *testing.T) {
	for _, x := range []float64{0, math.Copysign(0, -1), 1e-300, 5e-324, 3.5, -2, math.Inf(1), math.Inf(-1), math.NaN(), math.MaxFloat64} {
		if got, want := nonNegKey(x), floatKey(nonNeg(x)); got != want {
			t.Errorf("nonNegKey(%v) = %#x, want %#x", x, got, want)
		}
	}
}
