package recommend

import "math"

// ObjectiveValue is one named objective (a target name such as throughput_per_gpu) of a
// prediction summary, computed exactly as scoring computes it (docs/recommend.md, "Scoring and
// ranking"), NaN when the summary lacks the metric. Targets use it to place any simulated
// candidate on objective axes other than its own target's, such as the browser's Pareto chart.
func ObjectiveValue(name string, summary map[string]any, usedGPUs int) float64 {
	return objectiveValue(name, summary, usedGPUs)
}

// SummaryNumber is a summary metric as a float64 (integers converted), NaN when absent: how
// scoring reads a summary.
func SummaryNumber(summary map[string]any, key string) float64 {
	v, ok := num(summary, key)
	if !ok {
		return math.NaN()
	}
	return v
}
