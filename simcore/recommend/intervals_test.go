package recommend

import (
	"math"
	"strings"
	"testing"

	"aisimulate/simcore/spec"
)

// cand is a simulated candidate of objective value v whose output throughput v has the
// interval [lo, hi] and whose mean TPOT 10 ms has [5, 20].
func cand(id string, v, lo, hi float64) *Candidate {
	return &Candidate{ID: id, Objectives: []float64{v},
		Summary: map[string]any{"output_throughput_tok_s": v, "mean_tpot_ms": 10.0},
		Intervals: map[string]any{
			"output_throughput_tok_s": map[string]any{"p10": lo, "p90": hi, "n": 5},
			"mean_tpot_ms":            map[string]any{"p10": 5.0, "p90": 20.0, "n": 5},
		}}
}

func TestObjectiveIntervalScalesWithItsMetric(t *testing.T) {
	c := cand("a", 1000, 800, 1500)
	if lo, hi, ok := ObjectiveInterval(c, []string{spec.TargetThroughput}, 0); !ok || lo != 800 || hi != 1500 {
		t.Errorf("throughput: [%v, %v] %v, want [800, 1500]", lo, hi, ok)
	}
	// Per GPU: the objective is throughput / GPUs, the ratio band is the same.
	c.Objectives = []float64{250}
	if lo, hi, ok := ObjectiveInterval(c, []string{spec.TargetThroughputPerGPU}, 0); !ok || lo != 200 || hi != 375 {
		t.Errorf("per GPU: [%v, %v] %v, want [200, 375]", lo, hi, ok)
	}
	// Per user moves as 1 / TPOT: TPOT ×0.5…×2 gives the rate ×0.5…×2, inverted ends.
	c.Objectives = []float64{100}
	if lo, hi, ok := ObjectiveInterval(c, []string{spec.TargetThroughputPerUser}, 0); !ok || lo != 50 || hi != 200 {
		t.Errorf("per user: [%v, %v] %v, want [50, 200]", lo, hi, ok)
	}
	if _, _, ok := ObjectiveInterval(c, []string{spec.TargetMinGPUs}, 0); ok {
		t.Error("min_gpus is exact: want no interval")
	}
	c.Intervals = nil
	if _, _, ok := ObjectiveInterval(c, []string{spec.TargetThroughput}, 0); ok {
		t.Error("no intervals (fixed timing): want none")
	}
	for _, v := range []float64{math.NaN(), 0} {
		c = cand("z", v, 1, 2)
		if _, _, ok := ObjectiveInterval(c, []string{spec.TargetGoodput}, 0); ok {
			t.Errorf("objective %v: want no interval", v)
		}
	}
}

func TestWithinErrorListsTheRanksThatOverlapRank1(t *testing.T) {
	rows := []Row{
		{Rank: 1, Candidate: cand("a", 1000, 900, 1200)},
		{Rank: 2, Candidate: cand("b", 950, 850, 1100)}, // overlaps
		{Rank: 3, Candidate: cand("c", 600, 500, 899)},  // ends below 900
		{Rank: 4, Candidate: cand("d", 590, 500, 900)},  // touches: overlaps
	}
	names := []string{spec.TargetThroughput}
	got := WithinError(rows, spec.TargetThroughput, names)
	if len(got) != 2 || got[0].ID != "b" || got[1].ID != "d" {
		t.Fatalf("WithinError = %v, want b and d", got)
	}
	text := WithinErrorText(rows, got, spec.TargetThroughput)
	if !strings.Contains(text, "of throughput of ranks 2, 4 overlap rank 1's") {
		t.Errorf("text = %q", text)
	}
	if text := WithinErrorText(rows, got[:1], spec.TargetThroughput); !strings.Contains(text, "of rank 2 overlaps rank 1's") {
		t.Errorf("one rank: %q", text)
	}
	if WithinError(rows, spec.TargetPareto, names) != nil || WithinErrorText(rows, nil, "x") != "" {
		t.Error("pareto / no overlap: want nothing")
	}
}
