package calibration

// corrected is the steady-state surrogate as a nonlinear model of every point's mean TTFT
// and TPOT, corrected to the replays (docs/calibration.md, "Steps from the surrogate"). It
// is anchored at the last confirmed parameters, whose replays it equals: from the anchor
// the pass terms move a point's means relatively, at · S(θ′)/S(anchor), where θ′ is the
// anchor with θ's pass terms, and the latencies (absoluteParams) add what they add to the
// surrogate, S(θ) − S(θ′). On top, a linear term fitted to the other replays of the fit
// (learn: Broyden's rank-one update, as the linear model's secant) carries what the
// surrogate misses between them, so the model passes through the last replays too.
type corrected struct {
	points []Point
	anchor Params
	// at are the replays at the anchor and sAt the surrogates there.
	at, sAt []Metrics
	// slope[k][i][j] is the linear term's slope of point i's metric j in parameter k.
	slope [NumParams][][2]float64
}

// absoluteParams are the latencies whose surrogate change the model takes as it is, not
// relative to the surrogate's level: a latency adds milliseconds whatever the level of the
// queueing around it, and in a closed loop (the surrogate's cycle includes it) a saturated
// rank's queue gives back what the latency adds. The pass terms scale the surrogate's
// relative change to the replay's level instead.
var absoluteParams = [NumParams]bool{FrontendMs: true, HandoffMs: true}

// newCorrected is the corrected model anchored at theta, whose replays are at, without a
// linear term.
func newCorrected(points []Point, theta Params, at []Metrics) *corrected {
	c := &corrected{points: points}
	for k := range c.slope {
		c.slope[k] = make([][2]float64, len(points))
	}
	c.reanchor(theta, at)
	return c
}

// reanchor moves the anchor to theta, whose replays are at; the linear term stays.
func (c *corrected) reanchor(theta Params, at []Metrics) {
	c.anchor, c.at, c.sAt = theta, at, surrogateAll(c.points, theta)
}

// eval is the model's means of every point at theta.
func (c *corrected) eval(theta Params) []Metrics {
	pass := c.anchor
	for k := range pass {
		if !absoluteParams[k] {
			pass[k] = theta[k]
		}
	}
	sp := surrogateAll(c.points, pass)
	s := sp
	if pass != theta {
		s = surrogateAll(c.points, theta)
	}
	d := sub(theta, c.anchor)
	out := make([]Metrics, len(c.at))
	for i := range out {
		var v [2]float64
		for j := range v {
			v[j] = metric(c.at[i], j)*metric(sp[i], j)/metric(c.sAt[i], j) + metric(s[i], j) - metric(sp[i], j)
			for k := range d {
				v[j] += float64(c.slope[k][i][j] * d[k])
			}
		}
		out[i] = Metrics{TTFT: v[0], TPOT: v[1]}
	}
	return out
}

// learn corrects the linear term by the replays got at theta (not the anchor): the
// smallest change, in parameters scaled by their finite-difference steps, after which the
// model gives got at theta.
func (c *corrected) learn(theta Params, got []Metrics) {
	d := sub(theta, c.anchor)
	var norm float64
	for k := range d {
		norm += float64(d[k] / steps[k] * d[k] / steps[k])
	}
	if norm == 0 {
		return
	}
	pred := c.eval(theta)
	for i := range got {
		for j := 0; j < 2; j++ {
			miss := metric(got[i], j) - metric(pred[i], j)
			for k := range d {
				c.slope[k][i][j] += float64(miss * d[k] / (steps[k] * steps[k]) / norm)
			}
		}
	}
}

// solve is the model's best parameters within [floor, Ceiling], from the anchor:
// Gauss–Newton on the nonlinear model, each iteration's Jacobian by the finite differences
// of steps and its step the bounded ridge step of solveStep, halved until the model's loss
// falls. It returns them and the model's loss there, and costs no replay.
func (c *corrected) solve(floor Params, active [NumParams]bool) (Params, float64) {
	theta, here := c.anchor, c.at
	loss := lossOf(c.points, here)
	for it := 0; it < modelIterations; it++ {
		var jac [NumParams][]Metrics
		for k := range active {
			if active[k] {
				d := theta
				d[k] += steps[k]
				jac[k] = c.eval(d)
			}
		}
		delta := solveStep(c.points, here, jac, theta, floor, active)
		moved := false
		for h := 0; h < 8 && !moved; h++ {
			next := clamp(add(theta, delta), floor, Ceiling)
			if next == theta {
				break
			}
			if got := c.eval(next); positive(got) {
				if l := lossOf(c.points, got); l < loss {
					theta, here, loss, moved = next, got, l, true
				}
			}
			for k := range delta {
				delta[k] /= 2
			}
		}
		if !moved {
			break
		}
	}
	return theta, loss
}

// descendCorrected is descend on the corrected surrogate, for points that all have a
// surrogate: each step is the model's best parameters, replayed to confirm them. A step is
// replayed only when the model expects it to gain at least minGain of the loss (less is
// below what a replay stopped early resolves). A confirmed step moves the anchor there and
// teaches the linear term the replays it left; a step the replays do not confirm teaches
// the linear term its own replays and the model is solved again (not after a confirmed step
// that gained less than settledGain: the fit has then reached what the replays resolve).
// Confirmed and unconfirmed steps together are at most maxIterations; the other stops are
// descend's.
func descendCorrected(points []Point, replayAll func(Params) ([]Metrics, error), theta Params, at []Metrics, floor Params, active [NumParams]bool) (Params, []Metrics, float64, error) {
	loss := lossOf(points, at)
	c := newCorrected(points, theta, at)
	lastGain := 1.0  // the relative gain of the last confirmed step
	settled := false // the last confirmed step gained less than minGain
	for it := 0; !settled && it < maxIterations && loss > resolvedLoss*float64(2*len(points)); it++ {
		next, expect := c.solve(floor, active)
		if next == theta || loss-expect < minGain*loss {
			break
		}
		got, err := replayAll(next)
		if err != nil {
			return theta, nil, 0, err
		}
		nextLoss := lossOf(points, got)
		if nextLoss >= loss {
			if lastGain < settledGain {
				break
			}
			c.learn(next, got)
			continue
		}
		c.reanchor(next, got)
		c.learn(theta, at)
		lastGain, settled = confirmedGain(loss, nextLoss)
		theta, at, loss = next, got, nextLoss
	}
	return theta, at, loss, nil
}
