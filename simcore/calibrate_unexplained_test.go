package simcore

import (
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
)

// A measurement warns when its profile misses its mean TTFT or TPOT by more than
// UnexplainedTolerance of it, either way: 15 % exactly is within the repeat spread, 15.1 %
// beyond it; each metric warns on its own, naming the measurement, its load and the signed miss.
func TestUnexplainedWarningsAtTheTolerance(t *testing.T) {
	point := func(id string) *measuredPoint {
		return &measuredPoint{m: &measure.Measurement{File: "runs.csv", ID: id, Concurrency: 8, TTFT: 100, TPOT: 10}}
	}
	ps := []*measuredPoint{point("exact"), point("above"), point("below"), point("tpot")}
	calibrated := []calibration.Metrics{
		{TTFT: 115, TPOT: 8.5},
		{TTFT: 115.1, TPOT: 10},
		{TTFT: 84.9, TPOT: 10},
		{TTFT: 100, TPOT: 11.6},
	}
	ws := unexplainedWarnings(ps, calibrated)
	want := []string{
		"runs.csv above (concurrency 8): the profile gives a mean TTFT of 115.1 ms against the 100.0 ms measured (+15.1 %), beyond the 15 %",
		"runs.csv below (concurrency 8): the profile gives a mean TTFT of 84.9 ms against the 100.0 ms measured (-15.1 %), beyond the 15 %",
		"runs.csv tpot (concurrency 8): the profile gives a mean TPOT of 11.60 ms against the 10.00 ms measured (+16.0 %), beyond the 15 %",
	}
	if len(ws) != len(want) {
		t.Fatalf("%d warnings, want %d: %q", len(ws), len(want), ws)
	}
	for i := range want {
		if !strings.HasPrefix(ws[i], want[i]) {
			t.Errorf("warning %d:\n%s\nwant prefix\n%s", i, ws[i], want[i])
		}
	}
}
