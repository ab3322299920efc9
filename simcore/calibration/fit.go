package calibration

import (
	"errors"
	"math"

	"aisimulate/simcore/internal/xmath"
)

// Metrics are the means a measurement records or a replay predicts.
type Metrics struct {
	TTFT, TPOT, E2E, OutputThroughput float64
}

// Point is one measurement the fit replays: its measured means, whether its deployment is
// disaggregated (only then is the hand-off term fitted), the replay of its workload under
// given parameters and, where one exists, the steady-state surrogate of that replay
// (nil: none), on which the fit takes its steps without replaying (corrected).
type Point struct {
	Measured      Metrics
	Disaggregated bool
	Replay        func(Params) (Metrics, error)
	Surrogate     func(Params) Metrics
}

// Fitted is the outcome of a fit.
type Fitted struct {
	// Params are the fitted parameters.
	Params Params
	// Uncalibrated and Calibrated are every point's replay under the default model and
	// under Params, in the points' order.
	Uncalibrated, Calibrated []Metrics
	// AtBound names the fitted parameters that ended on their floor or ceiling.
	AtBound []string
	// Replays counts the replays the fit ran.
	Replays int
}

// Steps of the finite differences that linearise a replay in each parameter: large enough
// to move a scheduler's pass times well above rounding, small enough that the replay stays
// near-linear (pass times are linear in every parameter; only the schedule bends). The held
// parameters (KV capacity, frontend service time, decode batch cap) are never differenced, but every step is
// a divisor where a step is scaled by them (the secant updates), so none may be 0.
var steps = Params{PrefillScale: 0.1, PrefillPassMs: 2, DecodeScale: 0.1, DecodePassMs: 1, FrontendMs: 20, HandoffMs: 20, KVCapacityScale: 1, FrontendServiceMs: 1, DecodeMaxSequences: 1}

// ridge is each parameter's typical size: the fit adds (0.01 · Δ/ridge)² per parameter to
// the loss, so a parameter the measurements do not determine (the frontend latency against
// the prefill overhead, from one load) stays at the default instead of drifting along the
// flat direction.
var ridge = Params{PrefillScale: 1, PrefillPassMs: 10, DecodeScale: 1, DecodePassMs: 10, FrontendMs: 100, HandoffMs: 100, KVCapacityScale: 1, FrontendServiceMs: 10, DecodeMaxSequences: 1}

// maxIterations bounds the confirmed steps and maxHalvings the backtracking of one; the fit
// stops early once a step lowers the loss by less than minGain of it, or when a step is not
// confirmed after one that gained less than settledGain of it (at once, without halving it:
// the halves would gain what the replays hardly resolve, three replays of every point for
// 2 % of the loss on the TensorRT-LLM rows of docs/calibration.md). minGain is 5 %: a step gaining
// less moves the residuals by a fraction of a percent, below what a replay stopped early
// resolves (its means are within about 3 % of the replay run to the end), and each further
// step costs a replay of every point. A step whose replays give more than overshoot times
// the loss is not halved: the linear model is wrong that far out (a quarter of such a step
// was not confirmed either on the measured rows), so the fit linearises again at once.
// modelIterations bounds
// the Gauss–Newton iterations on the linear model between two replays (they cost no replay).
const (
	maxIterations   = 6
	maxHalvings     = 2
	minGain         = 0.05
	settledGain     = 0.25
	overshoot       = 4
	modelIterations = 30
)

// resolvedLoss is the loss per measured mean below which the fit stops: every residual is
// then about 0.1 %, the resolution the fit report prints residuals at, so a further step
// would change no figure it shows.
const resolvedLoss = 1e-6

// unresolvedLoss is the loss per measured mean above which a descent has not explained the
// points: a residual of 3 % on every mean, the agreement of a replay stopped early with one
// run to the end (docs/calibration.md, "Stopping a replay early"), so what is left is the
// model's, not the replays' noise. Only then may the fit descend a second time, from the
// queueing corner (queueingCorner).
const unresolvedLoss = 0.03 * 0.03

// Fit finds the parameters, within [floor, Ceiling], that minimise the squared log errors of
// mean TTFT and mean TPOT over the points (docs/calibration.md, "The fit"). A replay's pass
// times are linear in every parameter, so its means are close to linear in them too (only
// the schedule bends): the fit linearises every replay once by finite differences, solves
// the bounded ridge least squares on that linear model (Gauss–Newton iterations that cost
// no replay), replays the solution to confirm it, corrects the model by the secant of each
// confirmed step (Broyden) and solves again. A step the replays do not confirm is halved; if
// halving fails too, the model is linearised again at the current point once. When every
// point has a surrogate, the steps are taken on the surrogate corrected to the replays
// instead, without finite differences (descendCorrected). A descent from the default model
// that leaves the points unexplained (unresolvedLoss) is followed by a second one from the
// queueing corner (queueingCorner) when the corner starts with a lower loss than the
// default model, and the lower end is kept. Nothing is random.
func Fit(points []Point, floor Params) (*Fitted, error) { return FitAt(points, floor, Identity) }

// FitAt is Fit with the parameters that are not Gauss–Newton terms, the KV-capacity scale,
// the frontend service time and the decode batch cap, held at held's: every replay but the
// default model's runs at them, and the other parameters are fitted around them
// (docs/calibration.md, "KV capacity", "Frontend queue" and "Decode batch cap").
func FitAt(points []Point, floor Params, held Params) (*Fitted, error) {
	if len(points) == 0 {
		return nil, errors.New("no measurements to fit")
	}
	f := &Fitted{}
	replayAll := func(p Params) ([]Metrics, error) {
		out := make([]Metrics, len(points))
		for i := range points {
			m, err := points[i].Replay(p)
			if err != nil {
				return nil, err
			}
			f.Replays++
			out[i] = m
		}
		return out, nil
	}
	var err error
	if f.Uncalibrated, err = replayAll(Identity); err != nil {
		return nil, err
	}
	active := [NumParams]bool{true, true, true, true, true, false, false}
	for _, p := range points {
		active[HandoffMs] = active[HandoffMs] || p.Disaggregated
	}
	start := clamp(Identity, floor, Ceiling).holding(held)
	startAt := f.Uncalibrated
	if start != Identity {
		if startAt, err = replayAll(start); err != nil {
			return nil, err
		}
	}
	theta, at, loss, err := descend(points, replayAll, start, startAt, floor, active)
	if err != nil {
		return nil, err
	}
	if loss > unresolvedLoss*float64(2*len(points)) {
		// The descent from the default model left the points unexplained: if the queueing
		// corner is a better start than the default model was, descend from there too and
		// keep the better end (docs/calibration.md, "Two starting points").
		corner := clamp(queueingCorner(floor), floor, Ceiling).holding(held)
		better, cornerAt, err := betterStart(points, replayAll, corner, start, startAt)
		if err != nil {
			return nil, err
		}
		if better {
			t2, at2, loss2, err := descend(points, replayAll, corner, cornerAt, floor, active)
			if err != nil {
				return nil, err
			}
			if loss2 < loss {
				theta, at = t2, at2
			}
		}
	}
	f.Params, f.Calibrated = theta, at
	if theta == Identity {
		f.Calibrated = f.Uncalibrated
	}
	for k := range theta {
		if active[k] && (theta[k] <= floor[k] || theta[k] >= Ceiling[k]) {
			f.AtBound = append(f.AtBound, ParamNames[k])
		}
	}
	return f, nil
}

// model is the linear model of every point's mean TTFT and TPOT in the parameters: slope[k][i]
// is d(metric)/d(parameter k) of point i (mean TTFT in [0], TPOT in [1]).
type model struct {
	slope [NumParams][][2]float64
}

// linearise measures the model's slopes at theta by one replay per active parameter, a
// finite difference of steps[k] from at (the replays at theta).
func linearise(replayAll func(Params) ([]Metrics, error), theta Params, at []Metrics, active [NumParams]bool) (*model, error) {
	m := &model{}
	for k := range active {
		if !active[k] {
			continue
		}
		p := theta
		p[k] += steps[k]
		got, err := replayAll(p)
		if err != nil {
			return nil, err
		}
		m.slope[k] = make([][2]float64, len(at))
		for i := range at {
			for j := 0; j < 2; j++ {
				m.slope[k][i][j] = (metric(got[i], j) - metric(at[i], j)) / steps[k]
			}
		}
	}
	return m, nil
}

// allSurrogates reports whether every point has a surrogate.
func allSurrogates(points []Point) bool {
	for _, p := range points {
		if p.Surrogate == nil {
			return false
		}
	}
	return true
}

// surrogateAll is every point's surrogate at p.
func surrogateAll(points []Point, p Params) []Metrics {
	out := make([]Metrics, len(points))
	for i := range points {
		out[i] = points[i].Surrogate(p)
	}
	return out
}

// eval is the model's metrics of every point at theta + d, from at (the metrics at theta).
func (m *model) eval(at []Metrics, d Params) []Metrics {
	out := make([]Metrics, len(at))
	for i := range at {
		var v [2]float64
		for j := range v {
			v[j] = metric(at[i], j)
			for k := range d {
				if m.slope[k] != nil {
					v[j] += float64(m.slope[k][i][j] * d[k])
				}
			}
		}
		out[i] = Metrics{TTFT: v[0], TPOT: v[1]}
	}
	return out
}

// solve is the model's best step from theta (at the metrics there): Gauss–Newton on the
// linear model, each iteration the bounded ridge step of solveStep; an iteration whose model
// metrics would not be positive is halved. It costs no replay.
func (m *model) solve(points []Point, at []Metrics, theta, floor Params, active [NumParams]bool) Params {
	var total Params
	for it := 0; it < modelIterations; it++ {
		here := m.eval(at, total)
		var jac [NumParams][]Metrics
		for k := range active {
			if m.slope[k] == nil {
				continue
			}
			d := total
			d[k] += steps[k]
			jac[k] = m.eval(at, d)
		}
		delta := solveStep(points, here, jac, add(theta, total), floor, active)
		moved := false
		for h := 0; h < 8; h++ {
			next := sub(clamp(add(theta, add(total, delta)), floor, Ceiling), theta)
			if positive(m.eval(at, next)) {
				moved = next != total
				total = next
				break
			}
			for k := range delta {
				delta[k] /= 2
			}
		}
		if !moved {
			break
		}
	}
	return total
}

// secant corrects the model by a confirmed step d from metrics at to got (Broyden's rank-one
// update in parameters scaled by their finite-difference steps), so the next solve starts
// from what the replays showed.
func (m *model) secant(d Params, at, got []Metrics) {
	var norm float64
	for k := range d {
		if m.slope[k] != nil {
			norm += float64(d[k] / steps[k] * d[k] / steps[k])
		}
	}
	if norm == 0 {
		return
	}
	pred := m.eval(at, d)
	for i := range at {
		for j := 0; j < 2; j++ {
			miss := metric(got[i], j) - metric(pred[i], j)
			for k := range d {
				if m.slope[k] != nil {
					// d/steps² makes the update the minimal change in step-scaled units.
					m.slope[k][i][j] += float64(miss * d[k] / (steps[k] * steps[k]) / norm)
				}
			}
		}
	}
}

// positive reports whether every model mean TTFT and TPOT is above zero (their logs exist).
func positive(ms []Metrics) bool {
	for _, x := range ms {
		if !(x.TTFT > 0 && x.TPOT > 0) {
			return false
		}
	}
	return true
}

// add and sub are elementwise on parameters.
func add(p, q Params) Params {
	for i := range p {
		p[i] += q[i]
	}
	return p
}

func sub(p, q Params) Params {
	for i := range p {
		p[i] -= q[i]
	}
	return p
}

// Loss is a fit's loss on the points (the sum of squared log errors of mean TTFT and TPOT
// of got, the calibrated replays).
func Loss(points []Point, got []Metrics) float64 { return lossOf(points, got) }

// lossOf is the fit's loss: the sum of squared log errors of mean TTFT and TPOT.
func lossOf(points []Point, got []Metrics) float64 {
	var s float64
	for i, p := range points {
		a := xmath.Log(got[i].TTFT / p.Measured.TTFT)
		b := xmath.Log(got[i].TPOT / p.Measured.TPOT)
		s += float64(a*a) + float64(b*b)
	}
	return s
}

// metric is mean TTFT (m = 0) or mean TPOT (m = 1).
func metric(x Metrics, m int) float64 {
	if m == 0 {
		return x.TTFT
	}
	return x.TPOT
}

// clamp bounds every parameter to [lo, hi].
func clamp(p, lo, hi Params) Params {
	for i := range p {
		p[i] = min(max(p[i], lo[i]), hi[i])
	}
	return p
}

// solveStep is the bounded ridge least-squares step Δ: rows are the log errors of each point's
// TTFT and TPOT linearised as ln(at/measured) + (J/at)·Δ; parameters whose solution leaves
// [floor, Ceiling] are fixed at the bound they crossed and the rest solved again (an
// active set, at most NumParams rounds).
func solveStep(points []Point, at []Metrics, jac [NumParams][]Metrics, theta, floor Params, active [NumParams]bool) Params {
	var fixed [NumParams]bool
	var delta Params
	for k := range active {
		fixed[k] = !active[k]
	}
	for round := 0; round <= NumParams; round++ {
		var ata [NumParams][NumParams]float64
		var atb [NumParams]float64
		for i, p := range points {
			for m := 0; m < 2; m++ {
				base := metric(at[i], m)
				b := -xmath.Log(base / metric(p.Measured, m))
				var row [NumParams]float64
				for k := range row {
					if fixed[k] {
						if jac[k] != nil {
							// A parameter fixed at a bound still moves the point by its step.
							b -= float64(delta[k] * (metric(jac[k][i], m) - base) / steps[k] / base)
						}
						continue
					}
					row[k] = (metric(jac[k][i], m) - base) / steps[k] / base
				}
				for j := range row {
					atb[j] += float64(row[j] * b)
					for k := range row {
						ata[j][k] += float64(row[j] * row[k])
					}
				}
			}
		}
		for k := range ata {
			if fixed[k] {
				ata[k] = [NumParams]float64{}
				ata[k][k], atb[k] = 1, delta[k]
				continue
			}
			r := 0.01 / ridge[k]
			ata[k][k] += float64(r * r)
		}
		aug := make([][]float64, NumParams)
		for k := range aug {
			aug[k] = append(ata[k][:], atb[k])
		}
		copy(delta[:], Solve(aug))
		moved := false
		for k := range delta {
			if fixed[k] {
				continue
			}
			switch v := theta[k] + delta[k]; {
			case v < floor[k]:
				delta[k], fixed[k], moved = floor[k]-theta[k], true, true
			case v > Ceiling[k]:
				delta[k], fixed[k], moved = Ceiling[k]-theta[k], true, true
			}
		}
		if !moved {
			break
		}
	}
	return delta
}

// Solve solves the linear system of an n×(n+1) augmented matrix [A | b] by Gaussian
// elimination with partial pivoting, in place; an unknown without a pivot (a singular
// system) is NaN. tools/calibrate solves its normal equations with it too.
func Solve(m [][]float64) []float64 {
	n := len(m)
	for c := 0; c < n; c++ {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(m[r][c]) > math.Abs(m[p][c]) {
				p = r
			}
		}
		m[c], m[p] = m[p], m[c]
		if m[c][c] == 0 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := m[r][c] / m[c][c]
			for k := c; k <= n; k++ {
				m[r][k] -= float64(f * m[c][k])
			}
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := m[r][n]
		for k := r + 1; k < n; k++ {
			s -= float64(m[r][k] * x[k])
		}
		if m[r][r] == 0 {
			x[r] = math.NaN()
			continue
		}
		x[r] = s / m[r][r]
	}
	return x
}

// descend is the fit's descent from start (within the bounds; startAt: every point's replay
// there, nil when it has not been replayed): linearise, solve, confirm by replays, correct
// by the secant, as Fit describes, or descendCorrected when every point has a surrogate. It
// returns where it stopped, the replays there and their loss.
func descend(points []Point, replayAll func(Params) ([]Metrics, error), start Params, startAt []Metrics, floor Params, active [NumParams]bool) (Params, []Metrics, float64, error) {
	theta, at := start, startAt
	var err error
	if at == nil {
		if at, err = replayAll(theta); err != nil {
			return theta, nil, 0, err
		}
	}
	loss := lossOf(points, at)
	if allSurrogates(points) {
		theta, at, loss, err = descendCorrected(points, replayAll, theta, at, floor, active)
		return theta, at, loss, err
	}
	m, err := linearise(replayAll, theta, at, active)
	if err != nil {
		return theta, nil, 0, err
	}
	relinearised := false
	lastGain := 1.0 // the relative gain of the last confirmed step
	for it := 0; it < maxIterations && loss > resolvedLoss*float64(2*len(points)); it++ {
		delta := m.solve(points, at, theta, floor, active)
		var next Params
		var got []Metrics
		nextLoss := loss
		for h := 0; h <= maxHalvings && nextLoss >= loss; h++ {
			if h > 0 && lastGain < settledGain {
				break // the fit has reached what the replays resolve: a half step would gain noise
			}
			if h > 0 {
				for k := range delta {
					delta[k] /= 2
				}
			}
			next = clamp(add(theta, delta), floor, Ceiling)
			if next == theta {
				break
			}
			if got, err = replayAll(next); err != nil {
				return theta, nil, 0, err
			}
			nextLoss = lossOf(points, got)
			if nextLoss > overshoot*loss {
				break // the model is wrong this far out: halving would replay in vain
			}
		}
		if nextLoss >= loss {
			// The model led nowhere: linearise again here, once — unless the last confirmed
			// step already gained less than settledGain of the loss, so the fit has reached
			// what the replays resolve and a new linearisation would only measure their noise.
			if relinearised || lastGain < settledGain {
				break
			}
			relinearised = true
			if m, err = linearise(replayAll, theta, at, active); err != nil {
				return theta, nil, 0, err
			}
			continue
		}
		m.secant(sub(next, theta), at, got)
		var settled bool
		lastGain, settled = confirmedGain(loss, nextLoss)
		theta, at, loss = next, got, nextLoss
		if settled {
			break
		}
	}
	return theta, at, loss, nil
}

// confirmedGain is a confirmed step's gain from loss to next relative to loss, and whether
// it gained less than minGain of it, where the fit stops.
func confirmedGain(loss, next float64) (float64, bool) {
	gain := loss - next
	return gain / loss, gain < minGain*(next+gain)+1e-12
}

// queueingCorner is the fit's second starting point: prefill as slow as the profile range
// allows and no frontend latency (the floor), the rest the default model. It is the
// opposite hypothesis to the default model's: a mean TTFT that grows with the load is
// queueing behind prefill passes, not a latency added to every request. Linearised at the
// default model, whose prefill passes are short, the fit sees prefill slopes too small to
// explain such growth and buys it with frontend and decode terms instead (docs/calibration.md,
// "Two starting points").
func queueingCorner(floor Params) Params {
	p := Identity
	p[PrefillScale] = Ceiling[PrefillScale]
	p[FrontendMs] = floor[FrontendMs]
	return p
}

// betterStart reports whether start has a lower loss than first, the first descent's start
// (firstAt its replays): by the surrogates when every point has one, which costs no replay
// (their errors largely cancel in the comparison of two of their own losses), else by
// replaying start (returned, for the descent from it to reuse; nil when not replayed).
func betterStart(points []Point, replayAll func(Params) ([]Metrics, error), start, first Params, firstAt []Metrics) (bool, []Metrics, error) {
	if allSurrogates(points) {
		return lossOf(points, surrogateAll(points, start)) < lossOf(points, surrogateAll(points, first)), nil, nil
	}
	at, err := replayAll(start)
	if err != nil {
		return false, nil, err
	}
	return lossOf(points, at) < lossOf(points, firstAt), at, nil
}
