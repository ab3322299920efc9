package recommend

import (
	"math"
	"sort"
)

// ScreenLimit is the largest space (points) the screened optimiser prices, and the size up
// to which it is the default (docs/recommend.md, "screened").
const ScreenLimit = 100_000

// SampleEvery: one trial in SampleEvery goes to a seeded sample of the points the screen did
// not put first, so a point the surrogate misjudges can still be found.
const SampleEvery = 4

// Priced is one point of the space as the screen priced it.
type Priced struct {
	Point Point
	// Score is the screen's estimate of the ranking score (higher is better): −Inf when the
	// estimate is infeasible (strict_sla, min_goodput_rps), NaN when the point is outside the
	// GPU budget or the surrogate could not price it (never proposed).
	Score float64
	// Same is equal for points the screen cannot tell apart (the same deployment with the same
	// estimated metrics); only the first of them in the screen's order is proposed as promising.
	Same string
}

// screenState is the screened optimiser's plan: the promising points in order, and the
// others the seeded sample draws from.
type screenState struct {
	points   []Priced
	order    []int // indices of points, promising first
	next     int   // position in order
	sample   []int // indices of the points the sample may draw (swap-removed when drawn)
	proposed []bool
	trialScr []float64 // per trial: the screen score of its point
	priced   int
}

// UseScreen makes the search screened: trials go to the points estimated feasible in
// decreasing order of their screen score (one per group of indistinguishable points), and
// every SampleEvery-th trial to a seeded draw among the other priced points within the GPU
// budget (those estimated infeasible included). Call it before the first Propose.
func (s *Search) UseScreen(points []Priced) {
	st := &screenState{points: points, proposed: make([]bool, len(points))}
	idx := make([]int, 0, len(points))
	for i, p := range points {
		if !math.IsNaN(p.Score) {
			st.priced++
		}
		switch {
		case math.IsInf(p.Score, -1):
			st.sample = append(st.sample, i) // the sample may still find it feasible
		case !math.IsNaN(p.Score):
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return points[idx[a]].Score > points[idx[b]].Score })
	seen := map[string]bool{}
	for _, i := range idx {
		if seen[points[i].Same] {
			st.sample = append(st.sample, i)
			continue
		}
		seen[points[i].Same] = true
		st.order = append(st.order, i)
	}
	s.screen = st
}

// screenedPoint is trial t's point: the next promising point, or on every SampleEvery-th
// trial (and once the promising ones are spent) a seeded draw from the rest. Points whose
// configuration is already a candidate are passed over. ok is false when every eligible point
// was proposed (the trial then repeats the best point, a cache hit).
func (s *Search) screenedPoint(t int, draw func(n int) int) (Point, float64, bool) {
	st := s.screen
	for {
		i := -1
		if t%SampleEvery == SampleEvery-1 || st.next >= len(st.order) {
			for len(st.sample) > 0 && i < 0 {
				k := draw(len(st.sample))
				j := st.sample[k]
				st.sample[k] = st.sample[len(st.sample)-1]
				st.sample = st.sample[:len(st.sample)-1]
				if !st.proposed[j] {
					i = j
				}
			}
		}
		for i < 0 && st.next < len(st.order) {
			if j := st.order[st.next]; !st.proposed[j] {
				i = j
			}
			st.next++
		}
		if i < 0 {
			if len(st.order) == 0 {
				return nil, math.NaN(), false
			}
			return st.points[st.order[0]].Point, st.points[st.order[0]].Score, false
		}
		st.proposed[i] = true
		_, key, err := s.space.Concrete(st.points[i].Point)
		if err == nil {
			if _, seen := s.byKey[key]; seen {
				continue
			}
		}
		return st.points[i].Point, st.points[i].Score, true
	}
}

// ScreenStats is how the screen did: the points it priced, and how well its ranking agreed
// with simulation.
type ScreenStats struct {
	// Points is the size of the space, Priced the points the surrogate could price.
	Points, Priced int
	// RankCorrelation is Spearman's ρ between the screen's scores and the simulated scores
	// of the feasible simulated candidates (NaN with fewer than 3 of them).
	RankCorrelation float64
	// Compared is the number of candidates the correlation is over.
	Compared int
}

// ScreenStats is nil unless the search is screened.
func (s *Search) ScreenStats() *ScreenStats {
	if s.screen == nil {
		return nil
	}
	var a, b []float64
	for _, c := range s.cands {
		if c.Status == StatusFeasible && isFinite(c.Screen) && isFinite(c.Score) {
			a, b = append(a, c.Screen), append(b, c.Score)
		}
	}
	return &ScreenStats{Points: len(s.screen.points), Priced: s.screen.priced, RankCorrelation: spearman(a, b), Compared: len(a)}
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// spearman is Spearman's rank correlation of a and b (ties get their mean rank): the Pearson
// correlation of the ranks. NaN with fewer than 3 pairs or a constant side.
func spearman(a, b []float64) float64 {
	if len(a) < 3 {
		return math.NaN()
	}
	ra, rb := ranks(a), ranks(b)
	n := float64(len(a))
	var ma, mb float64
	for i := range ra {
		ma += ra[i]
		mb += rb[i]
	}
	ma, mb = ma/n, mb/n
	var sab, saa, sbb float64
	for i := range ra {
		da, db := ra[i]-ma, rb[i]-mb
		sab += da * db
		saa += da * da
		sbb += db * db
	}
	if saa == 0 || sbb == 0 {
		return math.NaN()
	}
	return sab / math.Sqrt(saa*sbb)
}

// ranks are the 1-based ranks of x in ascending order, ties at their mean rank.
func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] < x[idx[b]] })
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && x[idx[j+1]] == x[idx[i]] {
			j++
		}
		mean := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = mean
		}
		i = j + 1
	}
	return r
}
