package main

import (
	"math"
	"testing"

	"aisimulate/tools/calibrate/rows"
)

// The IRLS L1 fit recovers exact coefficients from consistent residuals, ignores a gross
// outlier beyond the cap, and respects the bounds.
func TestL1RecoversCoefficients(t *testing.T) {
	want := coefVec{0.8, 20, 1.1, 2}
	var ts []term
	for i := 1; i <= 40; i++ {
		f := float64(i)
		x := coefVec{f * 3, 1, f * f / 40, math.Sqrt(f)}
		var y float64
		for k := range x {
			y += x[k] * want[k]
		}
		// Residual form of an APE: x/meas · g − 1 with meas = y.
		for k := range x {
			x[k] /= y
		}
		ts = append(ts, term{x, 1, 1})
	}
	// A row measured at a fifth of the model's value (APE 4 > cap) must not pull the fit.
	bad := ts[7]
	for k := range bad.x {
		bad.x[k] *= 5
	}
	ts = append(ts, bad)
	free := [nCoef]bool{true, true, true, true}
	got := l1(ts, coefVec{1, 1, 1, 1}, coefLo, coefHi, free)
	for k := 0; k < 4; k++ {
		if math.Abs(got[k]-want[k]) > 1e-3*(1+want[k]) {
			t.Fatalf("coefficient %d = %.5f, want %.5f (all %v)", k, got[k], want[k], got)
		}
	}
	// A bound binds: the prefill factor cannot go below coefLo.
	lo := coefLo
	lo[0] = 0.9
	got = l1(ts[:40], coefVec{1, 1, 1, 1}, lo, coefHi, free)
	if got[0] != 0.9 {
		t.Fatalf("bounded coefficient %.4f, want 0.9", got[0])
	}
}

// Every backend's rows train the backend and family fits except TensorRT-LLM's disaggregated
// rows, whose TPOT reflects MTP the CSV does not record (fit.go trains).
func TestTrains(t *testing.T) {
	for _, tc := range []struct {
		backend, mode string
		want          bool
	}{
		{"trtllm", "agg", true}, {"trtllm", "disagg", false},
		{"sglang", "disagg", true}, {"vllm", "disagg", true}, {"vllm", "agg", true},
	} {
		if got := trains(&rows.Row{Backend: tc.backend, Mode: tc.mode}); got != tc.want {
			t.Errorf("%s %s: trains %v, want %v", tc.backend, tc.mode, got, tc.want)
		}
	}
}
