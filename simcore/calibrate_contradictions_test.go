package simcore

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/spec"

	"github.com/google/go-cmp/cmp"
)

// csvHead is the measured-runs CSV header of the load-warning tests.
const csvHead = "curve_id,id,concurrency,backend,backend_version,model_path,system,mode,isl,osl,gemm_quant_mode,tp_size,prefill_num_workers,silicon_ttft_ms,silicon_tpot_ms\n"

// aggRow is one aggregated Llama 3.1 8B row on an H200 with vLLM: id, concurrency, ISL, tensor
// parallelism, mean TTFT and TPOT (ms).
func aggRow(id string, conc, isl, tp int, ttft, tpot float64) string {
	return fmt.Sprintf("c,%s,%d,vllm,0.11.0,meta-llama/Llama-3.1-8B-Instruct,h200_sxm,agg,%d,128,bf16,%d,,%g,%g\n", id, conc, isl, tp, ttft, tpot)
}

func loadWarningsOf(t *testing.T, files ...NamedFile) []string {
	t.Helper()
	ws, err := MeasurementWarnings(CalibrateInput{Measurements: files})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// A mean TTFT that falls by more than LoadFallTolerance from one concurrency to the next
// higher one warns once, naming both measurements, both loads, both values and the fall; a
// TPOT fall warns after it; the rows are compared in load order whatever their order in the
// file.
func TestLoadWarningText(t *testing.T) {
	csv := csvHead + aggRow("hi", 32, 1024, 1, 280, 10.9) + aggRow("lo", 4, 1024, 1, 95, 6.7) + aggRow("mid", 16, 1024, 1, 76, 5.5)
	got := loadWarningsOf(t, NamedFile{Name: "runs.csv", Data: []byte(csv)})
	tail := " on the same deployment: one deployment's mean latency cannot fall as its load rises, so either the lower-load run included a warm-up " +
		"or the two runs come from different campaigns or deployments; re-measure both, or leave one out (the profile fits both, so its " +
		"predictions between the two loads will miss)"
	want := []string{
		"runs.csv mid (concurrency 16) has a mean TTFT of 76.0 ms, 20.0 % below the 95.0 ms of runs.csv lo (concurrency 4)" + tail,
		"runs.csv mid (concurrency 16) has a mean TPOT of 5.50 ms, 17.9 % below the 6.70 ms of runs.csv lo (concurrency 4)" + tail,
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("warnings (-want +got):\n%s", d)
	}
}

// A fall within the tolerance, a rise, equal loads and a single load do not warn; the
// warnings are an empty list, not nil (the JSON report's "warnings": []).
func TestLoadWarningWithinTolerance(t *testing.T) {
	for name, csv := range map[string]string{
		"fall of 14.9 %":   aggRow("a", 8, 1024, 1, 100, 8) + aggRow("b", 16, 1024, 1, 85.1, 6.81),
		"rise":             aggRow("a", 8, 1024, 1, 100, 8) + aggRow("b", 16, 1024, 1, 180, 9),
		"repeats, 1 load":  aggRow("a", 8, 1024, 1, 100, 8) + aggRow("b", 8, 1024, 1, 50, 4),
		"one measurement":  aggRow("a", 8, 1024, 1, 100, 8),
		"fall, not a pair": aggRow("a", 8, 1024, 1, 100, 8) + aggRow("b", 16, 1024, 1, 300, 12) + aggRow("c", 32, 1024, 1, 280, 11),
	} {
		got := loadWarningsOf(t, NamedFile{Name: "runs.csv", Data: []byte(csvHead + csv)})
		if got == nil || len(got) != 0 {
			t.Errorf("%s: warnings %q, want []", name, got)
		}
	}
}

// Measurements of distinct deployments are never compared: another tensor parallelism (another
// profile entry), another prefill replica count (the same entry), other lengths; nor a
// measurement with the one two loads away.
func TestLoadWarningSeries(t *testing.T) {
	disagg := func(id string, conc, prefillWorkers int, ttft, tpot float64) string {
		return fmt.Sprintf("d,%s,%d,vllm,0.11.0,meta-llama/Llama-3.1-8B-Instruct,h200_sxm,disagg,1024,128,bf16,%d,1,1,1,%g,%g\n", id, conc, prefillWorkers, ttft, tpot)
	}
	disaggHead := "curve_id,id,concurrency,backend,backend_version,model_path,system,mode,isl,osl,gemm_quant_mode,prefill_num_workers,prefill_tp_size,decode_num_workers,decode_tp_size,silicon_ttft_ms,silicon_tpot_ms\n"
	for name, csv := range map[string]string{
		"tensor parallelism": csvHead + aggRow("a", 8, 1024, 1, 100, 8) + aggRow("b", 16, 1024, 2, 50, 4),
		"input length":       csvHead + aggRow("a", 8, 2048, 1, 100, 8) + aggRow("b", 16, 1024, 1, 50, 4),
		"prefill replicas":   disaggHead + disagg("a", 8, 1, 100, 8) + disagg("b", 16, 2, 50, 4),
	} {
		if got := loadWarningsOf(t, NamedFile{Name: "runs.csv", Data: []byte(csv)}); len(got) != 0 {
			t.Errorf("%s: warnings %q, want none", name, got)
		}
	}
	// The same disaggregated deployment does warn.
	if got := loadWarningsOf(t, NamedFile{Name: "runs.csv", Data: []byte(disaggHead + disagg("a", 8, 2, 100, 8) + disagg("b", 16, 2, 50, 8))}); len(got) != 1 {
		t.Errorf("one disaggregated deployment: warnings %q, want 1", got)
	}
	// Every measurement at one load is compared with every one at the next higher load (not
	// with the load after it).
	csv := csvHead + aggRow("a1", 8, 1024, 1, 100, 8) + aggRow("a2", 8, 1024, 1, 102, 8) + aggRow("b", 16, 1024, 1, 80, 8.5) + aggRow("c", 32, 1024, 1, 150, 10)
	got := loadWarningsOf(t, NamedFile{Name: "runs.csv", Data: []byte(csv)})
	if len(got) != 2 || !strings.HasPrefix(got[0], "runs.csv b (concurrency 16) has a mean TTFT of 80.0 ms, 20.0 % below the 100.0 ms of runs.csv a1 ") ||
		!strings.HasPrefix(got[1], "runs.csv b (concurrency 16) has a mean TTFT of 80.0 ms, 21.6 % below the 102.0 ms of runs.csv a2 ") {
		t.Errorf("repeats at one load: %q", got)
	}
}

// vllmRun is a `vllm bench serve --save-result` result of the quickstart's model at an open
// loop of rate requests per second (or a closed loop of conc when rate is 0).
func vllmRun(rate float64, conc int, ttft, tpot float64) []byte {
	load := fmt.Sprintf(`"request_rate": %g`, rate)
	if rate == 0 {
		load = fmt.Sprintf(`"request_rate": "inf", "max_concurrency": %d`, conc)
	}
	return []byte(fmt.Sprintf(`{"date": "20261120-141502", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": 160, %s, "completed": 160, `+
		`"total_input_tokens": 163840, "total_output_tokens": 20480, "mean_ttft_ms": %g, "mean_tpot_ms": %g}`, load, ttft, tpot))
}

// Open-loop measurements are ordered by their rate, and never compared with closed loops.
func TestLoadWarningOpenLoop(t *testing.T) {
	cfg, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ws, err := MeasurementWarnings(CalibrateInput{ConfigName: "quickstart.yaml", ConfigYAML: cfg, Measurements: []NamedFile{
		{Name: "r4.json", Data: vllmRun(4, 0, 200, 9)}, {Name: "r2.json", Data: vllmRun(2, 0, 150, 8)},
		{Name: "r1.json", Data: vllmRun(1, 0, 190, 7.9)}, {Name: "c64.json", Data: vllmRun(0, 64, 100, 5)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 1 || !strings.HasPrefix(ws[0], "r2.json #1 (request rate 2 req/s) has a mean TTFT of 150.0 ms, 21.1 % below the 190.0 ms of r1.json #1 (request rate 1 req/s) on the same deployment") {
		t.Errorf("open loops: %q", ws)
	}
}

// The warnings leave the fit alone: calibrate's profile of measurements that warn is the
// profile of their fit alone, entry by entry as Calibrate builds it, and the JSON report and
// Warnings carry the warning (and those of the measurements the profile misses).
func TestLoadWarningLeavesTheFit(t *testing.T) {
	data, err := os.ReadFile("../tests/testdata/calibrate-falling-ttft.csv")
	if err != nil {
		t.Fatal(err)
	}
	in := CalibrateInput{Measurements: []NamedFile{{Name: "falling.csv", Data: data}}}
	out, err := Calibrate(in)
	if err != nil {
		t.Fatal(err)
	}
	// The load warning, then the two measurements its profile cannot reproduce (a TTFT that
	// falls with the load is one no parameters give).
	if len(out.Warnings) != 3 || !strings.HasPrefix(out.Warnings[0], "falling.csv l8_c16 (concurrency 16) has a mean TTFT of 76.0 ms, 20.0 % below the 95.0 ms of falling.csv l8_c4 (concurrency 4)") ||
		!strings.HasPrefix(out.Warnings[1], "falling.csv l8_c4 (concurrency 4): the profile gives a mean TTFT of 76.2 ms against the 95.0 ms measured (-19.7 %)") ||
		!strings.HasPrefix(out.Warnings[2], "falling.csv l8_c16 (concurrency 16): the profile gives a mean TTFT of 197.5 ms against the 76.0 ms measured (+159.8 %)") {
		t.Fatalf("warnings %q", out.Warnings)
	}
	if !strings.Contains(string(out.StdoutJSON), `"warnings":["falling.csv l8_c16 (concurrency 16) has a mean TTFT`) {
		t.Errorf("the JSON report lacks the warning: %s", out.StdoutJSON)
	}
	points, inputs, err := readMeasurements(&in)
	if err != nil {
		t.Fatal(err)
	}
	e, _, err := fitDeployment(points, inputs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeProfile(&spec.Profile{SchemaVersion: spec.ProfileSchemaVersion, Program: "aisimulate " + Version, Entries: []spec.ProfileEntry{*e}})
	if err != nil {
		t.Fatal(err)
	}
	if string(out.ProfileJSON) != string(want) {
		t.Error("the profile of measurements that warn differs from their fit's")
	}
}
