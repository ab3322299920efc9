package simcore

import (
	"math"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// kvRoundTripConfig is the round-trip deployment with a small KV cache (400 blocks of 64
// tokens: about 23 requests of 1024/128 tokens), so that a closed loop of 32 queues for
// admission on it, and more so on a cluster with half of it.
const kvRoundTripConfig = roundTripConfig + `      kv_cache: {capacity: {type: fixed, blocks: 400}}
`

// Round trip of the KV capacity: a cluster with half the configured KV capacity and prefill
// ×1.3, decode ×1.15, measured at 2, 8 and 32 requests (32 queues for admission there, far
// more than on the configuration: a TTFT several times the default model's). Calibrating on
// those three measurements recovers the capacity scale within 10 % (0.475) and predicts two
// loads it never saw, one that fits in the cache (6) and one that queues (24), within 10 % in
// mean TTFT and 7 % in TPOT (the calibration target's TPOT bound: with three loads of a
// weight-bound decode, its scale and per-pass time are one direction, 1.15 × and 0 ms come
// back as 1.28 × and −0.68 ms, which puts the queued loads' smaller batches 6 % low).
func TestCalibrationRecoversTheKVCapacity(t *testing.T) {
	truth := calibration.Identity
	truth[calibration.PrefillScale], truth[calibration.DecodeScale] = 1.3, 1.15
	truth[calibration.KVCapacityScale] = 0.5
	_, out, prof := calibrateClusterOn(t, kvRoundTripConfig, truth, 2, 8, 32)
	got := calibration.FromProfile(prof.Entries[0].Parameters)
	t.Logf("fitted %v (truth %v)\n%s", got, truth, out.Table)
	if s := got[calibration.KVCapacityScale]; math.Abs(s/0.5-1) > 0.1 {
		t.Errorf("kv_capacity_scale = %.3f, want 0.5 ± 10 %%", s)
	}
	checkQueuedHeldOut(t, kvRoundTripConfig, truth, got, 6, 24)
}

// checkQueuedHeldOut measures the cluster perturbed by truth at loads the fit never saw and checks
// that the fitted parameters got predict them within 10 % in mean TTFT and 7 % in TPOT (the
// calibration target's TPOT bound).
func checkQueuedHeldOut(t *testing.T, config string, truth, got calibration.Params, loads ...int) {
	t.Helper()
	for _, conc := range loads {
		held := heldOutRun(t, config, truth, got, conc)
		if e := math.Abs(held.cal.TTFT/held.measured.TTFT - 1); e > 0.1 {
			t.Errorf("concurrency %d: calibrated TTFT %.1f vs measured %.1f (%.1f %% off, want ≤ 10 %%)", conc, held.cal.TTFT, held.measured.TTFT, 100*e)
		}
		if e := math.Abs(held.cal.TPOT/held.measured.TPOT - 1); e > 0.07 {
			t.Errorf("concurrency %d: calibrated TPOT %.2f vs measured %.2f (%.1f %% off, want ≤ 7 %%)", conc, held.cal.TPOT, held.measured.TPOT, 100*e)
		}
	}
}

// A fit that explains its measurements tries no queue hypothesis: the round trip without a
// capacity change or a frontend queue writes no kv_capacity_scale and no
// frontend_service_ms.
func TestCalibrationKeepsTheCapacityWhenNothingQueued(t *testing.T) {
	_, _, prof := calibrateCluster(t, roundTripTruth(), 2, 8, 32, 64)
	if s := prof.Entries[0].Parameters.KVCapacityScale; s != nil {
		t.Errorf("kv_capacity_scale = %v, want none", *s)
	}
	if s := prof.Entries[0].Parameters.FrontendServiceMs; s != nil {
		t.Errorf("frontend_service_ms = %v, want none", *s)
	}
}

// A profile's kv_capacity_scale reaches predict: the capacity-halved round trip's profile
// predicts its queued load (24 requests) through Predict --calibration as the fitted
// parameters replay it, several times the uncalibrated TTFT; a scale outside [0.25, 1] is
// refused naming the field.
func TestProfileKVCapacityScaleApplies(t *testing.T) {
	truth := calibration.Identity
	truth[calibration.KVCapacityScale] = 0.5
	_, out, prof := calibrateClusterOn(t, kvRoundTripConfig, truth, 2, 8, 32)
	if prof.Entries[0].Parameters.KVCapacityScale == nil {
		t.Fatalf("no kv_capacity_scale fitted:\n%s", out.Table)
	}
	in := checkPredictsAsFitted(t, kvRoundTripConfig, out, prof, 24)
	checkRefused(t, in, prof, "kv_capacity_scale", func(v *float64) { prof.Entries[0].Parameters.KVCapacityScale = v }, 0.2, 1.5)
}

// checkRefused sets a parameter of prof's first entry to each bad value through set and
// checks that predicting in with the profile is refused naming the parameter's field.
func checkRefused(t *testing.T, in Input, prof *spec.Profile, field string, set func(*float64), bads ...float64) {
	t.Helper()
	for _, bad := range bads {
		set(&bad)
		pj, err := encodeProfile(prof)
		if err != nil {
			t.Fatal(err)
		}
		in.Calibrations = []NamedFile{{Name: "calibration.json", Data: pj}}
		if _, err := Predict(in); err == nil || !strings.Contains(err.Error(), "parameters."+field) {
			t.Errorf("%s %g: %v, want a refusal naming the field", field, bad, err)
		}
	}
}

// checkPredictsAsFitted checks that Predict with a calibration's profile replays a load of
// conc requests (1024/128 tokens) on config as the profile's parameters do, and that the
// load queues under them (a TTFT at least twice the uncalibrated one); it returns the
// prediction's input, the profile in its Calibrations.
func checkPredictsAsFitted(t *testing.T, config string, out *CalibrateOutput, prof *spec.Profile, conc int) Input {
	t.Helper()
	held := &measure.Measurement{Concurrency: conc, ISL: 1024, OSL: 128}
	zero := 0.0
	in := Input{ConfigName: "cluster.yaml", ConfigYAML: []byte(config), Sets: calibration.TrafficSets(held), FixedWallTimeMs: &zero}
	unc, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	in.Calibrations = []NamedFile{{Name: "calibration.json", Data: out.ProfileJSON}}
	cal, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	p := &measuredPoint{m: held, configName: "cluster.yaml", configYAML: []byte(config), sets: calibration.TrafficSets(held)}
	p.stopWindows = -1 // a prediction runs to the end
	want, err := replayMeasurement(p, calibration.FromProfile(prof.Entries[0].Parameters))
	if err != nil {
		t.Fatal(err)
	}
	got, u := summaryMetrics(cal.Summary), summaryMetrics(unc.Summary)
	if got.TTFT != want.TTFT || got.TPOT != want.TPOT {
		t.Errorf("Predict with the profile: TTFT %v, TPOT %v; the fitted parameters replay %v, %v", got.TTFT, got.TPOT, want.TTFT, want.TPOT)
	}
	if got.TTFT < 2*u.TTFT {
		t.Errorf("calibrated TTFT %.1f is not the queue's (uncalibrated %.1f)", got.TTFT, u.TTFT)
	}
	return in
}
