package calibration

import (
	"math"

	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
	"aisimulate/simcore/uncertainty"
)

// Inflation rule of calibrated bands (docs/calibration.md, "Calibrated intervals"). A
// profile's residuals are few and were fitted, so their spread understates the error of a
// new prediction. The 80 % band of a metric is
//
//	mean ± max(t₉₀(n − 1) · rms · √(1 + 1/n), floor) · (1 + extrapolation) · scope
//
// in r = ln(measured / predicted): the prediction interval of one more residual from n
// (Student's t for the few points), never narrower than the model's own error between
// calibrated loads (MinHalfWidthOf the entry's mode, measured per metric), widened by the log-distance the
// workload lies outside the validity domain (summed over load, ISL and OSL: twice the
// highest measured concurrency adds ln 2 ≈ 0.69), and doubled outside the profile's scope.

// MinHalfWidth is each metric's smallest calibrated band half-width (ln) for an aggregated
// deployment: the spread of the model's error between the loads a profile was fitted on,
// which its residuals at those loads cannot show (a two-point fit's residuals are about
// zero). Measured with tools/calibinterp on the measured-runs CSV's aggregated curves
// (docs/calibration.md, "Calibrated intervals"): the smallest floor at which the bands of the
// rows between each curve's two calibrated loads hold 80 % of their measured means.
var MinHalfWidth = MetricSpreads{TTFT: 0.145, TPOT: 0.041, E2E: 0.035, OutputThroughput: 0.035}

// MinHalfWidthDisaggregated is MinHalfWidth for a disaggregated deployment, measured the same
// way on the CSV's disaggregated curves without a measurement warning (28 curves, 56 rows;
// docs/calibration.md, "Calibrated intervals"): their errors between calibrated loads are
// wider (the hand-off, two pools).
var MinHalfWidthDisaggregated = MetricSpreads{TTFT: 0.205, TPOT: 0.056, E2E: 0.060, OutputThroughput: 0.060}

// MinHalfWidthOf is the floors of a profile entry of the given mode.
func MinHalfWidthOf(mode string) MetricSpreads {
	if mode == spec.ModeDisaggregated {
		return MinHalfWidthDisaggregated
	}
	return MinHalfWidth
}

// MetricSpreads is one log half-width per calibrated metric.
type MetricSpreads struct{ TTFT, TPOT, E2E, OutputThroughput float64 }

// ScopeInflation multiplies the band of a deployment outside the entry's scope.
const ScopeInflation = 2

// t90 are Student's t 90th percentiles for 1–10 degrees of freedom (tQuantile uses a
// Cornish–Fisher expansion beyond).
var t90 = [...]float64{3.078, 1.886, 1.638, 1.533, 1.476, 1.440, 1.415, 1.397, 1.383, 1.372}

// tQuantile is Student's t 90th percentile for df degrees of freedom (df < 1 uses 1).
func tQuantile(df int) float64 {
	if df < 1 {
		df = 1
	}
	if df <= len(t90) {
		return t90[df-1]
	}
	// Cornish–Fisher: z + (z³ + z)/(4·df) with z = 1.2816 (within 0.002 of the table from 10).
	z := 1.2816
	return z + (z*z*z+z)/(4*float64(df))
}

// ResidualHalfWidth is the half-width a profile entry's residuals of one metric give alone:
// the 80 % prediction interval of one more residual from their n, t₉₀(n − 1)·rms·√(1 + 1/n).
func ResidualHalfWidth(b spec.ProfileBand) float64 {
	n := max(b.N, 1)
	return tQuantile(n-1) * b.RMS * math.Sqrt(1+1/float64(n))
}

// Bands are the calibrated 80 % bands of an entry's residuals under the inflation rule, with
// the floors m (MinHalfWidthOf the entry's mode), for a prediction whose workload lies
// outside by the given log-distance and inside the scope or not.
func Bands(r spec.ProfileResiduals, m MetricSpreads, outsideLog float64, inScope bool) uncertainty.Bands {
	band := func(b spec.ProfileBand, least float64) uncertainty.Band {
		half := max(ResidualHalfWidth(b), least) * (1 + outsideLog)
		if !inScope {
			half *= ScopeInflation
		}
		return uncertainty.Band{P10: b.Mean - half, P90: b.Mean + half, N: b.N}
	}
	return uncertainty.Bands{TTFT: band(r.TTFT, m.TTFT), TPOT: band(r.TPOT, m.TPOT), E2E: band(r.E2E, m.E2E), OutputThroughput: band(r.OutputThroughput, m.OutputThroughput)}
}

// OutsideLog is how far a workload lies outside a validity domain: the sum over load, ISL
// and OSL of |ln(value / nearest bound)| for the values outside their range.
func OutsideLog(d spec.ProfileDomain, w Workload) float64 {
	dist := func(v float64, r [2]float64) float64 {
		switch {
		case v <= 0 || r[0] <= 0:
			return 0
		case v < r[0]:
			return xmath.Log(r[0] / v)
		case v > r[1]:
			return xmath.Log(v / r[1])
		}
		return 0
	}
	s := dist(w.ISL, d.ISL) + dist(w.OSL, d.OSL)
	switch {
	case w.Concurrency > 0 && d.Concurrency[1] > 0:
		s += dist(w.Concurrency, d.Concurrency)
	case w.RequestRate > 0 && d.RequestRate[1] > 0:
		s += dist(w.RequestRate, d.RequestRate)
	default:
		s += 1 // a load kind never measured: as far as e times the range
	}
	return s
}
