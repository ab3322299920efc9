package simcore

import (
	"os"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// The surrogate a disaggregated fit takes its steps on exists for a disaggregated
// closed loop only, and moves the way its replay moves: a slower prefill lengthens TTFT and
// leaves TPOT, a slower decode lengthens TPOT, and the surrogate's relative change is within
// a factor of two of the replay's (the fit takes its relative changes, docs/calibration.md,
// "Steps from the surrogate").
func TestMeasurementSurrogateFollowsTheReplay(t *testing.T) {
	data, err := os.ReadFile("measure/testdata/runs.csv")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := measure.Read("runs.csv", data)
	if err != nil {
		t.Fatal(err)
	}
	disaggregated := 0
	for i := range ms {
		p, err := prepareMeasurement(&CalibrateInput{}, &ms[i])
		if err != nil {
			t.Fatal(err)
		}
		sur, err := measurementSurrogate(p)
		if err != nil {
			t.Fatal(err)
		}
		if (sur != nil) != (p.scope.Mode == spec.ModeDisaggregated) {
			t.Fatalf("%s (%s): surrogate %v", ms[i].ID, p.scope.Mode, sur != nil)
		}
		if sur == nil {
			continue
		}
		disaggregated++
		p.stopWindows = -1 // replays run to the end: the finite difference is the model's alone
		base, err := replayMeasurement(p, calibration.Identity)
		if err != nil {
			t.Fatal(err)
		}
		s0 := sur(calibration.Identity)
		for _, c := range []struct {
			k      int
			metric string
		}{{calibration.PrefillScale, "TTFT"}, {calibration.DecodeScale, "TPOT"}} {
			q := calibration.Identity
			q[c.k] += 0.2
			got, err := replayMeasurement(p, q)
			if err != nil {
				t.Fatal(err)
			}
			s1 := sur(q)
			rel := func(a, b calibration.Metrics) float64 {
				if c.metric == "TTFT" {
					return b.TTFT/a.TTFT - 1
				}
				return b.TPOT/a.TPOT - 1
			}
			r, s := rel(base, got), rel(s0, s1)
			t.Logf("%s %s +0.2: replay %+.3f, surrogate %+.3f", ms[i].ID, calibration.ParamNames[c.k], r, s)
			if !(r > 0 && s > 0 && s < 2*r && r < 2*s) {
				t.Errorf("%s: %s +0.2 moves %s by %+.3f in the replay and %+.3f in the surrogate", ms[i].ID, calibration.ParamNames[c.k], c.metric, r, s)
			}
		}
		if q := (calibration.Params{calibration.PrefillScale: 1.2, calibration.DecodeScale: 1}); sur(q).TPOT != s0.TPOT {
			t.Errorf("%s: a slower prefill moved the surrogate's TPOT %g → %g", ms[i].ID, s0.TPOT, sur(q).TPOT)
		}
	}
	if disaggregated == 0 {
		t.Fatal("no disaggregated row: the test does not test")
	}
}
