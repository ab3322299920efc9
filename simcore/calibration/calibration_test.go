package calibration

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

// On replays that are exactly linear in the parameters, the fit finds the parameters that
// made the measurements (up to the ridge's pull), in one Gauss–Newton step.
func TestFitRecoversLinearTruth(t *testing.T) {
	truth := Params{PrefillScale: 1.4, PrefillPassMs: 3, DecodeScale: 0.9, DecodePassMs: 2, FrontendMs: 30}
	model := func(p Params, c float64) Metrics {
		prefill := p[PrefillScale]*(20+3*c) + p[PrefillPassMs]*(1+math.Sqrt(c)) // passes a prompt waits for
		decode := p[DecodeScale]*(5+0.2*c) + p[DecodePassMs]
		return Metrics{TTFT: prefill + p[FrontendMs] + 0.5*c*decode, TPOT: decode}
	}
	var points []Point
	for _, c := range []float64{1, 4, 16, 64, 128} {
		c := c
		points = append(points, Point{Measured: model(truth, c), Replay: func(p Params) (Metrics, error) { return model(p, c), nil }})
	}
	floor := Params{PrefillScale: 0.5, PrefillPassMs: -10, DecodeScale: 0.5, DecodePassMs: -1, FrontendMs: 0, HandoffMs: 0}
	f, err := Fit(points, floor)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < HandoffMs; k++ {
		if math.Abs(f.Params[k]-truth[k]) > 0.02*max(1, math.Abs(truth[k])) {
			t.Errorf("%s = %.4f, want %.4f", ParamNames[k], f.Params[k], truth[k])
		}
	}
	if f.Params[HandoffMs] != 0 {
		t.Errorf("handoff_ms fitted without a disaggregated point: %g", f.Params[HandoffMs])
	}
}

// With a surrogate on every point, every step is taken on it, corrected to the replays
// (corrected): the pass terms' changes relative to its level, so a surrogate whose level of
// queueing is off by a constant factor moves the replay's means exactly, the frontend's as
// it is (a latency adds the same milliseconds whatever that level). The fit then recovers
// the same truth without any finite-difference replay, and a surrogate whose sensitivities
// are off (the decode load's, or a closed loop that gives back half of the frontend latency
// the replay does not) is corrected by the confirming replays, at the cost of more steps.
func TestFitStepsOnTheSurrogate(t *testing.T) {
	truth := Params{PrefillScale: 1.4, PrefillPassMs: 3, DecodeScale: 0.9, DecodePassMs: 2, FrontendMs: 30}
	model := func(p Params, c, decodeLoad float64) Metrics {
		prefill := p[PrefillScale]*(20+3*c) + p[PrefillPassMs]*(1+math.Sqrt(c))
		decode := p[DecodeScale]*(5+decodeLoad*c) + p[DecodePassMs]
		return Metrics{TTFT: prefill + p[FrontendMs] + 0.5*c*decode, TPOT: decode}
	}
	floor := Params{PrefillScale: 0.5, PrefillPassMs: -10, DecodeScale: 0.5, DecodePassMs: -1, FrontendMs: 0, HandoffMs: 0}
	fit := func(surrogate func(Params, float64) Metrics) *Fitted {
		var points []Point
		for _, c := range []float64{1, 4, 16, 64, 128} {
			c := c
			pt := Point{Measured: model(truth, c, 0.2), Replay: func(p Params) (Metrics, error) { return model(p, c, 0.2), nil }}
			if surrogate != nil {
				pt.Surrogate = func(p Params) Metrics { return surrogate(p, c) }
			}
			points = append(points, pt)
		}
		f, err := Fit(points, floor)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	replayed := fit(nil)
	for _, c := range []struct {
		name      string
		surrogate func(Params, float64) Metrics
		tolerance float64
		saves     bool // the fit runs at least the five finite differences' replays fewer
	}{
		{"level off by 1.3", func(p Params, c float64) Metrics {
			m := model(p, c, 0.2)
			return Metrics{TTFT: 1.3*(m.TTFT-p[FrontendMs]) + p[FrontendMs], TPOT: 1.3 * m.TPOT}
		}, 0.02, true},
		{"decode sensitivity halved", func(p Params, c float64) Metrics { return model(p, c, 0.1) }, 0.05, false},
		{"half the frontend given back", func(p Params, c float64) Metrics {
			m := model(p, c, 0.2)
			return Metrics{TTFT: m.TTFT - 0.5*p[FrontendMs], TPOT: m.TPOT}
		}, 0.05, false},
	} {
		f := fit(c.surrogate)
		for k := 0; k < HandoffMs; k++ {
			if math.Abs(f.Params[k]-truth[k]) > c.tolerance*max(1, math.Abs(truth[k])) {
				t.Errorf("%s: %s = %.4f, want %.4f", c.name, ParamNames[k], f.Params[k], truth[k])
			}
		}
		if c.saves && f.Replays > replayed.Replays-5*5 {
			t.Errorf("%s: %d replays, want at most %d (%d replay every finite difference)", c.name, f.Replays, replayed.Replays-5*5, replayed.Replays)
		}
	}
}

// A truth below the floor is not reached: the parameter stops on its bound and is named.
func TestFitStopsAtTheFloor(t *testing.T) {
	model := func(p Params) Metrics { return Metrics{TTFT: 100 * p[PrefillScale], TPOT: 10 * p[DecodeScale]} }
	pts := []Point{{Measured: Metrics{TTFT: 50, TPOT: 10}, Replay: func(p Params) (Metrics, error) { return model(p), nil }}}
	floor := Params{PrefillScale: 0.8, PrefillPassMs: 0, DecodeScale: 0.8, DecodePassMs: 0, FrontendMs: 0}
	f, err := Fit(pts, floor)
	if err != nil {
		t.Fatal(err)
	}
	if f.Params[PrefillScale] != 0.8 || len(f.AtBound) == 0 || f.AtBound[0] != "prefill_scale" {
		t.Errorf("params %v, at bound %v; want prefill_scale on its floor 0.8", f.Params, f.AtBound)
	}
	if name, _, _ := f.Params.Below(floor); name != "" {
		t.Errorf("fitted parameter %s below its floor", name)
	}
}

// The inflation rule's exact values: two residuals of rms 0.1 give ±3.078·0.1·√1.5; a
// workload twice the highest measured concurrency multiplies that by 1 + ln 2; outside the
// scope by 2 more; a band whose residuals give less than MinHalfWidth (30 residuals of rms
// 0.001 give ±0.0017) is MinHalfWidth wide.
func TestBandsInflationRule(t *testing.T) {
	r := spec.ProfileResiduals{TTFT: spec.ProfileBand{N: 2, Mean: 0.01, RMS: 0.1}, TPOT: spec.ProfileBand{N: 30, RMS: 0.001}}
	half := 3.078 * 0.1 * math.Sqrt(1.5)
	b := Bands(r, MinHalfWidth, 0, true)
	if math.Abs(b.TTFT.P90-(0.01+half)) > 1e-12 || math.Abs(b.TTFT.P10-(0.01-half)) > 1e-12 || b.TTFT.N != 2 {
		t.Errorf("TTFT band %+v, want 0.01 ± %g", b.TTFT, half)
	}
	d := spec.ProfileDomain{Concurrency: [2]float64{4, 64}, ISL: [2]float64{1024, 1024}, OSL: [2]float64{128, 128}}
	out := OutsideLog(d, Workload{Concurrency: 128, ISL: 1024, OSL: 128})
	if math.Abs(out-math.Ln2) > 1e-12 {
		t.Errorf("OutsideLog = %g, want ln 2", out)
	}
	wide := Bands(r, MinHalfWidth, out, false)
	if got, want := wide.TTFT.P90-0.01, half*(1+math.Ln2)*2; math.Abs(got-want) > 1e-12 {
		t.Errorf("inflated half-width %g, want %g", got, want)
	}
	if b.TPOT.P90 != MinHalfWidth.TPOT || b.TPOT.P10 != -MinHalfWidth.TPOT {
		t.Errorf("TPOT band %+v, want ±%g (the floor)", b.TPOT, MinHalfWidth.TPOT)
	}
	if got := OutsideDomain(d, Workload{Concurrency: 16, ISL: 1024, OSL: 128}); len(got) != 0 {
		t.Errorf("inside the domain, got %v", got)
	}
}

// Matching prefers the model, GPU and backend; a role outside every scope still gets the
// best entry, with the fields that differ.
func TestBestMatch(t *testing.T) {
	e := func(model, hw string, tp int) spec.ProfileEntry {
		return spec.ProfileEntry{Scope: spec.ProfileScope{Model: model, Hardware: hw, Backend: "vllm", Mode: "aggregated",
			Roles: map[string]spec.ProfileRole{"aggregated": {Tensor: tp, Pipeline: 1, AttentionData: 1, MoeTensor: 1, MoeExpert: 1}}}}
	}
	p := &spec.Profile{Entries: []spec.ProfileEntry{e("a", "h100_sxm", 1), e("b", "h200_sxm", 2), e("b", "h200_sxm", 1)}}
	dep := e("b", "h200_sxm", 1).Scope
	if m := Best([]*spec.Profile{p}, dep, "aggregated"); m.Entry != 2 || !m.InScope() {
		t.Errorf("exact scope: %+v", m)
	}
	dep.Hardware = "b200_sxm"
	if m := Best([]*spec.Profile{p}, dep, "aggregated"); m.Entry != 2 || len(m.Mismatched) != 1 || m.Mismatched[0] != "hardware" {
		t.Errorf("another GPU: %+v", m)
	}
}

func TestSolve(t *testing.T) {
	// x − y = 1, 2x + y = 5 → x = 2, y = 1 (partial pivoting swaps the rows).
	x := Solve([][]float64{{1, -1, 1}, {2, 1, 5}})
	if math.Abs(x[0]-2) > 1e-12 || math.Abs(x[1]-1) > 1e-12 {
		t.Fatalf("Solve = %v", x)
	}
	if x := Solve([][]float64{{0, 0, 1}}); !math.IsNaN(x[0]) {
		t.Fatalf("singular system = %v, want NaN", x)
	}
}

// A disaggregated entry's bands take the disaggregated floors, an aggregated one's the
// aggregated floors: residuals too small to set the width give exactly the floor.
func TestBandsFloorOfTheEntrysMode(t *testing.T) {
	tiny := spec.ProfileResiduals{TTFT: spec.ProfileBand{N: 2, RMS: 0.001}, TPOT: spec.ProfileBand{N: 2, RMS: 0.001}}
	for _, c := range []struct {
		mode  string
		floor MetricSpreads
	}{{spec.ModeAggregated, MinHalfWidth}, {spec.ModeDisaggregated, MinHalfWidthDisaggregated}} {
		files := []ProfileFile{{Name: "p.json", Profile: &spec.Profile{Entries: []spec.ProfileEntry{{Scope: spec.ProfileScope{Mode: c.mode}, Residuals: tiny}}}}}
		b := RoleBands(files, Match{})
		if b.TTFT.P90 != c.floor.TTFT || b.TPOT.P90 != c.floor.TPOT || b.TTFT.P10 != -c.floor.TTFT {
			t.Errorf("%s: TTFT %+v, TPOT %+v, want ±%g and ±%g", c.mode, b.TTFT, b.TPOT, c.floor.TTFT, c.floor.TPOT)
		}
	}
	if MinHalfWidthDisaggregated.TTFT <= MinHalfWidth.TTFT {
		t.Errorf("the disaggregated TTFT floor %g is not wider than the aggregated %g", MinHalfWidthDisaggregated.TTFT, MinHalfWidth.TTFT)
	}
}

// A calibrated prediction's intervals take, per metric, the widest band of its roles: one
// entry for both roles of a disaggregated deployment names that entry once; different
// entries are named per role, each metric takes the wider of the two bands and the fewer
// residuals.
func TestIntervalsTakeTheWidestRole(t *testing.T) {
	// Entry a: TTFT narrow (10 points, rms 0.05), TPOT wide (rms 0.5); entry b the reverse.
	a := spec.ProfileResiduals{TTFT: spec.ProfileBand{N: 10, RMS: 0.05}, TPOT: spec.ProfileBand{N: 10, RMS: 0.5}}
	b := spec.ProfileResiduals{TTFT: spec.ProfileBand{N: 2, Mean: 0.1, RMS: 0.2}, TPOT: spec.ProfileBand{N: 2, RMS: 0.01}}
	files := []ProfileFile{{Name: "p.json", Profile: &spec.Profile{Entries: []spec.ProfileEntry{{Residuals: a}, {Residuals: b}}}}}
	same := map[string]Match{"prefill": {Entry: 0}, "decode": {Entry: 0}}
	got, group, ok := Intervals(files, same)
	if !ok || group != "p.json entries[0]" || got != Bands(a, MinHalfWidth, 0, true) {
		t.Errorf("one entry: %+v %q %v", got, group, ok)
	}
	mixed := map[string]Match{"prefill": {Entry: 1}, "decode": {Entry: 0}}
	got, group, _ = Intervals(files, mixed)
	ba, bb := Bands(a, MinHalfWidth, 0, true), Bands(b, MinHalfWidth, 0, true)
	if group != "decode: p.json entries[0]; prefill: p.json entries[1]" {
		t.Errorf("group %q", group)
	}
	// TTFT: b's (0.1 ± 3.078·0.2·√1.5); TPOT: a's (± 1.383·0.5·√1.1) with b's count.
	if got.TTFT != bb.TTFT || got.TPOT.P10 != ba.TPOT.P10 || got.TPOT.P90 != ba.TPOT.P90 || got.TPOT.N != 2 {
		t.Errorf("widest: TTFT %+v (want %+v), TPOT %+v (want %+v with n 2)", got.TTFT, bb.TTFT, got.TPOT, ba.TPOT)
	}
	if half := 1.383 * 0.5 * math.Sqrt(1.1); math.Abs(got.TPOT.P90-half) > 1e-12 {
		t.Errorf("TPOT p90 %v, want %v", got.TPOT.P90, half)
	}
	if _, _, ok := Intervals(files, nil); ok {
		t.Error("no roles: want ok false")
	}
}
