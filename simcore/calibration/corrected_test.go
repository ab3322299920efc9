package calibration

import (
	"math"
	"testing"
)

// toyLoop is a closed loop whose means bend with the parameters as a saturating queue does:
// a prompt's pass t waits behind c·t²/queue ms of other prompts (queue 200 in the replay),
// and a decode pass d slows with the prompts interleaved (1 + c·t/1000). level scales the
// pass-driven part (1 in the replay): a surrogate is the loop with its level and queue off.
func toyLoop(p Params, c, level, queue float64) Metrics {
	t := p[PrefillScale]*20 + p[PrefillPassMs]
	d := p[DecodeScale]*5*(1+0.02*c) + p[DecodePassMs]
	return Metrics{TTFT: level*(t+c*t*t/queue) + p[FrontendMs], TPOT: level * d * (1 + c*t/1000)}
}

// toyPoints are the toy loop at 1, 8 and 32 clients measured at truth, with a surrogate of
// level surrogateLevel whose queue is a half longer (300), or none when the level is 0.
func toyPoints(truth Params, surrogateLevel float64) []Point {
	var points []Point
	for _, c := range []float64{1, 8, 32} {
		c := c
		pt := Point{Measured: toyLoop(truth, c, 1, 200), Replay: func(p Params) (Metrics, error) { return toyLoop(p, c, 1, 200), nil }}
		if surrogateLevel > 0 {
			pt.Surrogate = func(p Params) Metrics { return toyLoop(p, c, surrogateLevel, 300) }
		}
		points = append(points, pt)
	}
	return points
}

var toyFloor = Params{PrefillScale: 0.5, PrefillPassMs: -10, DecodeScale: 0.5, DecodePassMs: -1, FrontendMs: 0, HandoffMs: 0}

// On a nonlinear loop, steps taken on the surrogate corrected to the replays reach the
// parameters that made the measurements in fewer confirming replays than the linear model
// of finite differences, even with a surrogate whose level is 25 % off and whose queue
// bends a third less: the relative correction carries the replay's own level, the
// surrogate most of its bend, and the replays teach the model the rest.
func TestCorrectedStepsBeatTheLinearModel(t *testing.T) {
	truth := Params{PrefillScale: 1.8, PrefillPassMs: 4, DecodeScale: 1.3, DecodePassMs: 0.5, FrontendMs: 40}
	steps := func(level float64, finiteDifferences int) (*Fitted, int) {
		points := toyPoints(truth, level)
		f, err := Fit(points, toyFloor)
		if err != nil {
			t.Fatal(err)
		}
		return f, f.Replays/len(points) - 1 - finiteDifferences
	}
	_, linearSteps := steps(0, 5)
	corrected, correctedSteps := steps(0.75, 0)
	// The prefill pass is one number, 20·prefill_scale + prefill_pass_ms (40 ms).
	pass := func(p Params) float64 { return 20*p[PrefillScale] + p[PrefillPassMs] }
	if got := pass(corrected.Params); math.Abs(got/pass(truth)-1) > 0.005 {
		t.Errorf("corrected: prefill pass %.3f ms, want %.3f", got, pass(truth))
	}
	for _, k := range []int{DecodeScale, DecodePassMs, FrontendMs} {
		if math.Abs(corrected.Params[k]-truth[k]) > 0.02*max(1, math.Abs(truth[k])) {
			t.Errorf("corrected: %s = %.4f, want %.4f", ParamNames[k], corrected.Params[k], truth[k])
		}
	}
	if !(correctedSteps < linearSteps) || correctedSteps > 3 {
		t.Errorf("confirming replays per point: corrected %d, linear %d; want fewer, at most 3", correctedSteps, linearSteps)
	}
}

// A step the corrected model expects to gain less than minGain of the loss is not replayed:
// a TTFT half what any parameter within the bounds reaches and a TPOT 1 % off leave 0.02 %
// of the loss to gain, so the fit stops at the default model after its one replay. The
// linear model (no surrogate) replays its finite differences and a step.
func TestCorrectedStepBelowWhatAReplayResolvesIsNotReplayed(t *testing.T) {
	floor := Identity
	floor[KVCapacityScale] = 0
	for _, level := range []float64{1, 0} {
		points := toyPoints(Identity, level)
		for i := range points {
			points[i].Measured.TTFT /= 2
			points[i].Measured.TPOT *= 1.01
		}
		f, err := Fit(points, floor)
		if err != nil {
			t.Fatal(err)
		}
		if level > 0 && f.Replays != len(points) {
			t.Errorf("with a surrogate: %d replays, want the default model's %d", f.Replays, len(points))
		}
		if level == 0 && f.Replays <= len(points) {
			t.Errorf("without a surrogate: %d replays, want the finite differences' too", f.Replays)
		}
	}
}

// The corrected model equals the replays at its anchor and, once it has learned a replay
// elsewhere, that replay too; between, it moves as the surrogate does.
func TestCorrectedModelPassesThroughItsReplays(t *testing.T) {
	points := toyPoints(Identity, 0.75)
	replays := func(p Params) []Metrics {
		out := make([]Metrics, len(points))
		for i := range points {
			out[i], _ = points[i].Replay(p)
		}
		return out
	}
	c := newCorrected(points, Identity, replays(Identity))
	other := Identity
	other[PrefillScale], other[FrontendMs] = 2, 30
	c.learn(other, replays(other))
	for _, p := range []Params{Identity, other} {
		want, got := replays(p), c.eval(p)
		for i := range want {
			if math.Abs(got[i].TTFT/want[i].TTFT-1) > 1e-9 || math.Abs(got[i].TPOT/want[i].TPOT-1) > 1e-9 {
				t.Errorf("at %.3g point %d: model %.4f/%.4f, replay %.4f/%.4f", p, i, got[i].TTFT, got[i].TPOT, want[i].TTFT, want[i].TPOT)
			}
		}
	}
}
