package simcore

import (
	"math"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
)

// A calibration replay stops once its means settle: on the round-trip deployment at 16 and
// 64 requests (ten waves replayed) it stops before the last wave (after 5 and 9 waves), its
// estimated means are within 3 % of the replay run to the end, and two replays give the same
// numbers (the rule reads only simulated state).
func TestCalibrationReplayStopsOnceSettled(t *testing.T) {
	for _, c := range []int{16, 64} {
		m := &measure.Measurement{File: "c.json", ID: "c", Concurrency: c, ISL: 1024, OSL: 128}
		point := func(windows int) *measuredPoint {
			return &measuredPoint{m: m, configName: "cluster.yaml", configYAML: []byte(roundTripConfig), sets: calibration.TrafficSets(m), stopWindows: windows}
		}
		p := point(0)
		stopped, err := replayMeasurement(p, calibration.Identity)
		if err != nil {
			t.Fatal(err)
		}
		if p.stopWindows < calibration.StopMinWindows || p.stopWindows > 9 {
			t.Errorf("c=%d: stopped after %d windows of 10, want %d to 9", c, p.stopWindows, calibration.StopMinWindows)
		}
		t.Logf("c=%d: stopped after %d windows", c, p.stopWindows)
		again, _ := replayMeasurement(point(0), calibration.Identity)
		if again != stopped {
			t.Errorf("c=%d: two replays differ: %+v, %+v", c, stopped, again)
		}
		full, err := replayMeasurement(point(-1), calibration.Identity)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []struct {
			name        string
			stop, whole float64
		}{{"TTFT", stopped.TTFT, full.TTFT}, {"TPOT", stopped.TPOT, full.TPOT}, {"E2E", stopped.E2E, full.E2E}} {
			if e := math.Abs(x.stop/x.whole - 1); e > 0.03 || x.stop == x.whole {
				t.Errorf("c=%d: %s of the stopped replay %.3f vs %.3f run to the end (%.2f %% off, want 0 < off ≤ 3 %%)", c, x.name, x.stop, x.whole, 100*e)
			}
		}
	}
}

// A measurement's stopping rule warms up over one wave and compares windows of one wave up
// to 1024 completions, of 1024 beyond (docs/calibration.md, "Stopping a replay early"); an
// open loop has none.
func TestReplayStopWindowsCappedAt1024(t *testing.T) {
	for _, c := range []struct{ conc, window int }{{64, 64}, {1024, 1024}, {6144, 1024}} {
		s := replayStop(&measure.Measurement{Concurrency: c.conc, ISL: 1024, OSL: 128}, 0)
		if s.Warmup != c.conc || s.Window != c.window || s.MinWindows != 3 {
			t.Errorf("concurrency %d: warm-up %d, window %d, min windows %d; want %d, %d, 3", c.conc, s.Warmup, s.Window, s.MinWindows, c.conc, c.window)
		}
	}
	if s := replayStop(&measure.Measurement{RequestRate: 2, ISL: 1024, OSL: 128}, 0); s != nil {
		t.Error("an open loop got a stopping rule")
	}
}
