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
