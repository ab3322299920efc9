package calibration

// corrected is the steady-state surrogate as a nonlinear model of every point's mean TTFT
// and TPOT, corrected to the replays at one point of the parameter space, the anchor
// (docs/calibration.md, "The fit"): from the anchor the pass terms move a point's means
// relatively, at · S(θ′)/S(anchor), where θ′ is the anchor with θ's pass terms, and the
// latencies (absoluteParams) add what they add to the surrogate, S(θ) − S(θ′) — the
// conventions of the surrogate's slopes (linearise). At the anchor the model is the replays.
type corrected struct {
	points []Point
	anchor Params
	// at are the replays at the anchor and sAt the surrogates there.
	at, sAt []Metrics
}

// newCorrected is the corrected model anchored at theta, whose replays are at.
func newCorrected(points []Point, theta Params, at []Metrics) *corrected {
	return &corrected{points: points, anchor: theta, at: at, sAt: surrogateAll(points, theta)}
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
	out := make([]Metrics, len(c.at))
	for i := range out {
		var v [2]float64
		for j := range v {
			v[j] = metric(c.at[i], j)*metric(sp[i], j)/metric(c.sAt[i], j) + metric(s[i], j) - metric(sp[i], j)
		}
		out[i] = Metrics{TTFT: v[0], TPOT: v[1]}
	}
	return out
}

// solve is the model's best step from the anchor within [floor, Ceiling]: Gauss–Newton on
// the nonlinear model, each iteration's Jacobian by the finite differences of steps and its
// step the bounded ridge step of solveStep, halved until the model's loss falls. It costs
// no replay.
func (c *corrected) solve(floor Params, active [NumParams]bool) Params {
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
		for h := 0; h < 8; h++ {
			next := clamp(add(theta, delta), floor, Ceiling)
			if next == theta {
				break
			}
			got := c.eval(next)
			if positive(got) {
				if l := lossOf(c.points, got); l < loss {
					theta, here, loss, moved = next, got, l, true
					break
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
	return sub(theta, c.anchor)
}
