package calibration

import (
	"math"
	"testing"
)

// A replay whose mean TTFT grows with the load only once prefill is slow (queueing behind
// prefill passes that, at the default model, are too short to queue behind) shows the
// descent from the default model no prefill slope: it explains what it can with the other
// terms and stops with the points unexplained. The queueing corner starts closer, and the
// fit ends there with the points explained.
func TestFitDescendsFromTheQueueingCorner(t *testing.T) {
	truth := Params{PrefillScale: 9, DecodeScale: 1.1}
	model := func(p Params, c float64) Metrics {
		queue := c * 20 * max(0, p[PrefillScale]-5) // no queue until prefill passes are long
		decode := p[DecodeScale]*(5+0.2*c) + p[DecodePassMs]
		return Metrics{TTFT: 100 + p[PrefillScale]*5 + p[PrefillPassMs] + queue + p[FrontendMs], TPOT: decode}
	}
	var points []Point
	for _, c := range []float64{4, 128} {
		c := c
		points = append(points, Point{Measured: model(truth, c), Replay: func(p Params) (Metrics, error) { return model(p, c), nil }})
	}
	floor := Params{PrefillScale: 0.5, PrefillPassMs: -10, DecodeScale: 0.5, DecodePassMs: -1, FrontendMs: -100}
	f, err := Fit(points, floor)
	if err != nil {
		t.Fatal(err)
	}
	if l := lossOf(points, f.Calibrated); l > resolvedLoss*4*100 {
		t.Errorf("loss %g: the fit did not reach the measurements (params %v)", l, f.Params)
	}
	if math.Abs(f.Params[PrefillScale]-truth[PrefillScale]) > 0.5 {
		t.Errorf("prefill_scale = %.3f, want about %.1f (params %v)", f.Params[PrefillScale], truth[PrefillScale], f.Params)
	}
	// The descent from the default model alone stops far from them.
	theta, _, loss, err := descend(points, replayAllOf(points), Identity, nil, floor, [NumParams]bool{true, true, true, true, true})
	if err != nil {
		t.Fatal(err)
	}
	if loss < unresolvedLoss*4 {
		t.Errorf("the descent from the default model alone explains the points (loss %g at %v): the test shows nothing", loss, theta)
	}
}

// A fit that the descent from the default model resolves never replays the queueing corner:
// the same replays as without it.
func TestFitResolvedDoesNotTryTheCorner(t *testing.T) {
	truth := Params{PrefillScale: 1.2, DecodeScale: 0.9, FrontendMs: 20}
	model := func(p Params, c float64) Metrics {
		decode := p[DecodeScale]*(5+0.2*c) + p[DecodePassMs]
		return Metrics{TTFT: p[PrefillScale]*(20+3*c) + p[PrefillPassMs] + p[FrontendMs] + 0.5*c*decode, TPOT: decode}
	}
	var points []Point
	corner := 0
	floor := Params{PrefillScale: 0.5, PrefillPassMs: -10, DecodeScale: 0.5, DecodePassMs: -1, FrontendMs: -50}
	for _, c := range []float64{4, 128} {
		c := c
		points = append(points, Point{Measured: model(truth, c), Replay: func(p Params) (Metrics, error) {
			if p == queueingCorner(floor) {
				corner++
			}
			return model(p, c), nil
		}})
	}
	if _, err := Fit(points, floor); err != nil {
		t.Fatal(err)
	}
	if corner != 0 {
		t.Errorf("the queueing corner was replayed %d times for a fit the first descent resolves", corner)
	}
}

// replayAllOf replays every point at p.
func replayAllOf(points []Point) func(Params) ([]Metrics, error) {
	return func(p Params) ([]Metrics, error) {
		out := make([]Metrics, len(points))
		for i := range points {
			m, err := points[i].Replay(p)
			if err != nil {
				return nil, err
			}
			out[i] = m
		}
		return out, nil
	}
}

// When the default model's descent leaves the points unexplained but the queueing corner is
// a worse start, the fit keeps the first descent: it replays the corner once to compare the
// two starts, or not at all when every point has a surrogate (the comparison is the
// surrogates').
func TestFitComparesTheCornerBySurrogates(t *testing.T) {
	// Decode times the fit cannot both reach (its parameters move the two points' TPOT
	// together), prefill that only the default model's neighbourhood explains.
	model := func(p Params, c float64) Metrics {
		decode := p[DecodeScale]*(5+0.2*c) + p[DecodePassMs]
		return Metrics{TTFT: 50 + p[PrefillScale]*(20+c) + p[PrefillPassMs] + p[FrontendMs], TPOT: decode}
	}
	measured := []Metrics{{TTFT: 75, TPOT: 12}, {TTFT: 200, TPOT: 12}}
	floor := Params{PrefillScale: 0.5, PrefillPassMs: -10, DecodeScale: 0.5, DecodePassMs: -1, FrontendMs: -50}
	for _, withSurrogate := range []bool{false, true} {
		corner := 0
		var points []Point
		for i, c := range []float64{4, 128} {
			c := c
			pt := Point{Measured: measured[i], Replay: func(p Params) (Metrics, error) {
				if p == clamp(queueingCorner(floor), floor, Ceiling) {
					corner++
				}
				return model(p, c), nil
			}}
			if withSurrogate {
				pt.Surrogate = func(p Params) Metrics { return model(p, c) }
			}
			points = append(points, pt)
		}
		f, err := Fit(points, floor)
		if err != nil {
			t.Fatal(err)
		}
		if l := lossOf(points, f.Calibrated); l < unresolvedLoss*4 {
			t.Fatalf("surrogate %v: the first descent explains the points (loss %g): the test shows nothing", withSurrogate, l)
		}
		if f.Params[PrefillScale] == Ceiling[PrefillScale] {
			t.Errorf("surrogate %v: the fit ended at the corner's prefill scale %v", withSurrogate, f.Params)
		}
		want := 2 // one replay of each point at the corner
		if withSurrogate {
			want = 0
		}
		if corner != want {
			t.Errorf("surrogate %v: the corner was replayed %d times, want %d", withSurrogate, corner, want)
		}
	}
}
