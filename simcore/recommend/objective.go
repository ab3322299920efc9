package recommend

import "math"

// SummaryNumber is a summary metric as a float64 (integers converted), NaN when absent: how
// scoring reads a summary.
func SummaryNumber(summary map[string]any, key string) float64 {
	v, ok := summaryNumber(summary, key)
	if !ok {
		return math.NaN()
	}
	return v
}
