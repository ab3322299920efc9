package planner

import (
	"math"
	"slices"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestRegression1D(t *testing.T) {
	r := NewRegression(1, 64, 16, 5, false)
	for x := 100.0; x <= 400; x += 100 {
		r.Add(x, 0, 0.01+0.001*x)
	}
	if r.Ready() {
		t.Fatal("ready with 4 < load_min_observations samples")
	}
	r.Add(500, 0, 0.01+0.001*500)
	a, b, ok := r.Fit()
	if !ok || !near(a, 0.01) || !near(b[0], 0.001) || b[1] != 0 {
		t.Fatalf("fit = %v %v %v, want 0.01 + 0.001x", a, b, ok)
	}
	if got := r.Predict(1000, 0); !near(got, 1.01) {
		t.Errorf("predict(1000) = %v, want 1.01", got)
	}
	// Sxx = 0: slope 0, intercept = mean.
	c := NewRegression(1, 64, 16, 2, false)
	c.Add(7, 0, 1)
	c.Add(7, 0, 3)
	if a, b, ok := c.Fit(); !ok || a != 2 || b[0] != 0 {
		t.Errorf("constant-x fit = %v %v %v, want a=2 b=0", a, b, ok)
	}
}

func TestRegression2D(t *testing.T) {
	r := NewRegression(2, 64, 16, 5, false)
	for _, x := range [][2]float64{{1, 100}, {2, 50}, {3, 300}, {4, 120}, {5, 500}, {6, 10}} {
		r.Add(x[0], x[1], 0.005+0.0002*x[0]+0.00001*x[1])
	}
	a, b, ok := r.Fit()
	if !ok || !near(a, 0.005) || !near(b[0], 0.0002) || !near(b[1], 0.00001) {
		t.Fatalf("fit = %v %v %v, want 0.005 + 0.0002·x0 + 0.00001·x1", a, b, ok)
	}
}

func TestRegressionMinNorm(t *testing.T) {
	// x1 = 2·x0 exactly: det = 0. y = 1 + 5·x0; the minimum-norm slopes with
	// b0 + 2·b1 = 5 are (1, 2).
	r := NewRegression(2, 64, 16, 3, false)
	for _, x := range []float64{1, 2, 3, 4} {
		r.Add(x, 2*x, 1+5*x)
	}
	a, b, ok := r.Fit()
	if !ok || !near(a, 1) || !near(b[0], 1) || !near(b[1], 2) {
		t.Fatalf("fit = %v %v %v, want a=1 b=(1,2)", a, b, ok)
	}
}

func TestRegressionNegativeSlopes(t *testing.T) {
	// Prefill: a falling wall time rejects the model.
	p := NewRegression(1, 64, 16, 2, false)
	p.Add(100, 0, 0.5)
	p.Add(200, 0, 0.4)
	if p.Ready() {
		t.Error("prefill with negative slope is ready")
	}
	// Decode: negative num_decode slope is clipped to 0, the KV slope kept.
	d := NewRegression(2, 64, 16, 3, true)
	for _, x := range [][2]float64{{1, 100}, {2, 300}, {3, 200}, {4, 600}} {
		d.Add(x[0], x[1], 0.01-0.001*x[0]+0.0001*x[1])
	}
	a, b, ok := d.Fit()
	if !ok || b[0] != 0 || !near(b[1], 0.0001) || !near(a, 0.01) {
		t.Errorf("decode fit = %v %v %v, want b0 clipped to 0, b1 = 0.0001, a = 0.01", a, b, ok)
	}
	// Decode: negative KV slope rejects.
	k := NewRegression(2, 64, 16, 3, true)
	for _, x := range [][2]float64{{1, 100}, {2, 300}, {3, 200}, {4, 600}} {
		k.Add(x[0], x[1], 1+0.001*x[0]-0.0001*x[1])
	}
	if k.Ready() {
		t.Error("decode with negative KV slope is ready")
	}
	// Agg: any negative slope rejects.
	g := NewRegression(2, 64, 16, 3, false)
	for _, x := range [][2]float64{{1, 100}, {2, 300}, {3, 200}, {4, 600}} {
		g.Add(x[0], x[1], 0.01-0.001*x[0]+0.0001*x[1])
	}
	if g.Ready() {
		t.Error("agg with negative prefill slope is ready")
	}
	// Predictions are floored at 1e-6 s.
	if got := d.Predict(0, -1e9); got != 1e-6 {
		t.Errorf("floored prediction = %v, want 1e-6", got)
	}
}

func xs0(r *Regression) []float64 {
	var out []float64
	for _, x := range r.xs {
		out = append(out, x[0])
	}
	return out
}

func TestRegressionRetention(t *testing.T) {
	// 1-D, 4 samples max, 2 buckets.
	r := NewRegression(1, 4, 2, 1, false)
	for _, x := range []float64{0, 10, 1, 2, 3} {
		r.Add(x, 0, x)
	}
	// Bounds [0, 10]: buckets 0:{0,1,2,3} 1:{10}; the oldest of bucket 0 (x = 0) goes.
	if got := xs0(r); !slices.Equal(got, []float64{10, 1, 2, 3}) {
		t.Fatalf("after 5 adds = %v", got)
	}
	// 20 widens the bound to [0, 20] (the observed min stays 0): re-bucketed
	// 0:{1,2,3} 1:{10,20}; x = 1 goes.
	r.Add(20, 0, 20)
	if got := xs0(r); !slices.Equal(got, []float64{10, 2, 3, 20}) {
		t.Fatalf("after widening = %v", got)
	}
	r.Add(15, 0, 15) // 1:{10,20,15} is the fullest: 10 goes
	if got := xs0(r); !slices.Equal(got, []float64{2, 3, 20, 15}) {
		t.Fatalf("after 15 = %v", got)
	}
	// Tie: 3 max, 2 buckets, 0, 10, 1, 9 → 0:{0,1} 1:{10,9}; the smaller key 0 loses x = 0.
	tie := NewRegression(1, 3, 2, 1, false)
	for _, x := range []float64{0, 10, 1, 9} {
		tie.Add(x, 0, x)
	}
	if got := xs0(tie); !slices.Equal(got, []float64{10, 1, 9}) {
		t.Fatalf("tie = %v", got)
	}
	// 2-D, bucket size 4 = 2×2: all four keys hold one sample; (0,0) (key (0,0)) goes.
	two := NewRegression(2, 3, 4, 1, false)
	for _, x := range [][2]float64{{10, 10}, {0, 10}, {10, 0}, {0, 0}} {
		two.Add(x[0], x[1], 1)
	}
	if len(two.xs) != 3 || two.xs[0] != [2]float64{10, 10} || two.xs[1] != [2]float64{0, 10} || two.xs[2] != [2]float64{10, 0} {
		t.Fatalf("2-D retention = %v", two.xs)
	}
}
