package recommend

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

// Spearman's ρ on exact examples: a monotone relation is 1, a reversed one −1, ties take
// their mean rank, and too few pairs or a constant side give NaN.
func TestSpearman(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []float64{10, 20, 25, 1000}, 1},
		{[]float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1},
		// ranks a = 1, 2.5, 2.5, 4; b = 1, 2, 3, 4: ρ = 4.5 / √(4.5·5) = 0.9486832980505138.
		{[]float64{1, 2, 2, 3}, []float64{1, 2, 3, 4}, 4.5 / math.Sqrt(4.5*5)},
	} {
		if got := spearman(c.a, c.b); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("spearman(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
	if !math.IsNaN(spearman([]float64{1, 2}, []float64{1, 2})) || !math.IsNaN(spearman([]float64{1, 1, 1}, []float64{1, 2, 3})) {
		t.Error("spearman of two pairs or a constant side is not NaN")
	}
}

// A screened search proposes the points in decreasing screen score, one per group of
// indistinguishable points, every fourth trial a seeded draw from the others (estimated
// infeasible ones included); never a point the screen could not price; the same seed the
// same trials.
func TestScreenedOrder(t *testing.T) {
	sp := mustSpace(t, synthYAML, "traffic.load.concurrency={choices: [8, 16]}", "engine.workers.aggregated.scheduler.max_sequences=64")
	pts, err := sp.Enumerate(1 << 20)
	must(t, err)
	priced := make([]Priced, len(pts))
	for i, pt := range pts {
		// Score: the point's index, except every 5th unpriceable and every 7th infeasible;
		// pairs of neighbours are indistinguishable.
		score := float64(i)
		switch {
		case i%5 == 0:
			score = math.NaN()
		case i%7 == 0:
			score = math.Inf(-1)
		}
		priced[i] = Priced{Point: pt, Score: score, Same: string(rune('a' + i/2))}
	}
	run := func(seed uint64) []*Candidate {
		s := NewSearch(sp, opt(spec.AlgorithmScreened, 24, seed))
		s.UseScreen(priced)
		runRounds(t, s, 16, synthEvaluate)
		return s.trials
	}
	trials := run(5)
	index := func(c *Candidate) int {
		for i, p := range pts {
			if sameFloats(p, c.Point) {
				return i
			}
		}
		return -1
	}
	last := len(pts)
	for tr, c := range trials {
		i := index(c)
		if i < 0 || math.IsNaN(priced[i].Score) || math.IsInf(priced[i].Score, -1) && tr%SampleEvery != SampleEvery-1 {
			t.Fatalf("trial %d proposed point %d (score %v)", tr, i, priced[i].Score)
		}
		if c.Trials[0] == tr && c.Screen != priced[i].Score {
			t.Errorf("trial %d: candidate screen %v, point's %v", tr, c.Screen, priced[i].Score)
		}
		if tr%SampleEvery == SampleEvery-1 {
			continue
		}
		// Promising trials descend, skipping the second of each indistinguishable pair.
		if i >= last || (i%2 == 0 && i+1 < len(pts) && priced[i+1].Score == float64(i+1)) {
			t.Errorf("trial %d: point %d after %d", tr, i, last)
		}
		last = i
	}
	again := run(5)
	other := run(6)
	differs := false
	for i := range trials {
		if trials[i].Key != again[i].Key {
			t.Fatalf("trial %d differs between two runs with one seed", i)
		}
		differs = differs || trials[i].Key != other[i].Key
	}
	if !differs {
		t.Error("another seed draws the same sample")
	}
}

func sameFloats(a, b Point) bool {
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return len(a) == len(b)
}
