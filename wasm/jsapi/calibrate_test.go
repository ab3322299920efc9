package jsapi

import (
	"os"
	"strings"
	"testing"

	"aisimulate/simcore"
)

// The lengths option is calibrate's --lengths: a draw the profile's scope then records, or a
// config error naming the option's field.
func TestCalibrateLengthsOption(t *testing.T) {
	yaml, ms := workedExample(t)
	r := Calibrate(CalibrateRequest{YAML: yaml, Measurements: ms, Lengths: []byte("{distribution: uniform, min_ratio: 0.9, max_ratio: 1.1}")})
	if r.Err != nil || !strings.Contains(strings.Join(strings.Fields(r.ProfileJSON), ""), `"lengths":{"distribution":"uniform","max_ratio":1.1,"min_ratio":0.9}`) {
		t.Errorf("calibrate with lengths: %+v", r.Err)
	}
	r = Calibrate(CalibrateRequest{YAML: yaml, Measurements: ms, Lengths: []byte("{distribution: normal, min_ratio: 0.9}")})
	if r.Err == nil || r.Err.Kind != KindConfig || r.Err.Path != "lengths" || !strings.Contains(r.Err.Message, "distribution 'normal' does not accept ['min_ratio']") {
		t.Errorf("bad lengths: %+v", r.Err)
	}
}

// CalibrateResult.Warnings are calibrate's (simcore.CalibrateOutput.Warnings): the falling
// fixture warns three times (the falling mean, and the two measurements its profile misses),
// its JSON report carries the same warnings, and the worked example's
// measurements warn none (an empty list, as the report's "warnings": []).
func TestCalibrateWarnings(t *testing.T) {
	data, err := os.ReadFile("../../tests/testdata/calibrate-falling-ttft.csv")
	if err != nil {
		t.Fatal(err)
	}
	in := []simcore.NamedFile{{Name: "falling.csv", Data: data}}
	r := Calibrate(CalibrateRequest{Measurements: in})
	if r.Err != nil {
		t.Fatal(r.Err.Message)
	}
	out, err := simcore.Calibrate(simcore.CalibrateInput{Measurements: in})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Warnings) != 3 || strings.Join(r.Warnings, "\n") != strings.Join(out.Warnings, "\n") || !strings.HasPrefix(r.Warnings[0], "falling.csv l8_c16 (concurrency 16) has a mean TTFT of 76.0 ms") {
		t.Errorf("warnings %q, want calibrate's %q", r.Warnings, out.Warnings)
	}
	if r.StdoutJSON != string(out.StdoutJSON) || !strings.Contains(r.StdoutJSON, `"warnings":["falling.csv l8_c16`) {
		t.Errorf("stdout JSON %s", r.StdoutJSON)
	}
	yaml, ms := workedExample(t)
	r = Calibrate(CalibrateRequest{YAML: yaml, Measurements: ms})
	if r.Err != nil || r.Warnings == nil || len(r.Warnings) != 0 || !strings.Contains(r.StdoutJSON, `"warnings":[]`) {
		t.Errorf("the worked example: warnings %q, stdout %s", r.Warnings, r.StdoutJSON)
	}
}

// workedExample is docs/calibration.md's worked example: the quickstart deployment and its two
// benchmark results.
func workedExample(t *testing.T) ([]byte, []simcore.NamedFile) {
	t.Helper()
	yaml, err := os.ReadFile("../../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ms []simcore.NamedFile
	for _, n := range []string{"vllm-c8.json", "vllm-c64.json"} {
		b, err := os.ReadFile("../../examples/calibration/" + n)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, simcore.NamedFile{Name: n, Data: b})
	}
	return yaml, ms
}
