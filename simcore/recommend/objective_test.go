package recommend

import (
	"math"
	"testing"
)

// ObjectiveValue is scoring's own formula: per GPU divides by the time-averaged GPUs
// gpu_hours / (duration_ms / 3.6e6); integers count as numbers; a missing metric is NaN.
func TestObjectiveValueIsScoringsFormula(t *testing.T) {
	s := map[string]any{"output_throughput_tok_s": 300.0, "gpu_hours": 1.5, "duration_ms": 1_800_000,
		"mean_output_token_throughput_per_user": 42}
	if v := ObjectiveValue("throughput_per_gpu", s, 8); v != 100 {
		t.Errorf("throughput_per_gpu = %v, want 300 / (1.5 / 0.5) = 100", v)
	}
	if v := ObjectiveValue("throughput_per_user", s, 8); v != 42 {
		t.Errorf("throughput_per_user = %v", v)
	}
	if v := ObjectiveValue("min_gpus", s, 8); v != 8 {
		t.Errorf("min_gpus = %v", v)
	}
	if v := ObjectiveValue("goodput", s, 8); !math.IsNaN(v) {
		t.Errorf("missing goodput = %v, want NaN", v)
	}
	if v := SummaryNumber(s, "duration_ms"); v != 1_800_000 {
		t.Errorf("SummaryNumber(int) = %v", v)
	}
	if v := SummaryNumber(s, "nope"); !math.IsNaN(v) {
		t.Errorf("SummaryNumber(missing) = %v", v)
	}
}
