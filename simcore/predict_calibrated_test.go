package simcore

import (
	"math"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/canon"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// exampleProfile is the worked example's profile (docs/calibration.md), committed so that
// every target can be given the same calibration.
const exampleProfile = "../examples/calibration/profile.json"

// The committed example profile is what `calibrate` writes for docs/calibration.md's worked
// example (run from the repository root; the program is the test build's, "aisimulate dev").
// Regenerate with -update when the fit changes.
func TestExampleProfileIsTheWorkedExample(t *testing.T) {
	cfg, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := CalibrateInput{ConfigName: "examples/quickstart.yaml", ConfigYAML: cfg}
	for _, name := range []string{"examples/calibration/vllm-c8.json", "examples/calibration/vllm-c64.json"} {
		b, err := os.ReadFile("../" + name)
		if err != nil {
			t.Fatal(err)
		}
		in.Measurements = append(in.Measurements, NamedFile{Name: name, Data: b})
	}
	out, err := Calibrate(in)
	if err != nil {
		t.Fatal(err)
	}
	wantGolden(t, exampleProfile, out.ProfileJSON)
}

// calibratedQuickstart predicts the quickstart at concurrency c with the example profile.
func calibratedQuickstart(t *testing.T, c string) *Output {
	t.Helper()
	cfg, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := os.ReadFile(exampleProfile)
	if err != nil {
		t.Fatal(err)
	}
	wall := 1.0
	out, err := Predict(Input{ConfigName: "quickstart.yaml", ConfigYAML: cfg, Sets: []string{"traffic.load.concurrency=" + c},
		FixedWallTimeMs: &wall, Calibrations: []NamedFile{{Name: "profile.json", Data: prof}}})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A calibrated prediction's `intervals` come from the profile's residuals under the
// inflation rule (source "calibration", the entry as the group): inside the domain the TTFT
// band of the example profile (n = 2, residuals so small that 3.078 · rms · √1.5 is below the
// floor) is its mean ± calibration.MinHalfWidth.TTFT; at concurrency 128, twice the highest
// measured, the half-width grows by 1 + ln 2. The whole object is a golden file.
func TestCalibratedIntervals(t *testing.T) {
	prof, err := os.ReadFile(exampleProfile)
	if err != nil {
		t.Fatal(err)
	}
	p, perr := spec.LoadProfile(prof)
	if perr != nil {
		t.Fatal(perr)
	}
	res := p.Entries[0].Residuals.TTFT
	if res.N != 2 || 3.078*res.RMS*math.Sqrt(1.5) >= calibration.MinHalfWidth.TTFT {
		t.Fatalf("the example profile's TTFT residuals changed (%+v): adjust the test", res)
	}
	for _, c := range []struct {
		conc  string
		widen float64
	}{{"32", 1}, {"128", 1 + math.Ln2}} {
		out := calibratedQuickstart(t, c.conc)
		iv := out.Intervals
		if iv[report.KeyIntervalSource] != report.IntervalSourceCalibration || iv[report.KeyIntervalGroup] != "profile.json entries[0]" {
			t.Fatalf("concurrency %s: source %v group %v", c.conc, iv[report.KeyIntervalSource], iv[report.KeyIntervalGroup])
		}
		v := out.Summary[report.TTFT.Key(report.Mean)].(float64)
		half := calibration.MinHalfWidth.TTFT * c.widen
		lo, hi, _ := report.IntervalOf(iv, report.TTFT.Key(report.Mean))
		if math.Abs(lo-v*math.Exp(res.Mean-half)) > 1e-9*v || math.Abs(hi-v*math.Exp(res.Mean+half)) > 1e-9*v {
			t.Errorf("concurrency %s: TTFT interval [%v, %v], want %v·e^(%v ± %v)", c.conc, lo, hi, v, res.Mean, half)
		}
		if c.conc == "32" {
			got, err := canon.Pretty(iv)
			if err != nil {
				t.Fatal(err)
			}
			wantGolden(t, "testdata/quickstart_calibrated_intervals.json", got)
		}
	}
}

// A fitted hand-off term may remove up to the deployment's whole default hand-off latency
// (the fit's floor, calibration.Floor); predicting with the profile checks the same floor,
// against the default latency and not the one the profile already lowered: −0.75 of the
// default is applied, −1.25 of it refused naming the field.
func TestHandoffFloorIsTheDefaultLatency(t *testing.T) {
	data, err := os.ReadFile("measure/testdata/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	out, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "runs.csv", Data: data}}})
	if err != nil {
		t.Fatal(err)
	}
	var row NamedFile
	for _, f := range out.RowConfigs {
		if strings.Contains(f.Name, "disagg") {
			row = f
		}
	}
	def := perf.HandoffMs(spec.BackendVLLM)
	if row.Data == nil || def <= 0 {
		t.Fatalf("no disaggregated row configuration (%d) or no default hand-off (%g)", len(out.RowConfigs), def)
	}
	for _, c := range []struct {
		frac    float64
		refused bool
	}{{-0.75, false}, {-1.25, true}} {
		prof, perr := spec.LoadProfile(out.ProfileJSON)
		if perr != nil {
			t.Fatal(perr)
		}
		for i := range prof.Entries {
			if prof.Entries[i].Scope.Mode == spec.ModeDisaggregated {
				prof.Entries[i].Parameters.HandoffMs = c.frac * def
			}
		}
		pj, err := encodeProfile(prof)
		if err != nil {
			t.Fatal(err)
		}
		zero := 0.0
		_, err = Predict(Input{ConfigName: row.Name, ConfigYAML: row.Data, FixedWallTimeMs: &zero,
			Calibrations: []NamedFile{{Name: "calibration.json", Data: pj}}})
		if c.refused != (err != nil && strings.Contains(err.Error(), "parameters.handoff_ms")) {
			t.Errorf("handoff_ms %g (default %g): refused %v, want %v (%v)", c.frac*def, def, err != nil, c.refused, err)
		}
	}
}
