package planner

import "math"

// minPrediction is the floor of every regression prediction, in seconds (docs/semantics/simulation.md §13.4).
const minPrediction = 1e-6

// Regression is a linear wall-time model fitted by ordinary least squares on centred data
// over a bucketed window of samples (docs/semantics/simulation.md §13.4): 1-D (wall = a + b·x) or 2-D
// (wall = a + b0·x0 + b1·x1).
type Regression struct {
	dims       int
	maxSamples int
	buckets    int // per axis
	minObs     int
	clipFirst  bool // 2-D decode model: a negative b0 is clipped to 0 instead of rejecting

	xs   [][2]float64 // samples in insertion order (oldest first)
	ys   []float64
	lo   [2]float64
	hi   [2]float64
	seen bool

	dirty bool
	ready bool
	a     float64
	b     [2]float64
}

// NewRegression builds an empty model: dims 1 or 2, retention of maxSamples samples in
// bucketSize buckets (isqrt(bucketSize) per axis in 2-D), fitting from minObs samples on.
func NewRegression(dims, maxSamples, bucketSize, minObs int, clipFirst bool) *Regression {
	b := bucketSize
	if dims == 2 {
		b = isqrt(bucketSize)
	}
	if b < 1 {
		b = 1
	}
	return &Regression{dims: dims, maxSamples: maxSamples, buckets: b, minObs: minObs, clipFirst: clipFirst}
}

func isqrt(n int) int {
	if n <= 0 {
		return 0
	}
	r := int(math.Sqrt(float64(n)))
	for r > 0 && r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return r
}

// Len is the number of retained samples.
func (r *Regression) Len() int { return len(r.ys) }

// Add records one sample (x1 is ignored in 1-D) and applies the retention rule.
func (r *Regression) Add(x0, x1, y float64) {
	if r.dims == 1 {
		x1 = 0
	}
	x := [2]float64{x0, x1}
	if !r.seen {
		r.lo, r.hi, r.seen = x, x, true
	} else {
		for d := 0; d < 2; d++ {
			r.lo[d] = math.Min(r.lo[d], x[d])
			r.hi[d] = math.Max(r.hi[d], x[d])
		}
	}
	r.xs = append(r.xs, x)
	r.ys = append(r.ys, y)
	r.dirty = true
	for r.maxSamples > 0 && len(r.ys) > r.maxSamples {
		r.dropOne()
	}
}

// bucketOf is the flat bucket index of a sample under the current bounds; flat order is the
// lexicographic order of the (axis 0, axis 1) bucket key.
func (r *Regression) bucketOf(x [2]float64) int {
	idx := func(d int) int {
		lo, hi := r.lo[d], r.hi[d]
		if hi <= lo {
			return 0
		}
		i := int(math.Floor((x[d] - lo) / (hi - lo) * float64(r.buckets)))
		return min(max(i, 0), r.buckets-1)
	}
	if r.dims == 1 {
		return idx(0)
	}
	return idx(0)*r.buckets + idx(1)
}

// dropOne removes the oldest sample of the fullest bucket (ties: the smallest bucket key).
func (r *Regression) dropOne() {
	nb := r.buckets
	if r.dims == 2 {
		nb *= r.buckets
	}
	counts := make([]int, nb)
	keys := make([]int, len(r.xs))
	for i, x := range r.xs {
		keys[i] = r.bucketOf(x)
		counts[keys[i]]++
	}
	best := 0
	for k := 1; k < nb; k++ {
		if counts[k] > counts[best] {
			best = k
		}
	}
	for i, k := range keys {
		if k == best {
			r.xs = append(r.xs[:i], r.xs[i+1:]...)
			r.ys = append(r.ys[:i], r.ys[i+1:]...)
			return
		}
	}
}

// Fit returns the fitted intercept and slopes and whether the model is ready (enough samples,
// no rejected negative slope).
func (r *Regression) Fit() (a float64, b [2]float64, ok bool) {
	if r.dirty {
		r.refit()
	}
	return r.a, r.b, r.ready
}

// Ready reports whether the model can predict.
func (r *Regression) Ready() bool {
	_, _, ok := r.Fit()
	return ok
}

func (r *Regression) refit() {
	r.dirty = false
	r.ready = false
	n := len(r.ys)
	if n == 0 || n < r.minObs {
		return
	}
	fn := float64(n)
	var m0, m1, my float64
	for i, x := range r.xs {
		m0 += x[0]
		m1 += x[1]
		my += r.ys[i]
	}
	m0, m1, my = m0/fn, m1/fn, my/fn
	var s00, s01, s11, s0y, s1y float64
	for i, x := range r.xs {
		d0, d1, dy := x[0]-m0, x[1]-m1, r.ys[i]-my
		s00 += float64(d0 * d0)
		s01 += float64(d0 * d1)
		s11 += float64(d1 * d1)
		s0y += float64(d0 * dy)
		s1y += float64(d1 * dy)
	}
	var b0, b1 float64
	if r.dims == 1 {
		if s00 != 0 {
			b0 = s0y / s00
		}
	} else {
		det := float64(s00*s11) - float64(s01*s01)
		if det != 0 && math.Abs(det) > 1e-12*float64(s00*s11) {
			b0 = (float64(s11*s0y) - float64(s01*s1y)) / det
			b1 = (float64(s00*s1y) - float64(s01*s0y)) / det
		} else if tr := s00 + s11; tr != 0 {
			// Rank ≤ 1: the minimum-norm solution is M·r / trace(M)² (M = v·vᵀ, pinv = M/|v|⁴).
			t2 := float64(tr * tr)
			b0 = (float64(s00*s0y) + float64(s01*s1y)) / t2
			b1 = (float64(s01*s0y) + float64(s11*s1y)) / t2
		}
	}
	a := my - float64(b0*m0) - float64(b1*m1)
	if r.dims == 2 && r.clipFirst && b0 < 0 {
		b0 = 0
	}
	if b0 < 0 || b1 < 0 || math.IsNaN(a) || math.IsNaN(b0) || math.IsNaN(b1) {
		return
	}
	r.a, r.b, r.ready = a, [2]float64{b0, b1}, true
}

// Predict is max(1e-6, a + b0·x0 + b1·x1) seconds; call only when Ready.
func (r *Regression) Predict(x0, x1 float64) float64 {
	a, b, _ := r.Fit()
	v := a + float64(b[0]*x0) + float64(b[1]*x1)
	if !(v > minPrediction) {
		return minPrediction
	}
	return v
}
