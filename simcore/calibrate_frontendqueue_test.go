package simcore

import (
	"math"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
)

// frontendTruth is a cluster whose serving frontend takes ms per request, one request at a
// time, on top of the round-trip perturbation's slower prefill and decode.
func frontendTruth(ms float64) calibration.Params {
	truth := calibration.Identity
	truth[calibration.PrefillScale], truth[calibration.DecodeScale] = 1.3, 1.15
	truth[calibration.FrontendServiceMs] = ms
	return truth
}

// runMetrics replays the round-trip deployment under q at a closed-loop concurrency of
// 1024/128-token requests, to the end.
func runMetrics(t *testing.T, q calibration.Params, conc int) calibration.Metrics {
	t.Helper()
	m := &measure.Measurement{Concurrency: conc, ISL: 1024, OSL: 128}
	p := &measuredPoint{m: m, configName: "cluster.yaml", configYAML: []byte(roundTripConfig), sets: calibration.TrafficSets(m), stopWindows: -1}
	x, err := replayMeasurement(p, q)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// The frontend queue in the replay: one client at a time finds the frontend idle, so its
// TTFT is the same run's plus exactly the service time; a closed loop of many clients
// cannot complete requests faster than the frontend serves them (the bottleneck law:
// throughput ≤ 1000/S requests a second). (TTFT need not grow with S at every load: with
// constant lengths the frontend spreads a wave of prompts that would otherwise queue behind
// each other in one prefill pass.)
func TestFrontendQueueReplay(t *testing.T) {
	base := calibration.Identity
	withQueue := base
	withQueue[calibration.FrontendServiceMs] = 50
	one, oneQ := runMetrics(t, base, 1), runMetrics(t, withQueue, 1)
	if d := oneQ.TTFT - one.TTFT; math.Abs(d-50) > 1e-6 {
		t.Errorf("one client: TTFT %.6f with a 50 ms frontend against %.6f without: +%.6f, want +50", oneQ.TTFT, one.TTFT, d)
	}
	if oneQ.TPOT != one.TPOT {
		t.Errorf("one client: TPOT %v with the frontend, %v without; the queue is before the engine", oneQ.TPOT, one.TPOT)
	}
	for _, s := range []float64{10, 40, 80} {
		q := base
		q[calibration.FrontendServiceMs] = s
		x := runMetrics(t, q, 64)
		reqPerSec := x.OutputThroughput / 128
		if reqPerSec > 1000/s*(1+1e-9) {
			t.Errorf("S = %g ms: %.2f requests/s, above the frontend's %.2f", s, reqPerSec, 1000/s)
		}
	}
}

// Round trip of the frontend queue: a cluster whose frontend serves a request in 80 ms (at
// most 12.5 requests a second) with prefill ×1.3 and decode ×1.15 is measured at 2, 8 and 64
// requests; 64 saturates the frontend, and its TTFT is several times the default model's.
// Calibrating on those measurements recovers the service time within 10 % and predicts two
// loads it never saw, below (16) and at (32) the frontend's saturation, within 10 % in mean
// TTFT and 7 % in TPOT.
func TestCalibrationRecoversTheFrontendQueue(t *testing.T) {
	truth := frontendTruth(80)
	_, out, prof := calibrateCluster(t, truth, 2, 8, 64)
	got := calibration.FromProfile(prof.Entries[0].Parameters)
	t.Logf("fitted %v (truth %v)\n%s", got, truth, out.Table)
	if s := got[calibration.FrontendServiceMs]; math.Abs(s/80-1) > 0.1 {
		t.Errorf("frontend_service_ms = %.2f, want 80 ± 10 %%", s)
	}
	checkQueuedHeldOut(t, roundTripConfig, truth, got, 16, 32)
}

// A profile's frontend_service_ms reaches predict: Predict --calibration gives what the
// fitted parameters replay; a value outside [0, 1000] ms is refused naming the field.
func TestProfileFrontendServiceApplies(t *testing.T) {
	_, out, prof := calibrateCluster(t, frontendTruth(80), 2, 8, 64)
	if prof.Entries[0].Parameters.FrontendServiceMs == nil {
		t.Fatalf("no frontend_service_ms fitted:\n%s", out.Table)
	}
	held := &measure.Measurement{Concurrency: 32, ISL: 1024, OSL: 128}
	zero := 0.0
	in := Input{ConfigName: "cluster.yaml", ConfigYAML: []byte(roundTripConfig), Sets: calibration.TrafficSets(held), FixedWallTimeMs: &zero,
		Calibrations: []NamedFile{{Name: "calibration.json", Data: out.ProfileJSON}}}
	cal, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	p := &measuredPoint{m: held, configName: "cluster.yaml", configYAML: []byte(roundTripConfig), sets: calibration.TrafficSets(held), stopWindows: -1}
	want, err := replayMeasurement(p, calibration.FromProfile(prof.Entries[0].Parameters))
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryMetrics(cal.Summary); got.TTFT != want.TTFT || got.TPOT != want.TPOT {
		t.Errorf("Predict with the profile: TTFT %v, TPOT %v; the fitted parameters replay %v, %v", got.TTFT, got.TPOT, want.TTFT, want.TPOT)
	}
	checkRefused(t, in, prof, "frontend_service_ms", func(v *float64) { prof.Entries[0].Parameters.FrontendServiceMs = v }, -1, 1500)
}
