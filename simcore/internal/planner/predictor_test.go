package planner

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

func predict(kind string, cfg spec.Planner, xs ...float64) float64 {
	p := NewPredictor(kind, cfg)
	for _, x := range xs {
		p.Add(x)
	}
	return p.Predict()
}

func TestKalmanWorkedValues(t *testing.T) {
	cfg := spec.DefaultPlanner() // 1.0 / 0.1 / 10.0 / 5
	got := predict(PredictorKalman, cfg, 1, 2, 3, 4, 5)
	if want := 5.99478225545025; math.Abs(got-want) > 1e-12*want {
		t.Errorf("kalman 1..5 = %.17g, want %.17g", got, want)
	}
	if got := predict(PredictorKalman, cfg, 10, 10, 10, 10, 10); math.Abs(got-10) > 1e-12 {
		t.Errorf("kalman five 10s = %.17g, want 10", got)
	}
	// Fewer than kalman_min_points: the last value.
	if got := predict(PredictorKalman, cfg, 1, 2, 3, 4); got != 4 {
		t.Errorf("kalman 4 points = %v, want last value 4", got)
	}
}

func TestKalmanLog1p(t *testing.T) {
	cfg := spec.DefaultPlanner()
	cfg.LoadPredictorLog1p = true
	if got := predict(PredictorKalman, cfg, 10, 10, 10, 10, 10); math.Abs(got-10) > 1e-12 {
		t.Errorf("kalman log1p five 10s = %.17g, want 10", got)
	}
}

func TestARIMAApproximation(t *testing.T) {
	cfg := spec.DefaultPlanner()
	// δ = 2, −1, 2, −1: φ = ((−1)(2) + (2)(−1) + (−1)(2)) / (4 + 1 + 4) = −2/3;
	// forecast 3 + (−2/3)(−1) = 11/3.
	if got, want := predict(PredictorARIMA, cfg, 1, 3, 2, 4, 3), 3+2.0/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("arima = %.17g, want %.17g", got, want)
	}
	// Leading zeros are skipped: same series.
	if got, want := predict(PredictorARIMA, cfg, 0, 0, 1, 3, 2, 4, 3), 3+2.0/3; math.Abs(got-want) > 1e-12 {
		t.Errorf("arima with leading zeros = %.17g, want %.17g", got, want)
	}
	// δ = 1, 2, 3, 4: φ = 20/14 clamped to 0.99; forecast 11 + 0.99·4 = 14.96.
	if got := predict(PredictorARIMA, cfg, 1, 2, 4, 7, 11); math.Abs(got-14.96) > 1e-12 {
		t.Errorf("arima clamped = %.17g, want 14.96", got)
	}
	if got := predict(PredictorARIMA, cfg, 1, 2, 4, 7); got != 7 {
		t.Errorf("arima 4 points = %v, want last value 7", got)
	}
	if got := predict(PredictorARIMA, cfg, 6, 6, 6, 6, 6, 6); got != 6 {
		t.Errorf("arima all equal = %v, want 6", got)
	}
	// A falling series is clamped at 0: δ = −4 each, φ = 0.99, 1 − 3.96 < 0.
	if got := predict(PredictorARIMA, cfg, 17, 13, 9, 5, 1); got != 0 {
		t.Errorf("arima falling = %v, want 0", got)
	}
}

func TestProphetApproximation(t *testing.T) {
	cfg := spec.DefaultPlanner()
	// k̄ = 2, ȳ = 2.6, Sxx = 10, Sxy = 5: y = 2.6 + 0.5(k − 2); at k = 5: 4.1.
	if got := predict(PredictorProphet, cfg, 1, 3, 2, 4, 3); math.Abs(got-4.1) > 1e-12 {
		t.Errorf("prophet = %.17g, want 4.1", got)
	}
	cfg.ProphetWindowSize = 5 // only the last five points count
	if got := predict(PredictorProphet, cfg, 100, 50, 1, 3, 2, 4, 3); math.Abs(got-4.1) > 1e-12 {
		t.Errorf("prophet window 5 = %.17g, want 4.1", got)
	}
	if got := predict(PredictorProphet, cfg, 9, 7, 5, 3, 1); got != 0 {
		t.Errorf("prophet falling = %v, want clamp 0", got)
	}
	if got := predict(PredictorProphet, cfg, 1, 2, 3, 4); got != 4 {
		t.Errorf("prophet 4 points = %v, want last value 4", got)
	}
}

func TestConstantPredictor(t *testing.T) {
	cfg := spec.DefaultPlanner()
	if got := predict(PredictorConstant, cfg); got != 0 {
		t.Errorf("constant with no data = %v, want 0", got)
	}
	if got := predict(PredictorConstant, cfg, 3, math.NaN()); got != 0 {
		t.Errorf("constant after NaN = %v, want 0 (non-finite counts as 0)", got)
	}
	cfg.LoadPredictorLog1p = true
	if got := predict(PredictorConstant, cfg, 0, 7, 12.5); got != 12.5 {
		t.Errorf("constant log1p = %v, want 12.5", got)
	}
}
