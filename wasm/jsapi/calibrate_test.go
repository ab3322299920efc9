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
	r := Calibrate(CalibrateRequest{YAML: yaml, Measurements: ms, Lengths: []byte("{distribution: uniform, min_ratio: 0.9, max_ratio: 1.1}")})
	if r.Err != nil || !strings.Contains(strings.Join(strings.Fields(r.ProfileJSON), ""), `"lengths":{"distribution":"uniform","max_ratio":1.1,"min_ratio":0.9}`) {
		t.Errorf("calibrate with lengths: %+v", r.Err)
	}
	r = Calibrate(CalibrateRequest{YAML: yaml, Measurements: ms, Lengths: []byte("{distribution: normal, min_ratio: 0.9}")})
	if r.Err == nil || r.Err.Kind != KindConfig || r.Err.Path != "lengths" || !strings.Contains(r.Err.Message, "distribution 'normal' does not accept ['min_ratio']") {
		t.Errorf("bad lengths: %+v", r.Err)
	}
}
