package simcore

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// oneSided08 is the draw of a range ratio of 0.8 in SGLang's and the InferenceX client's
// form: every length uniform in [0.8·L, L].
var oneSided08 = spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1}

// aggRows are the two aggregated rows of one deployment of the measured-runs fixture.
func aggRows(t *testing.T) []byte {
	t.Helper()
	csv, err := os.ReadFile("measure/testdata/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(csv), "\n")
	return []byte(lines[0] + lines[1] + lines[2])
}

// With --lengths, CSV rows (which record no draw) are replayed with that draw around their
// lengths: the fit report's uncalibrated means are exactly those of predicting the row
// configuration calibrate writes (configs/<row>.yaml carries the draw), they differ from the
// constant-length replay's, and the profile's scope records the draw (docs/calibration.md,
// "Length draws").
func TestCalibrationReplaysTheLengthDraw(t *testing.T) {
	agg := aggRows(t)
	drawn, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "m.csv", Data: agg}}, Lengths: oneSided08})
	if err != nil {
		t.Fatal(err)
	}
	constant, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "m.csv", Data: agg}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(drawn.RowConfigs) != 2 {
		t.Fatalf("%d row configurations, want 2", len(drawn.RowConfigs))
	}
	zero := 0.0
	for i, rc := range drawn.RowConfigs {
		if !strings.Contains(string(rc.Data), "distribution: uniform") || !strings.Contains(string(rc.Data), "min_ratio: 0.8") {
			t.Errorf("%s does not carry the draw:\n%s", rc.Name, rc.Data)
		}
		out, err := Predict(Input{ConfigName: rc.Name, ConfigYAML: rc.Data, FixedWallTimeMs: &zero})
		if err != nil {
			t.Fatal(err)
		}
		want, got := summaryMetrics(out.Summary), drawn.Fit[i].Uncalibrated
		if got != want {
			t.Errorf("%s: replayed %+v, predicting it gives %+v", rc.Name, got, want)
		}
		if c := constant.Fit[i].Uncalibrated; c.TTFT == got.TTFT || c.TPOT == got.TPOT {
			t.Errorf("%s: the drawn replay %+v equals the constant-length one %+v in TTFT or TPOT", rc.Name, got, c)
		}
	}
	p, perr := spec.LoadProfile(drawn.ProfileJSON)
	if perr != nil {
		t.Fatal(perr)
	}
	if l := p.Entries[0].Scope.Lengths; l == nil || *l != oneSided08 {
		t.Errorf("profile scope lengths %v, want %v", l, oneSided08)
	}
	if compact := strings.Join(strings.Fields(string(drawn.ProfileJSON)), ""); !strings.Contains(compact, `"lengths":{"distribution":"uniform","max_ratio":1.0,"min_ratio":0.8}`) {
		t.Errorf("profile JSON:\n%s", drawn.ProfileJSON)
	}
	if !strings.Contains(drawn.Table, "entry 0: meta-llama/Meta-Llama-3.1-8B on h200_sxm, vllm 0.11.0, aggregated, lengths uniform [0.8, 1]·L\n") {
		t.Errorf("the fit report does not name the draw:\n%s", drawn.Table)
	}
	if strings.Contains(string(constant.ProfileJSON), "lengths") || strings.Contains(constant.Table, "lengths") {
		t.Error("a constant-length profile names lengths")
	}
}

// An AIPerf export records its synthetic prompts' draw (mean 1000, stddev 100: a normal of
// σ 0.1·ISL): calibrate replays it without a flag and the scope says so; a --lengths that
// contradicts it is exit 2 naming the file.
func TestCalibrationReadsTheRecordedDraw(t *testing.T) {
	aiperf, err := os.ReadFile("measure/testdata/profile_export_aiperf_stddev.json")
	if err != nil {
		t.Fatal(err)
	}
	in := CalibrateInput{ConfigName: "c.yaml", ConfigYAML: []byte(roundTripConfig), Measurements: []NamedFile{{Name: "a.json", Data: aiperf}}}
	out, err := Calibrate(in)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := spec.LoadProfile(out.ProfileJSON)
	want := spec.Lengths{Distribution: spec.LengthsNormal, InputStddevRatio: 0.1}
	if l := p.Entries[0].Scope.Lengths; l == nil || *l != want {
		t.Errorf("scope lengths %v, want %v", l, want)
	}
	if d := p.Entries[0].Domain.ISL; d != [2]float64{1000, 1000} {
		t.Errorf("domain isl %v, want the configured mean [1000, 1000]", d)
	}
	in.Lengths = oneSided08
	_, err = Calibrate(in)
	var me *measure.Error
	if !errors.As(err, &me) || me.File != "a.json" || !strings.Contains(me.Msg, "records the length draw normal σ 0.1·ISL, 0·OSL but --lengths gives uniform [0.8, 1]·L") {
		t.Errorf("conflicting --lengths: %v", err)
	}
}

// A profile fitted on a draw, applied to a prediction of the same draw, is in scope; applied
// to constant lengths the scope differs in lengths: a warning naming both draws, bands twice
// as wide, and --strict-calibration refuses it (docs/calibration.md, "Length draws").
func TestPredictionOfAnotherDrawIsFlagged(t *testing.T) {
	agg := aggRows(t)
	cal, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "m.csv", Data: agg}}, Lengths: oneSided08})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := measure.Read("m.csv", agg)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	predictRow := func(l spec.Lengths, strict bool) (*Output, error) {
		m := ms[0]
		m.Lengths = l
		return Predict(Input{ConfigName: "row.yaml", ConfigYAML: spec.EmitYAML(calibration.RowConfig(&m)), FixedWallTimeMs: &zero,
			Calibrations: []NamedFile{{Name: "calibration.json", Data: cal.ProfileJSON}}, StrictCalibration: strict})
	}
	same, err := predictRow(oneSided08, true)
	if err != nil {
		t.Fatalf("the same draw under --strict-calibration: %v", err)
	}
	if len(same.Warnings) != 0 {
		t.Errorf("the same draw warns: %v", same.Warnings)
	}
	other, err := predictRow(spec.Lengths{}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(other.Warnings) != 1 || !strings.Contains(other.Warnings[0], "differs in lengths: the prediction draws lengths constant, the entry was fitted on uniform [0.8, 1]·L") {
		t.Errorf("warnings %v", other.Warnings)
	}
	if compact := strings.Join(strings.Fields(string(other.PredictionJSON)), ""); !strings.Contains(compact, `"mismatched":["lengths"]`) {
		t.Errorf("the calibration section does not name lengths:\n%s", other.PredictionJSON)
	}
	// The TPOT band is the same residuals around another predicted value: its log half-width
	// doubles.
	key := report.TPOT.Key(report.Mean)
	width := func(o *Output) float64 {
		lo, hi, _ := report.IntervalOf(o.Intervals, key)
		return math.Log(hi / lo)
	}
	if r := width(other) / width(same); math.Abs(r-2) > 1e-9 {
		t.Errorf("TPOT band %.4f times as wide, want 2", r)
	}
	_, err = predictRow(spec.Lengths{}, true)
	var me *measure.Error
	if !errors.As(err, &me) || !strings.Contains(me.Msg, "--strict-calibration") || !strings.Contains(me.Msg, "lengths") {
		t.Errorf("strict: %v", err)
	}
}
