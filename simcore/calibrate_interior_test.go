package simcore

import (
	"errors"
	"math"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
)

// Calibrated interpolation on the round-trip cluster (TestCalibrationRecoversAPerturbation's):
// calibrated on its lowest and highest loads only (2 and 64 requests), the profile predicts
// the loads between (4 to 48) within 5 % in mean TTFT and 3 % in TPOT. It fails when a fitted
// parameter leaves the region both ends confirm and the middle blows up.
func TestCalibratedInteriorFollowsTheCluster(t *testing.T) {
	truth := roundTripTruth()
	_, _, prof := calibrateCluster(t, truth, 2, 64)
	got := calibration.FromProfile(prof.Entries[0].Parameters)
	for _, c := range []int{4, 16, 24, 48} {
		ms, err := measure.Read("between.json", clusterRun(t, truth, c, 1024, 128))
		if err != nil {
			t.Fatal(err)
		}
		p := &measuredPoint{m: &ms[0], configName: "cluster.yaml", configYAML: []byte(roundTripConfig), sets: calibration.TrafficSets(&ms[0])}
		cal, err := replayMeasurement(p, got)
		if err != nil {
			t.Fatal(err)
		}
		if e := math.Abs(cal.TTFT/ms[0].TTFT - 1); e > 0.05 {
			t.Errorf("concurrency %d: calibrated TTFT %.1f vs measured %.1f (%.1f %% off, want ≤ 5 %%)", c, cal.TTFT, ms[0].TTFT, 100*e)
		}
		if e := math.Abs(cal.TPOT/ms[0].TPOT - 1); e > 0.03 {
			t.Errorf("concurrency %d: calibrated TPOT %.2f vs measured %.2f (%.1f %% off, want ≤ 3 %%)", c, cal.TPOT, ms[0].TPOT, 100*e)
		}
	}
}

// A cluster that held all 64 requests in flight (its real KV cache is the memory model's),
// calibrated on a configuration whose KV cache holds 16 of them: the replay of the 64-request
// measurement would queue every request for admission, which no pass time can undo (the fit
// drove every parameter to its floor and the predictions between blew up), so the
// measurement is refused naming the file, the load the configuration holds and the fix.
func TestCalibrationRefusesALoadItsDeploymentCannotHold(t *testing.T) {
	small := roundTripConfig + "      kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 1088}}\n" // 16 × (1024 + 128/2) tokens
	files := []NamedFile{{Name: "c2.json", Data: clusterRun(t, calibration.Identity, 2, 1024, 128)},
		{Name: "c64.json", Data: clusterRun(t, calibration.Identity, 64, 1024, 128)}}
	_, err := Calibrate(CalibrateInput{ConfigName: "small.yaml", ConfigYAML: []byte(small), Measurements: files})
	var me *measure.Error
	if !errors.As(err, &me) || me.File != "c64.json" || !strings.Contains(err.Error(), "holds 16 of its 64 requests") {
		t.Fatalf("err = %v, want a measure.Error on c64.json saying the configuration holds 16 of 64 requests", err)
	}
	// The same measurements on the configuration that holds them calibrate.
	if _, err := Calibrate(CalibrateInput{ConfigName: "cluster.yaml", ConfigYAML: []byte(roundTripConfig), Measurements: files}); err != nil {
		t.Fatal(err)
	}
	// A cluster that did queue for its small KV cache (its measured TTFT shows the wait) is a
	// measurement of that deployment, and calibrates on it.
	queued := []NamedFile{{Name: "c2.json", Data: clusterRunOn(t, small, calibration.Identity, 2, 1024, 128)},
		{Name: "c64.json", Data: clusterRunOn(t, small, calibration.Identity, 64, 1024, 128)}}
	if _, err := Calibrate(CalibrateInput{ConfigName: "small.yaml", ConfigYAML: []byte(small), Measurements: queued}); err != nil {
		t.Errorf("a measurement that queued for its KV cache: %v", err)
	}
}
