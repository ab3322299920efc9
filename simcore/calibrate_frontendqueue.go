package simcore

import (
	"aisimulate/simcore/calibration"
	"math"
)

// Frontend queue (docs/calibration.md, "Frontend queue"). A closed loop whose measured TTFT
// stays flat over the low loads and then climbs in step with the load, while its throughput
// stops growing, has a serial stage in front of the engine: the serving frontend's process
// (HTTP handling, tokenization, scheduling hand-over) takes its time per request one request
// at a time, and once the loop offers more requests than it serves they queue there, before
// the engine has seen them. Neither a slower pass nor a smaller KV cache has that shape: a
// pass term lifts every load, a capacity caps the batch (and so TPOT) at the top. So when
// the fit leaves a queue unexplained (the trigger of the KV-capacity fit, queuedPoint), the
// frontend's serial time is fitted as a third hypothesis, and of all the fits the one of the
// lowest loss is kept.

// frontendRounds bounds the rounds of frontend-time search and fit, as kvCapacityRounds does
// for the capacity: the time that queues the point as measured depends on the pass times the
// fit then changes.
const frontendRounds = 2

// frontendSteps bounds the replays of the queued point in one frontend-time search.
const frontendSteps = 6

// fitWithFrontendQueue tries the frontend-queue hypothesis for the queued point i of a
// deployment whose best fit so far is best at loss: it searches the frontend's serial time
// that queues point i as measured under the default model, fits the other parameters with it
// held (calibration.FitAt), searches again under that fit and fits again (frontendRounds),
// and returns the fit of the lowest loss among best and these, its loss and the replays
// spent.
func fitWithFrontendQueue(ps []*measuredPoint, points []calibration.Point, floor calibration.Params, i int, best *calibration.Fitted, loss float64) (*calibration.Fitted, float64, int, error) {
	p := ps[i]
	m := p.m
	// The first guess is the bottleneck law: a frontend that limits a closed loop of C
	// clients to its throughput 1/S serves each in S = E2E/C, with E2E the measured cycle
	// TTFT + (OSL − 1)·TPOT.
	s1 := (m.TTFT + float64(m.OSL-1)*m.TPOT) / float64(m.Concurrency)
	q, s0, g0 := calibration.Identity, 0.0, best.Uncalibrated[i].TTFT/m.TTFT
	replays := 0
	for round := 0; round < frontendRounds; round++ {
		var n int
		var ok bool
		s1, n, ok = searchFrontend(p, q, s0, g0, s1)
		replays += n
		if !ok {
			break
		}
		held := calibration.Identity
		held[calibration.FrontendServiceMs] = s1
		alt, err := calibration.FitAt(points, floor, held)
		if err != nil {
			return nil, 0, 0, err
		}
		replays += alt.Replays
		if l := calibration.Loss(points, alt.Calibrated); l < loss {
			best, loss = alt, l
		}
		q, s0, g0 = alt.Params, s1, alt.Calibrated[i].TTFT/m.TTFT
		if settled(g0) {
			break
		}
		s1 = s0 * 0.9
		if g0 < 1 {
			s1 = s0 * 1.1
		}
	}
	return best, loss, replays, nil
}

// searchFrontend finds the frontend serial time (ms) at which p's replay under q queues to
// p's measured mean TTFT. The replayed TTFT rises with the time (a longer service queues
// more), slowly while the frontend keeps up and steeply once it saturates, so a secant
// would overshoot; the search keeps a bracket [lo, hi] whose ends replay below and above
// the measured TTFT and steps by regula falsi on ln(replayed / measured) against ln s
// (Illinois variant), from a known lower end (s0, g0 = the ratio there) and a first probe
// s1, at most frontendSteps replays. It returns the probe closest to the measured TTFT, the
// replays it ran and false when a replay fails or no probe queued.
func searchFrontend(p *measuredPoint, q calibration.Params, s0, g0, s1 float64) (float64, int, bool) {
	replays := 0
	hi := calibration.Ceiling[calibration.FrontendServiceMs]
	// The bracket in (ln s, ln ratio): the known point is its lower end when it replays
	// below the measured TTFT (s = 0 taken at s1/100), else its upper end.
	var la, ga, lb, gb float64
	haveA, haveB := false, false
	if x0, r0 := math.Log(max(s0, s1/100)), math.Log(g0); r0 < 0 {
		la, ga, haveA = x0, r0, true
	} else {
		lb, gb, haveB = x0, r0, true
	}
	best, bestErr := 0.0, math.Inf(1)
	x := math.Log(min(s1, hi))
	side := 0
	for step := 0; step < frontendSteps; step++ {
		q[calibration.FrontendServiceMs] = math.Exp(x)
		g, err := ttftMiss(p, q)
		replays++
		if err != nil {
			return 0, replays, false
		}
		if math.Abs(g) < bestErr {
			best, bestErr = math.Exp(x), math.Abs(g)
		}
		if math.Abs(g) < kvCapacitySettled {
			break
		}
		// Illinois: an end kept twice in a row has its value halved, so the next step
		// leaves it instead of creeping towards the root from one side.
		if g < 0 {
			la, ga, haveA = x, g, true
			if side == -1 {
				gb /= 2
			}
			side = -1
		} else {
			lb, gb, haveB = x, g, true
			if side == 1 {
				ga /= 2
			}
			side = 1
		}
		switch {
		case !haveB:
			x = min(x+math.Ln2, math.Log(hi)) // no probe queued enough yet: double
		case !haveA:
			x -= math.Ln2 // every probe queued too much: halve
		default:
			x = la - ga*(lb-la)/(gb-ga)
		}
	}
	return best, replays, best > 0
}

// settled reports whether a replayed/measured TTFT ratio is within kvCapacitySettled of 1
// in log terms, as the capacity search stops.
func settled(ratio float64) bool {
	return math.Abs(math.Log(ratio)) < kvCapacitySettled
}
