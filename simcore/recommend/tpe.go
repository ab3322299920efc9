package recommend

import (
	"math"
	"sort"

	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/xmath"
)

// The model-based optimiser ("bayesian", the default) is a tree-structured Parzen estimator
// (TPE; Bergstra et al., 2011): the candidates observed before the current block are split
// into the best tpeGamma share ("good") and the rest; each parameter gets a density over its
// values from each group (categorical: counts plus a uniform prior of total weight one, with
// ordered numeric choices smoothed by a Gaussian kernel over their positions;
// continuous: Gaussian kernels of width tpeBandwidth(n) around the good values in [0,1]
// coordinates, log coordinates on a log scale, plus a uniform prior); tpeSamples points are
// drawn from the good densities and the one maximising Σ log(l(x)/g(x)) over its active
// parameters that has not been proposed before and lies within the GPU budget is taken (the
// budget is known before any simulation, so the model never spends a trial outside it when a
// sample inside exists). The proposals already made in the current block join the bad group
// ("constant liar"). Infeasible, failed and timed-out candidates count as the worst. The
// first block, with no result yet, is an initial design (designPoint), not random draws.
const (
	tpeGamma   = 0.25
	tpeSamples = 32
	// tpeRandomTries bounds the random draws looking for an unproposed point when every
	// model sample repeats an earlier proposal.
	tpeRandomTries = 16
)

// The optimiser's transcendental functions come from xmath, so the native tests, the wasip1
// module and js/wasm propose the same points bit for bit.

// tpeBandwidth is the kernel width in [0,1] coordinates for n kernels (Scott-like n^(−1/5),
// floored so that a few observations still explore).
func tpeBandwidth(n int) float64 {
	return math.Max(0.05, 0.5*xmath.Exp(-0.2*xmath.Log(float64(n+1))))
}

// observation is one distinct candidate seen by the model.
type observation struct {
	pt    Point
	score float64
	first int
}

// density is one parameter's Parzen density over one group.
type density struct {
	weights []float64 // categorical, normalised
	centers []float64 // continuous kernel centres in [0,1]
	sigma   float64
}

func (s *Search) tpePoint(r *rng.Stream, t int) Point {
	start := t - t%Block
	var obs []observation
	finite := 0
	for _, c := range s.cands {
		if c.Trials[0] >= start || !c.observed {
			continue
		}
		obs = append(obs, observation{pt: c.Point, score: c.Score, first: c.Trials[0]})
		if !math.IsInf(c.Score, -1) {
			finite++
		}
	}
	if finite == 0 || len(obs) < 2 {
		for k := 0; k < tpeRandomTries; k++ {
			if pt := s.space.randomPoint(r, nil); s.fresh(pt) {
				return pt
			}
		}
		return s.space.randomPoint(r, nil)
	}
	sort.SliceStable(obs, func(i, j int) bool {
		if obs[i].score != obs[j].score {
			return obs[i].score > obs[j].score
		}
		return obs[i].first < obs[j].first
	})
	nGood := int(math.Ceil(tpeGamma * math.Sqrt(float64(len(obs)))))
	nGood = max(1, min(nGood, finite, len(obs)-1))
	good, bad := obs[:nGood], obs[nGood:]
	// Constant liar: the block's earlier proposals, not yet observed, count as bad, so the
	// proposals of one block spread out instead of repeating the model's single favourite.
	bad = append([]observation(nil), bad...)
	for k := start; k < t; k++ {
		bad = append(bad, observation{pt: s.points[k], score: math.Inf(-1), first: k})
	}
	sp := s.space
	lm := make([]density, len(sp.Params))
	gm := make([]density, len(sp.Params))
	for i := range sp.Params {
		lm[i] = sp.fit(i, good)
		gm[i] = sp.fit(i, bad)
	}
	var best Point
	bestAcq := math.Inf(-1)
	var bestAny Point
	bestAnyAcq := math.Inf(-1)
	for k := 0; k < tpeSamples; k++ {
		pt := make(Point, len(sp.Params))
		acq := 0.0
		for i := range sp.Params {
			pt[i] = math.NaN()
			if !sp.active(i, pt) {
				continue
			}
			pt[i] = sp.sample(i, &lm[i], r, sp.runnable(i, pt))
			acq += xmath.Log(sp.pdf(i, &lm[i], pt[i])) - xmath.Log(sp.pdf(i, &gm[i], pt[i]))
		}
		if acq > bestAnyAcq {
			bestAny, bestAnyAcq = pt, acq
		}
		if acq > bestAcq && s.fresh(pt) {
			best, bestAcq = pt, acq
		}
	}
	if best != nil {
		return best
	}
	for k := 0; k < tpeRandomTries; k++ {
		if pt := sp.randomPoint(r, nil); s.fresh(pt) {
			return pt
		}
	}
	return bestAny
}

// unit maps a continuous value to [0,1] (log coordinates on a log scale).
func unit(p *Param, x float64) float64 {
	if p.Max == p.Min {
		return 0.5
	}
	if p.Log {
		return (xmath.Log(x) - xmath.Log(p.Min)) / (xmath.Log(p.Max) - xmath.Log(p.Min))
	}
	return (x - p.Min) / (p.Max - p.Min)
}

func (s *Space) fit(i int, group []observation) density {
	p := &s.Params[i]
	var d density
	if p.Continuous {
		for _, o := range group {
			if !math.IsNaN(o.pt[i]) {
				d.centers = append(d.centers, unit(p, o.pt[i]))
			}
		}
		d.sigma = tpeBandwidth(len(d.centers))
		return d
	}
	k := len(p.Values)
	d.weights = make([]float64, k)
	for v := range d.weights {
		d.weights[v] = 1 / float64(k)
	}
	var hits []int
	for _, o := range group {
		if !math.IsNaN(o.pt[i]) {
			hits = append(hits, int(o.pt[i]))
		}
	}
	if p.ordinal && k > 1 {
		// Ordered numeric choices: each observation spreads a Gaussian kernel over the
		// neighbouring values (positions in [0,1]), so nearby values share its evidence.
		sigma := tpeBandwidth(len(hits))
		for _, h := range hits {
			row := make([]float64, k)
			sum := 0.0
			for v := range row {
				z := (float64(v-h) / float64(k-1)) / sigma
				row[v] = xmath.Exp(-0.5 * z * z)
				sum += row[v]
			}
			for v := range row {
				d.weights[v] += row[v] / sum
			}
		}
	} else {
		// Unordered choices: one pseudo-count per value (Laplace), so a value no good
		// candidate has yet keeps being tried.
		for v := range d.weights {
			d.weights[v] = 1
		}
		for _, h := range hits {
			d.weights[h]++
		}
	}
	total := 0.0
	for _, w := range d.weights {
		total += w
	}
	for v := range d.weights {
		d.weights[v] /= total
	}
	return d
}

// sample draws a value of parameter i from its density; ok, when not nil, limits a
// categorical draw to the values it allows (the density renormalised over them).
func (s *Space) sample(i int, d *density, r *rng.Stream, ok []bool) float64 {
	p := &s.Params[i]
	if !p.Continuous {
		weights := d.weights
		if ok != nil {
			weights = make([]float64, len(d.weights))
			total := 0.0
			for v, w := range d.weights {
				if ok[v] {
					weights[v], total = w, total+w
				}
			}
			for v := range weights {
				weights[v] /= total
			}
		}
		u := r.Uniform01()
		acc, last := 0.0, 0
		for v, w := range weights {
			if w > 0 {
				last = v
			}
			acc += w
			if u < acc {
				return float64(v)
			}
		}
		if ok == nil {
			last = len(weights) - 1
		}
		return float64(last)
	}
	j := int(r.UniformInt(uint64(len(d.centers) + 1)))
	var u float64
	if j == len(d.centers) {
		u = r.Uniform01()
	} else {
		// Box–Muller: a standard normal from two uniforms.
		u1, u2 := r.Uniform01(), r.Uniform01()
		z := math.Sqrt(-2*xmath.Log(1-u1)) * math.Cos(2*math.Pi*u2)
		u = math.Min(1, math.Max(0, d.centers[j]+d.sigma*z))
	}
	if p.Log {
		return xmath.Exp(xmath.Log(p.Min) + u*(xmath.Log(p.Max)-xmath.Log(p.Min)))
	}
	return p.Min + u*(p.Max-p.Min)
}

// pdf is the density of a value: categorical weight, or the kernel mixture with the uniform
// prior (weight one) in [0,1] coordinates.
func (s *Space) pdf(i int, d *density, x float64) float64 {
	p := &s.Params[i]
	if !p.Continuous {
		return d.weights[int(x)]
	}
	u := unit(p, x)
	sum := 1.0
	for _, c := range d.centers {
		z := (u - c) / d.sigma
		sum += xmath.Exp(-0.5*z*z) / (d.sigma * math.Sqrt(2*math.Pi))
	}
	return sum / float64(len(d.centers)+1)
}
