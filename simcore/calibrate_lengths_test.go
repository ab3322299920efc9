package simcore

import (
	"errors"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// With a length spread, every measurement is replayed from its drawn trace: the fit report's
// uncalibrated means are exactly those of predicting the row's configuration from that trace
// (calibration.DrawnTrafficSets), and differ from the constant-length replay's (docs/calibration.md,
// "Replaying a measurement").
func TestCalibrationReplaysTheLengthDraw(t *testing.T) {
	csv, err := os.ReadFile("measure/testdata/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(csv), "\n")
	agg := []byte(lines[0] + lines[1] + lines[2]) // the two aggregated rows of one deployment
	drawn, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "m.csv", Data: agg}}, LengthSpread: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	constant, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "m.csv", Data: agg}}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := measure.Read("m.csv", agg)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	for i := range ms {
		m := &ms[i]
		in := Input{ConfigName: m.ID, ConfigYAML: spec.EmitYAML(calibration.RowConfig(m)), Sets: calibration.DrawnTrafficSets(m, "t.jsonl"),
			Files: overlayFS{name: "t.jsonl", data: calibration.DrawnTrace(m, 0.8)}, FixedWallTimeMs: &zero}
		stop := replayStop(m, 0)
		out, err := predictTuned(in, nil, func(p *replay.Plan) { p.Stop = stop }, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, got := replayMetrics(out.Summary, stop), drawn.Fit[i].Uncalibrated
		if got != want {
			t.Errorf("%s: replayed %+v, the drawn trace predicts %+v", m.ID, got, want)
		}
		if c := constant.Fit[i].Uncalibrated; c.TTFT == got.TTFT || c.TPOT == got.TPOT {
			t.Errorf("%s: the drawn replay %+v equals the constant-length one %+v in TTFT or TPOT", m.ID, got, c)
		}
	}
}

// A spread outside [0, 1) is refused, and so is a spread for an open-loop measurement (the
// drawn trace is replayed as a closed loop).
func TestCalibrationRefusesABadLengthSpread(t *testing.T) {
	csv, _ := os.ReadFile("measure/testdata/runs.csv")
	for _, s := range []float64{-0.1, 1, 1.5} {
		_, err := Calibrate(CalibrateInput{Measurements: []NamedFile{{Name: "m.csv", Data: csv}}, LengthSpread: s})
		var se *spec.Error
		if !errors.As(err, &se) || !strings.Contains(se.Msg, "(0, 1)") {
			t.Errorf("spread %g: %v, want a *spec.Error naming the range", s, err)
		}
	}
	open := []byte(`{"date": "20260301-120000", "backend": "vllm", "model_id": "meta-llama/Llama-3.1-8B-Instruct", "num_prompts": 100, "request_rate": 4, "completed": 100, "total_input_tokens": 102400, "total_output_tokens": 12800, "mean_ttft_ms": 50, "mean_tpot_ms": 7, "mean_e2el_ms": 940, "output_throughput": 500}`)
	_, err := Calibrate(CalibrateInput{ConfigName: "c.yaml", ConfigYAML: []byte(roundTripConfig), Measurements: []NamedFile{{Name: "open.json", Data: open}}, LengthSpread: 0.8})
	var me *measure.Error
	if !errors.As(err, &me) || me.File != "open.json" || !strings.Contains(me.Msg, "open loop") {
		t.Errorf("open loop with a spread: %v, want a *measure.Error on open.json", err)
	}
}
