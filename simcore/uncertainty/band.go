// Package uncertainty gives every prediction of the default timing model an honest 80 %
// interval: the spread of the model's measured error, r = ln(measured / predicted), on
// deployments it was not fitted on (docs/uncertainty.md). It holds the band types, the
// estimator that turns residuals into a band (weighted quantiles, shrinkage toward a parent
// group), the committed bands of the default model (bands.json, written by
// `make intervals`) and the one builder of prediction.json's `intervals` object.
package uncertainty

import "aisimulate/simcore/internal/xmath"

// Band is the 80 % band of r = ln(measured / predicted) for one metric: its 10th and 90th
// percentiles, and how many residuals it was estimated from.
type Band struct {
	P10 float64 `json:"p10"`
	P90 float64 `json:"p90"`
	N   int     `json:"n"`
}

// Bands holds the band of every metric that gets an interval.
type Bands struct{ TTFT, TPOT, E2E, OutputThroughput Band }

// Interval is the 80 % interval of a predicted value v: since r = ln(measured / v), the
// measurement lies in [v·e^P10, v·e^P90] whenever r lies in the band. Throughput bands are
// estimated on throughput residuals, so the same formula holds for them.
func (b Band) Interval(v float64) (p10, p90 float64) {
	return v * xmath.Exp(b.P10), v * xmath.Exp(b.P90)
}
