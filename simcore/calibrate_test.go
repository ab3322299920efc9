package simcore

import (
	"errors"
	"fmt"
	"math"
	"os"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// roundTripConfig is the deployment of the round-trip test: Llama 3.1 8B on one H200 with
// vLLM (the quickstart's).
const roundTripConfig = `engine:
  mode: aggregated
  model: meta-llama/Meta-Llama-3.1-8B
  hardware: h200_sxm
  backend: vllm
  workers:
    aggregated:
      parallelism: {replicas: 1, tensor: 1}
`

// clusterRun simulates the "cluster": the deployment with the default model perturbed by
// truth, at a closed-loop concurrency, written as the JSON `vllm bench serve --save-result`
// writes.
func clusterRun(t *testing.T, truth calibration.Params, conc, isl, osl int) []byte {
	t.Helper()
	return clusterRunOn(t, roundTripConfig, truth, conc, isl, osl)
}

// clusterRunOn is clusterRun on another deployment configuration.
func clusterRunOn(t *testing.T, config string, truth calibration.Params, conc, isl, osl int) []byte {
	t.Helper()
	return clusterRunDrawn(t, config, truth, spec.Lengths{}, conc, isl, osl)
}

// clusterRunDrawn is clusterRunOn with the clients' length draw (isl and osl the lengths it
// draws around).
func clusterRunDrawn(t *testing.T, config string, truth calibration.Params, lengths spec.Lengths, conc, isl, osl int) []byte {
	t.Helper()
	m := &measure.Measurement{Concurrency: conc, ISL: isl, OSL: osl, Lengths: lengths}
	zero := 0.0
	out, err := predictTuned(Input{ConfigName: "cluster", ConfigYAML: []byte(config), Sets: calibration.TrafficSets(m), FixedWallTimeMs: &zero},
		paramsTuning(truth), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	x := summaryMetrics(out.Summary)
	n := calibration.ReplayRequests(m)
	return []byte(fmt.Sprintf(`{"date": "20260301-120000", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": %d, "request_rate": "inf", "max_concurrency": %d, "completed": %d, "total_input_tokens": %d, "total_output_tokens": %d, "mean_ttft_ms": %v, "mean_tpot_ms": %v, "mean_e2el_ms": %v, "output_throughput": %v}`,
		n, conc, n, n*isl, n*osl, x.TTFT, x.TPOT, x.E2E, x.OutputThroughput))
}

// roundTripTruth is the round-trip cluster's perturbation of the default model: prefill
// ×1.3, decode ×1.15 + 0.5 ms per pass, 25 ms more frontend latency.
func roundTripTruth() calibration.Params {
	truth := calibration.Identity
	truth[calibration.PrefillScale], truth[calibration.DecodeScale] = 1.3, 1.15
	truth[calibration.DecodePassMs], truth[calibration.FrontendMs] = 0.5, 25
	return truth
}

// calibrateCluster measures the cluster perturbed by truth at the loads (1024/128 tokens) and
// calibrates the round-trip deployment on those measurements.
func calibrateCluster(t *testing.T, truth calibration.Params, loads ...int) ([]NamedFile, *CalibrateOutput, *spec.Profile) {
	t.Helper()
	return calibrateClusterOn(t, roundTripConfig, truth, loads...)
}

// calibrateClusterOn is calibrateCluster on another deployment configuration.
func calibrateClusterOn(t *testing.T, config string, truth calibration.Params, loads ...int) ([]NamedFile, *CalibrateOutput, *spec.Profile) {
	t.Helper()
	var files []NamedFile
	for _, c := range loads {
		files = append(files, NamedFile{Name: fmt.Sprintf("c%d.json", c), Data: clusterRunOn(t, config, truth, c, 1024, 128)})
	}
	out, err := Calibrate(CalibrateInput{ConfigName: "cluster.yaml", ConfigYAML: []byte(config), Measurements: files})
	if err != nil {
		t.Fatal(err)
	}
	prof, perr := spec.LoadProfile(out.ProfileJSON)
	if perr != nil {
		t.Fatal(perr)
	}
	return files, out, prof
}

// Round trip: a cluster whose prefill is 30 % slower, decode 15 % slower with 0.5 ms more
// per decode pass and 25 ms more frontend latency than the default model is measured at
// four loads. Calibrating on those measurements recovers what they determine: the prefill
// scale within 3 %, the time added before the first token (frontend + prefill pass) within
// 5 ms, and the decode pass time of every measured batch within 2 % (the decode of an 8B
// model on an H200 is weight-bound, so its scale and its per-pass time are one direction to
// the measurements: 1.15 × and +0.5 ms come back as about 1.0 × and +1.4 ms). The calibrated
// model predicts a load it never saw (concurrency 24) within 3 % in mean TTFT and TPOT, where
// the default model is 10–40 % off.
func TestCalibrationRecoversAPerturbation(t *testing.T) {
	truth := roundTripTruth()
	files, out, prof := calibrateCluster(t, truth, 2, 8, 32, 64)
	if len(prof.Entries) != 1 {
		t.Fatalf("%d entries, want 1 (one deployment)", len(prof.Entries))
	}
	got := calibration.FromProfile(prof.Entries[0].Parameters)
	if math.Abs(got[calibration.PrefillScale]/truth[calibration.PrefillScale]-1) > 0.03 {
		t.Errorf("prefill_scale = %.4f, want %.4f ± 3 %%", got[calibration.PrefillScale], truth[calibration.PrefillScale])
	}
	if first := got[calibration.FrontendMs] + got[calibration.PrefillPassMs]; math.Abs(first-25) > 5 {
		t.Errorf("frontend_ms + prefill_pass_ms = %.2f, want 25 ± 5", first)
	}
	for i, row := range out.Fit {
		if e := math.Abs(row.Calibrated.TPOT/row.Measured.TPOT - 1); e > 0.02 {
			t.Errorf("%s: calibrated TPOT %.3f vs %.3f (%.1f %%)", files[i].Name, row.Calibrated.TPOT, row.Measured.TPOT, 100*e)
		}
	}
	t.Logf("fitted %v (truth %v)\n%s", got, truth, out.Table)
	// A load the fit never saw.
	checkHeldOut(t, roundTripConfig, truth, got, 24)
}

// checkHeldOut measures the cluster perturbed by truth at a load the fit never saw and checks
// that the fitted parameters predict its mean TTFT and TPOT within 3 %, where the default
// model is more than 10 % off (else the load tests nothing).
func checkHeldOut(t *testing.T, config string, truth, got calibration.Params, conc int) {
	t.Helper()
	h := heldOutRun(t, config, truth, got, conc)
	for _, c := range []struct {
		name          string
		cal, unc, mea float64
	}{{"TTFT", h.cal.TTFT, h.unc.TTFT, h.measured.TTFT}, {"TPOT", h.cal.TPOT, h.unc.TPOT, h.measured.TPOT}} {
		if e := math.Abs(c.cal/c.mea - 1); e > 0.03 {
			t.Errorf("held-out %s: calibrated %.2f vs measured %.2f (%.1f %% off, want ≤ 3 %%)", c.name, c.cal, c.mea, 100*e)
		}
		if math.Abs(c.unc/c.mea-1) < 0.1 {
			t.Errorf("held-out %s: the default model is already within 10 %% (%.2f vs %.2f): the test does not test", c.name, c.unc, c.mea)
		}
	}
}

// heldOut is a held-out load's measured means and their replays under the fitted
// parameters and under the default model.
type heldOut struct{ measured, cal, unc calibration.Metrics }

// heldOutRun measures the cluster perturbed by truth at a closed-loop load of 1024/128-token
// requests and replays that load under the fitted parameters and the default model.
func heldOutRun(t *testing.T, config string, truth, got calibration.Params, conc int) heldOut {
	t.Helper()
	held := &measure.Measurement{File: "held", ID: fmt.Sprintf("c%d", conc), Concurrency: conc, ISL: 1024, OSL: 128}
	measured, err := measure.Read(held.ID+".json", clusterRunOn(t, config, truth, conc, 1024, 128))
	if err != nil {
		t.Fatal(err)
	}
	p := &measuredPoint{m: held, configName: "cluster.yaml", configYAML: []byte(config), sets: calibration.TrafficSets(held)}
	cal, err := replayMeasurement(p, got)
	if err != nil {
		t.Fatal(err)
	}
	unc, _ := replayMeasurement(p, calibration.Identity)
	return heldOut{calibration.MeasuredMetrics(&measured[0]), cal, unc}
}

// The same inputs give the same profile bytes (no clock, no map order).
func TestCalibrationIsDeterministic(t *testing.T) {
	csv, err := os.ReadFile("measure/testdata/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	in := CalibrateInput{Measurements: []NamedFile{{Name: "measured.csv", Data: csv}}}
	a, err := Calibrate(in)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Calibrate(in)
	if string(a.ProfileJSON) != string(b.ProfileJSON) || string(a.StdoutJSON) != string(b.StdoutJSON) {
		t.Error("two calibrations of the same input differ")
	}
	if len(a.RowConfigs) != 3 || a.RowConfigs[0].Name != "configs/llama8b_h200_vllm_agg_1024x128_c4.yaml" {
		t.Errorf("row configurations: %d, first %q", len(a.RowConfigs), a.RowConfigs[0].Name)
	}
	p, perr := spec.LoadProfile(a.ProfileJSON)
	if perr != nil || len(p.Entries) != 2 {
		t.Fatalf("profile: %v, %d entries (want 2: aggregated and disaggregated)", perr, len(p.Entries))
	}
}

// A measurement of another model than --config is refused naming the file and the field;
// so is a file that records no deployment without --config.
func TestCalibrationRefusesContradictions(t *testing.T) {
	vllm, _ := os.ReadFile("measure/testdata/vllm_bench.json")
	other := []byte(`engine:
  model: Qwen/Qwen3-32B
  hardware: h200_sxm
  backend: vllm
  workers: {aggregated: {}}
`)
	_, err := Calibrate(CalibrateInput{ConfigName: "qwen.yaml", ConfigYAML: other, Measurements: []NamedFile{{Name: "run.json", Data: vllm}}})
	var me *measure.Error
	if !errors.As(err, &me) || me.File != "run.json" || me.Field != "model" {
		t.Errorf("another model: %v", err)
	}
	_, err = Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "run.json", Data: vllm}}})
	if !errors.As(err, &me) || me.File != "run.json" {
		t.Errorf("no deployment: %v", err)
	}
	csv, _ := os.ReadFile("measure/testdata/runs.csv")
	h100 := []byte("engine:\n  model: meta-llama/Llama-3.1-8B-Instruct\n  hardware: h100_sxm\n  backend: vllm\n  workers: {aggregated: {}}\n")
	_, err = Calibrate(CalibrateInput{ConfigName: "h100.yaml", ConfigYAML: h100, Measurements: []NamedFile{{Name: "m.csv", Data: csv}}})
	if !errors.As(err, &me) || me.Field != "row llama8b_h200_vllm_agg_1024x128_c4: system" {
		t.Errorf("another GPU: %v", err)
	}
}
