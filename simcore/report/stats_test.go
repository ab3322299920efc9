package report

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"

	"aisimulate/simcore/engine"
)

// Percentile ranks of outputs.md §4.2: N = 2 → the median is the larger value; N = 4 → p50
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

func TestSortWeightedMatchesComparisonSort(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	ws := make([]engine.GapSample, 20000)
	for i := range ws {
		v := rnd.Float64() * 100
		if i%7 == 0 {
			v = float64(rnd.IntN(5)) // many duplicates
		}
		if i%11 == 0 {
			v = -v
		}
		if i%13 == 0 {
			v = 1 + float64(rnd.IntN(1000))*0x1p-40 // ties in the high 32 bits of the key
		}
		ws[i] = engine.GapSample{Gap: v, Count: int64(i)}
	}
	want := slices.Clone(ws)
	slices.SortStableFunc(want, func(a, b engine.GapSample) int { return cmp.Compare(a.Gap, b.Gap) })
	keys, counts := sortedWeightedKeys(ws)
	for i := range want {
		if got := (engine.GapSample{Gap: keyFloat(keys[i]), Count: counts[i]}); got != want[i] {
			t.Fatalf("index %d: %+v, want %+v (radix sort must be stable and ordered)", i, got, want[i])
		}
	}
}

// sortedKeys agrees with the library sort above and below the radix threshold, including
// values that tie in the high half of their keys and negative values.
func TestSortedKeysMatchesLibrarySort(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 7))
	for _, n := range []int{10, radixMin - 1, radixMin, 30000, 1<<18 + 5} {
		xs := make([]float64, n)
		for i := range xs {
			switch i % 4 {
			case 0:
				xs[i] = rnd.Float64() * 1000
			case 1:
				xs[i] = 7 + float64(rnd.IntN(500))*0x1p-45
			case 2:
				xs[i] = -rnd.Float64()
			default:
				xs[i] = float64(rnd.IntN(3))
			}
		}
		want := slices.Clone(xs)
		slices.Sort(want)
		keys := sortedKeys(xs)
		for i, k := range keys {
			xs[i] = keyFloat(k)
		}
		if !slices.Equal(xs, want) {
			t.Fatalf("n=%d: radix order differs from the library sort", n)
		}
	}
}

// Merging equal values (unit and weighted samples) before sorting gives the groups that
// sorting then merging neighbours gives: for few and for many distinct values, and for round
// values whose keys end in zero bits.
func TestDistinctKeysMatchesSortThenMerge(t *testing.T) {
	rnd := rand.New(rand.NewPCG(11, 12))
	for _, distinct := range []int{3, 1000, 50000} {
		ws := make([]engine.GapSample, 60000)
		for i := range ws {
			v := float64(rnd.IntN(distinct)) // round values
			if distinct == 50000 {
				v = 5 + float64(rnd.IntN(distinct))*0x1p-30
			}
			ws[i] = engine.GapSample{Gap: v, Count: int64(rnd.IntN(5) + 1)}
		}
		// The first half also as unit samples: each adds count 1.
		ones := make([]float64, 30000)
		for i := range ones {
			ones[i] = ws[i].Gap
		}
		all := slices.Clone(ws)
		for _, v := range ones {
			all = append(all, engine.GapSample{Gap: v, Count: 1})
		}
		keys, counts := sortedWeightedKeys(all)
		var wk []uint64
		var wc []int64
		for i, k := range keys {
			if n := len(wk); n > 0 && wk[n-1] == k {
				wc[n-1] += counts[i]
				continue
			}
			wk, wc = append(wk, k), append(wc, counts[i])
		}
		gk, gc := distinctKeys(ones, ws)
		if !slices.Equal(gk, wk) || !slices.Equal(gc, wc) {
			t.Fatalf("%d distinct values: %d groups, want %d", distinct, len(gk), len(wk))
		}
	}
}
