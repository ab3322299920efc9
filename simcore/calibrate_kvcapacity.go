package simcore

import (
	"math"

	"aisimulate/simcore/calibration"
)

// KV capacity (docs/calibration.md, "KV capacity"). A measured closed loop whose mean TTFT
// is far above anything its pass times explain has queued for admission: the measured
// deployment held fewer requests in flight than its configuration gives the replay (another
// memory fraction, activation or CUDA-graph reserve, KV data type, a cap on running
// requests). Pass terms stretched to explain such a wait (prefill ten times slower) ruin
// every prediction at lower loads, where nothing queued. So when the fit does not explain
// its measurements and one point's measured TTFT is at least twice the default model's, the
// KV capacity is fitted too: held at the value that makes that point queue as measured
// while the other parameters are fitted around it, and the fit of the lowest loss is kept.

// kvQueueSignal is the factor by which a point's measured mean TTFT must exceed the default
// model's replay before a KV-capacity fit is tried: pass terms explain smaller gaps.
const kvQueueSignal = 2

// kvTryLoss is the loss per measured mean above which a fit is not explaining its
// measurements (an RMS log residual above 10 %) and a KV-capacity fit is worth its replays;
// a fit within it is kept as it is.
const kvTryLoss = 0.01

// kvCapacityRounds bounds the rounds of capacity search and fit: the capacity that queues the
// point as measured depends on the pass times the fit then changes (a slower decode serves
// the queue more slowly), so a second round searches again under the first round's fit.
const kvCapacityRounds = 2

// kvCapacitySteps bounds the replays of the queueing point in one capacity search, and
// kvCapacitySettled is the log error of its TTFT at which the search stops.
const (
	kvCapacitySteps   = 4
	kvCapacitySettled = 0.03
)

// fitWithCapacity fits the deployment's parameters at its configured KV capacity, then, when
// that fit does not explain the measurements and one point shows a queue the default model
// leaves out, with the decode batch cap that queues that point as measured (fitDecodeCap,
// disaggregated TensorRT-LLM only; kept at once when it explains the measurements), at the
// KV capacity that does (kvCapacityRounds rounds) and with a frontend queue
// (fitWithFrontendQueue), and keeps the fit of the lowest loss.
func fitWithCapacity(ps []*measuredPoint, points []calibration.Point, floor calibration.Params) (*calibration.Fitted, error) {
	fit, err := calibration.Fit(points, floor)
	if err != nil {
		return nil, err
	}
	loss := calibration.Loss(points, fit.Calibrated)
	if loss <= kvTryLoss*float64(2*len(points)) {
		return fit, nil
	}
	i := queuedPoint(ps, fit)
	if i < 0 {
		return fit, nil
	}
	best, replays := fit, fit.Replays
	capped, capReplays, err := fitDecodeCap(ps, points, floor, i, fit)
	if err != nil {
		return nil, err
	}
	replays += capReplays
	if capped != nil {
		if l := calibration.Loss(points, capped.Calibrated); l < loss {
			best, loss = capped, l
		}
		if loss <= kvTryLoss*float64(2*len(points)) {
			// The recipe's own batch cap explains the measurements: kept as it is, as the
			// first fit would be, before the KV capacity and the frontend queue (a serial
			// time fits any two loads exactly, so a lower loss does not make it likelier).
			best.Replays = replays
			return best, nil
		}
	}
	m := ps[i].m
	// The first search starts from the default model at the configured capacity and a
	// first guess by Little's law; a later one from the last fit, a step of 10 % away.
	q, x0, g0 := calibration.Identity, 0.0, math.Log(fit.Uncalibrated[i].TTFT/m.TTFT)
	x1, ok := littleCapacity(ps[i], fit.Uncalibrated[i])
	for round := 0; round < kvCapacityRounds && ok; round++ {
		if x1 < math.Log(floor[calibration.KVCapacityScale]) {
			break // below the physical bound: the capacity is not what the measured wait is
		}
		var n int
		x1, n, ok = searchCapacity(ps[i], q, x0, g0, x1, math.Log(floor[calibration.KVCapacityScale]))
		replays += n
		if !ok {
			break
		}
		held := calibration.Identity
		held[calibration.KVCapacityScale] = math.Exp(x1)
		alt, err := calibration.FitAt(points, floor, held)
		if err != nil {
			return nil, err
		}
		replays += alt.Replays
		if l := calibration.Loss(points, alt.Calibrated); l < loss {
			best, loss = alt, l
		}
		q, x0, g0 = alt.Params, x1, math.Log(alt.Calibrated[i].TTFT/m.TTFT)
		if math.Abs(g0) < kvCapacitySettled {
			break
		}
		x1 = x0 + 0.1
		if g0 < 0 {
			x1 = x0 - 0.1
		}
	}
	best, _, n, err := fitWithFrontendQueue(ps, points, floor, i, best, loss)
	if err != nil {
		return nil, err
	}
	best.Replays = replays + n
	return best, nil
}

// queuedPoint is the closed-loop point whose measured mean TTFT exceeds the default model's
// replay by the largest factor, at least kvQueueSignal (-1: none).
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

// littleCapacity is the first guess of ln(scale) for p by Little's law, the rule of
// checkHoldsLoad read backwards: a closed loop of C clients whose requests wait W for
// admission and then take S to serve holds C / (1 + W/S) of them, with W the measured TTFT
// less the default model's (which does not queue) and S the decode, (OSL − 1)·TPOT
// measured; the scale is that over what the configured capacity holds. ok is false when
// the configured capacity would hold them already (nothing to lower).
func littleCapacity(p *measuredPoint, unqueued calibration.Metrics) (float64, bool) {
	m := p.m
	capHeld, err := heldInFlight(p)
	if err != nil || capHeld <= 0 {
		return 0, false
	}
	held := float64(m.Concurrency) / (1 + (m.TTFT-unqueued.TTFT)/(float64(m.OSL-1)*m.TPOT))
	if held >= capHeld {
		return 0, false
	}
	return math.Log(held / capHeld), true
}

// searchCapacity finds the ln(scale) at which p's replay under q (its capacity replaced)
// queues to p's measured mean TTFT: a secant on g(x) = ln(replayed / measured TTFT) from a
// known (x0, g0) and a first probe x1, at most kvCapacitySteps replays, within [lo, 0]. It
// returns the last probe, the replays it ran and false when a replay fails.
func searchCapacity(p *measuredPoint, q calibration.Params, x0, g0, x1, lo float64) (float64, int, bool) {
	replays := 0
	for step := 0; step < kvCapacitySteps; step++ {
		q[calibration.KVCapacityScale] = math.Exp(x1)
		g1, err := ttftMiss(p, q)
		replays++
		if err != nil {
			return 0, replays, false
		}
		if math.Abs(g1) < kvCapacitySettled || g1 == g0 {
			break
		}
		x := x1 - g1*(x1-x0)/(g1-g0)
		x0, g0 = x1, g1
		x1 = min(max(x, lo), 0)
	}
	return x1, replays, true
}

// ttftMiss replays p under q and returns ln(replayed / measured mean TTFT), the quantity the
// capacity and frontend searches drive to zero.
func ttftMiss(p *measuredPoint, q calibration.Params) (float64, error) {
	got, err := replayMeasurement(p, q)
	if err != nil {
		return 0, err
	}
	return math.Log(got.TTFT / p.m.TTFT), nil
}
