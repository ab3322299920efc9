package simcore

import (
	"io/fs"
	"math"

	"aisimulate/simcore/internal/planner"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// predictorWindow is one throughput interval of a trace: its request count and mean lengths.
type predictorWindow struct{ requests, isl, osl float64 }

// choosePredictors is the planner's load-predictor pre-sweep (docs/recommend.md, "Planner
// search"): for every throughput interval a kept scaling policy uses, the candidate
// predictor with the lowest mean one-step-ahead loss over the trace's windows of that
// interval wins and is written into every candidate with that interval. Without a trace
// (or for an agentic graph) nothing is swept and constant_last is used.
func choosePredictors(rec *spec.Recommendation, files fs.FS) error {
	ps := rec.Planner
	if ps == nil || len(ps.Intervals) == 0 || len(ps.Predictors) == 0 {
		return nil
	}
	cfg, err := rec.SampleConfig()
	if err != nil || cfg.Traffic.Source.Type != spec.SourceTrace {
		return nil // the candidates report configuration errors themselves
	}
	if files == nil {
		files = emptyFS{}
	}
	// The trace's own timestamps (speedup 1) place each request in its window.
	w, err := traffic.LoadTrace(cfg.Traffic.Source, spec.Load{Type: spec.LoadTraceTimestamps, Speedup: 1}, files)
	if err != nil {
		return configError(err, "")
	}
	if w.Graph != nil {
		return nil
	}
	type arrival struct {
		ms       float64
		isl, osl int
	}
	var reqs []arrival
	for {
		s, ok := w.Next()
		if !ok {
			break
		}
		t := s.ArrivalMs
		for i, turn := range s.Turns {
			if i > 0 {
				t += turn.DelayMs // think time only: a later turn's release also waits for its predecessor
			}
			reqs = append(reqs, arrival{t, turn.InputLength, turn.OutputLength})
		}
	}
	for _, iv := range ps.Intervals {
		width := 1000 * float64(iv)
		var wins []predictorWindow
		for _, r := range reqs {
			k := int(r.ms / width)
			for len(wins) <= k {
				wins = append(wins, predictorWindow{})
			}
			wins[k].requests++
			wins[k].isl += float64(r.isl)
			wins[k].osl += float64(r.osl)
		}
		for i := range wins {
			if n := wins[i].requests; n > 0 {
				wins[i].isl /= n
				wins[i].osl /= n
			}
		}
		if best := bestPredictor(ps.Predictors, wins); best >= 0 {
			ps.Winners[iv] = best
		}
	}
	return nil
}

// bestPredictor is the index of the entry with the lowest mean loss (the first on ties), or
// −1 when no entry has a finite loss. Every entry skips the same warm-up: the largest number
// of points any candidate needs before it forecasts.
func bestPredictor(entries []spec.PlannerEntry, wins []predictorWindow) int {
	warmup := 0
	for _, e := range entries {
		warmup = max(warmup, newWindowPredictor(e).MinPoints())
	}
	best, bestLoss := -1, math.Inf(1)
	for i, e := range entries {
		n, in, out := newWindowPredictor(e), newWindowPredictor(e), newWindowPredictor(e)
		sum, count := 0.0, 0
		for k, w := range wins {
			if k >= warmup {
				sum += windowLoss(n.Predict(), in.Predict(), out.Predict(), w)
				count++
			}
			n.Add(w.requests)
			in.Add(w.isl)
			out.Add(w.osl)
		}
		if count > 0 && sum/float64(count) < bestLoss {
			best, bestLoss = i, sum/float64(count)
		}
	}
	return best
}

// windowLoss is the weighted one-step-ahead loss of a forecast (n̂, î, ô) against a window:
// 0.4·e(n̂·î, n·isl) + 0.4·e(n̂·ô, n·osl) + 0.1·e(î, isl) + 0.1·e(ô, osl), with
// e(a, b) = |log1p(max(a, 0)) − log1p(max(b, 0))| (docs/recommend.md, "Planner search").
func windowLoss(nHat, iHat, oHat float64, w predictorWindow) float64 {
	e := func(a, b float64) float64 { return math.Abs(xmath.Log1p(max(a, 0)) - xmath.Log1p(max(b, 0))) }
	return 0.4*e(nHat*iHat, w.requests*w.isl) + 0.4*e(nHat*oHat, w.requests*w.osl) + 0.1*e(iHat, w.isl) + 0.1*e(oHat, w.osl)
}

// newWindowPredictor builds the planner's predictor of one load-predictor entry.
func newWindowPredictor(e spec.PlannerEntry) *planner.Predictor {
	cfg := spec.DefaultPlanner()
	f := spec.DomainValueFloat
	kind, _ := e.Values[0].(string)
	cfg.LoadPredictorLog1p = e.Values[1] == true
	cfg.ProphetWindowSize = int(f(e.Values[2]))
	cfg.KalmanQLevel, cfg.KalmanQTrend, cfg.KalmanR = f(e.Values[3]), f(e.Values[4]), f(e.Values[5])
	cfg.KalmanMinPoints = int(f(e.Values[6]))
	return planner.NewPredictor(kind, cfg)
}
