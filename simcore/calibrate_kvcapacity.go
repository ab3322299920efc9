package simcore

import (
	"math"

	"aisimulate/simcore/calibration"
)

// KV capacity (docs/calibration.md, "KV capacity"). A measured closed loop whose mean TTFT
// is far above anything its pass times explain has queued for KV admission: the measured
// deployment held fewer requests in flight than its configuration gives the replay (another
// memory fraction, activation or CUDA-graph reserve, KV data type). Pass terms stretched to
// explain such a wait (prefill ten times slower) ruin every prediction at lower loads, where
// nothing queued. So when the fit does not explain its measurements and one point's measured
// TTFT is at least twice the default model's, a second fit holds the KV capacity at the value
// that makes that point queue as measured, and the fit with the lower loss is kept.

// kvQueueSignal is the factor by which a point's measured mean TTFT must exceed the fitted
// one before a KV-capacity fit is tried: pass terms explain smaller gaps, a factor of two
// at the fit's optimum is a wait they cannot.
const kvQueueSignal = 2

// kvTryLoss is the loss per measured mean above which a fit is not explaining its
// measurements (an RMS log residual above 10 %) and a KV-capacity fit is worth its replays;
// a fit within it is kept as it is.
const kvTryLoss = 0.01

// kvCapacitySteps bounds the replays of the queueing point that refine the capacity.
const kvCapacitySteps = 4

// fitWithCapacity fits the deployment's parameters at its configured KV capacity, then, when
// one point's measured TTFT shows a queue the fit leaves out, again at the capacity that
// queues that point as measured, and keeps the fit of the lower loss.
func fitWithCapacity(ps []*measuredPoint, points []calibration.Point, floor calibration.Params) (*calibration.Fitted, error) {
	fit, err := calibration.Fit(points, floor)
	if err != nil {
		return nil, err
	}
	if calibration.Loss(points, fit.Calibrated) <= kvTryLoss*float64(2*len(points)) {
		return fit, nil
	}
	i := queuedPoint(ps, fit)
	if i < 0 {
		return fit, nil
	}
	s, replays, ok := queueingCapacity(ps[i], fit.Uncalibrated[i], floor[calibration.KVCapacityScale])
	if !ok {
		fit.Replays += replays
		return fit, nil
	}
	alt, err := calibration.FitAt(points, floor, s)
	if err != nil {
		return nil, err
	}
	alt.Replays += fit.Replays + replays
	if calibration.Loss(points, alt.Calibrated) < calibration.Loss(points, fit.Calibrated) {
		return alt, nil
	}
	fit.Replays = alt.Replays
	return fit, nil
}

// queuedPoint is the closed-loop point whose measured mean TTFT exceeds the default model's
// replay by the largest factor, at least kvQueueSignal, and that the fit leaves at least
// that far below too (-1: none).
func queuedPoint(ps []*measuredPoint, fit *calibration.Fitted) int {
	best, at := float64(kvQueueSignal), -1
	for i, p := range ps {
		if p.m.Concurrency == 0 || p.m.OSL < 2 {
			continue
		}
		if r := p.m.TTFT / fit.Uncalibrated[i].TTFT; r >= best {
			best, at = r, i
		}
	}
	return at
}

// queueingCapacity is the KV-capacity scale at which p's replay under q queues to p's
// measured mean TTFT, and the replays it took. It starts from Little's law, the rule of
// checkHoldsLoad read backwards: a closed loop of C clients whose requests wait W for
// admission and then take S to serve holds held = C / (1 + W/S) of them, with W the
// measured TTFT less the fitted one and S the decode, (OSL − 1)·TPOT measured; the scale
// is held over what the configured capacity holds. A secant on ln(scale) against
// ln(replayed / measured TTFT) then refines it, at most kvCapacitySteps replays, within
// [minScale, 1]. ok is false when even the configuration's capacity would hold the held
// requests (nothing to lower) or a replay fails.
func queueingCapacity(p *measuredPoint, fitted calibration.Metrics, minScale float64) (scale float64, replays int, ok bool) {
	m := p.m
	capHeld, err := heldInFlight(p)
	if err != nil || capHeld <= 0 {
		return 0, 0, false
	}
	serve := float64(m.OSL-1) * m.TPOT
	q := calibration.Identity
	wait := m.TTFT - fitted.TTFT
	held := float64(m.Concurrency) / (1 + wait/serve)
	s := held / capHeld
	if s >= 1 || s < minScale {
		// Nothing to lower, or a capacity below the physical bound: the capacity is not
		// what the measured wait is.
		return 0, replays, false
	}
	// g(x) = ln(replayed TTFT / measured) at ln-scale x; g(0) < 0 (the fit's TTFT).
	x0, g0 := 0.0, math.Log(fitted.TTFT/m.TTFT)
	x1 := math.Log(s)
	for step := 0; step < kvCapacitySteps; step++ {
		q[calibration.KVCapacityScale] = math.Exp(x1)
		got, err := replayMeasurement(p, q)
		replays++
		if err != nil {
			return 0, replays, false
		}
		g1 := math.Log(got.TTFT / m.TTFT)
		if math.Abs(g1) < 0.05 || g1 == g0 {
			break
		}
		x := x1 - g1*(x1-x0)/(g1-g0)
		x0, g0 = x1, g1
		x1 = min(max(x, math.Log(minScale)), 0)
	}
	return math.Exp(x1), replays, true
}
