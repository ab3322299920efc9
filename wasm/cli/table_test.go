package cli

import (
	"encoding/json"

	"aisimulate/simcore"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files of this package")

// The readable table of the quickstart at 80 and 120 columns is pinned by golden files;
// every line fits the width, it starts with the deployment and shows SLA attainment and
// goodput, and it uses one border style.
func TestReadableTableOfTheQuickstart(t *testing.T) {
	out, err := predictQuickstart(t)
	if err != nil {
		t.Fatal(err)
	}
	for _, cols := range []string{"80", "120"} {
		env := []string{EnvTable + "=readable", EnvColumns + "=" + cols}
		got := table(out, env, DefaultOutputDir)
		checkGolden(t, filepath.Join("testdata", "quickstart.readable"+cols+".txt"), got, "ReadableTable")
		width := 80
		if cols == "120" {
			width = 120
		}
		for _, line := range strings.Split(got, "\n") {
			if n := utf8.RuneCountInString(line); n > width {
				t.Errorf("%s columns: line of %d: %q", cols, n, line)
			}
			if strings.ContainsAny(line, "━┃┏┡") && strings.ContainsAny(line, "─│┌├") {
				t.Errorf("mixed border styles: %q", line)
			}
		}
		for _, want := range []string{"Deployment  meta-llama/Meta-Llama-3.1-8B\n", "h200_sxm × 1 GPU, vllm, aggregated",
			"aggregated: 1 replica × TP1, default timing", "SLA         TTFT ≤ 200 ms: ", "ITL (request mean) ≤ 20 ms: ", "Goodput     ",
			"Time to First Token", " per GPU", " per user"} {
			if !strings.Contains(got, want) {
				t.Errorf("%s columns: no %q in\n%s", cols, want, got)
			}
		}
		if strings.ContainsAny(got, "━┃") {
			t.Errorf("%s columns: heavy border glyphs in the readable table", cols)
		}
	}
	// Without the readable style (standard output not a terminal) the table is the spec's.
	if got := table(out, []string{EnvColumns + "=80"}, DefaultOutputDir); !strings.HasPrefix(got, "NVIDIA AIPerf | LLM Metrics\n┏") {
		t.Errorf("default table is not the AIPerf one:\n%s", got)
	}
}

// SLA attainment per bound counts the same requests as the per-request records: TTFT
// (first_token_ms − arrival_time_ms) and the request's mean ITL (itl_ms) within the bounds.
func TestSLAAttainmentMatchesTheRecords(t *testing.T) {
	text, err := os.ReadFile(quickstartPath)
	if err != nil {
		t.Fatal(err)
	}
	out, err := simcore.Predict(simcore.Input{ConfigYAML: text, Sets: []string{"engine.hardware=a100_sxm"}, CapturePerRequest: true})
	if err != nil {
		t.Fatal(err)
	}
	var ttftOK, itlOK, both int
	for _, line := range strings.Split(strings.TrimSpace(string(out.RequestsJSONL)), "\n") {
		var r struct {
			Arrival    float64 `json:"arrival_time_ms"`
			FirstToken float64 `json:"first_token_ms"`
			ITL        float64 `json:"itl_ms"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		a, b := r.FirstToken-r.Arrival <= 200, r.ITL <= 20
		if a {
			ttftOK++
		}
		if b {
			itlOK++
		}
		if a && b {
			both++
		}
	}
	att := out.Overview.Attainment
	if len(att) != 2 || att[0].Metric != "TTFT" || att[1].Metric != "ITL" || att[0].Completed != 200 {
		t.Fatalf("attainment = %+v", att)
	}
	if att[0].Met != ttftOK || att[1].Met != itlOK {
		t.Errorf("attainment TTFT %d ITL %d, records say %d and %d", att[0].Met, att[1].Met, ttftOK, itlOK)
	}
	if g := out.Summary["goodput_completed_requests"]; g != int64(both) {
		t.Errorf("goodput %v, records meeting both bounds %d", g, both)
	}
	if ttftOK == 200 && itlOK == 200 {
		t.Errorf("a100_sxm meets every bound; pick a deployment that shows partial attainment")
	}
	t.Logf("TTFT %d, ITL %d, both %d of 200", ttftOK, itlOK, both)
}

// A calibrated prediction's readable table shows the calibrated band: the Uncertainty line
// names the profile's residuals and entry (golden at 80 columns).
func TestReadableTableOfACalibratedPrediction(t *testing.T) {
	text, err := os.ReadFile(quickstartPath)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := os.ReadFile("../../examples/calibration/profile.json")
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	out, err := simcore.Predict(simcore.Input{ConfigName: quickstartPath, ConfigYAML: text, Sets: []string{"traffic.load.concurrency=32"},
		FixedWallTimeMs: &zero, Calibrations: []simcore.NamedFile{{Name: "profile.json", Data: prof}}})
	if err != nil {
		t.Fatal(err)
	}
	got := table(out, []string{EnvTable + "=readable", EnvColumns + "=80"}, DefaultOutputDir)
	checkGolden(t, filepath.Join("testdata", "quickstart-calibrated.readable80.txt"), got, "ReadableTableOfACalibrated")
	if !strings.Contains(got, "from the calibration profile's residuals (profile.json entries[0])") || !strings.Contains(got, "Default     uncalibrated, the default model without the profile,") {
		t.Errorf("no calibrated band in\n%s", got)
	}
}

// checkGolden compares got with the golden file (rewritten first with -update); test names
// the -run pattern that rewrites it.
func checkGolden(t *testing.T, golden, got, test string) {
	t.Helper()
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("table differs from %s (go test -run %s -update)\n%s", golden, test, got)
	}
}
