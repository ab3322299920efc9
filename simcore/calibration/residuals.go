package calibration

import (
	"math"

	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// MeasuredMetrics are the means a measurement gives the fit and the residuals. A file that
// does not record the mean end-to-end latency gives TTFT + (OSL − 1)·TPOT (how the
// benchmark clients define TPOT per request); one that does not record the output throughput
// gives, for a closed loop, concurrency·OSL / E2E (Little's law), for an open loop rate·OSL;
// OSL the run's mean output length (measure.Measurement.MeanLengths).
func MeasuredMetrics(m *measure.Measurement) Metrics {
	x := Metrics{TTFT: m.TTFT, TPOT: m.TPOT, E2E: m.E2E, OutputThroughput: m.OutputThroughput}
	_, osl := m.MeanLengths()
	if x.E2E == 0 {
		x.E2E = m.TTFT + float64(float64(osl-1)*m.TPOT)
	}
	if x.OutputThroughput == 0 {
		if m.Concurrency > 0 {
			x.OutputThroughput = float64(float64(m.Concurrency)*float64(osl)) / x.E2E * 1000
		} else {
			x.OutputThroughput = m.RequestRate * float64(osl)
		}
	}
	return x
}

// Residuals summarises r = ln(measured / calibrated) of every metric over the points.
func Residuals(measured, calibrated []Metrics) spec.ProfileResiduals {
	band := func(get func(Metrics) float64) spec.ProfileBand {
		var b spec.ProfileBand
		var sum, sq float64
		for i := range measured {
			m, c := get(measured[i]), get(calibrated[i])
			if m <= 0 || c <= 0 {
				continue
			}
			r := xmath.Log(m / c)
			if b.N == 0 || r < b.Min {
				b.Min = r
			}
			if b.N == 0 || r > b.Max {
				b.Max = r
			}
			sum += r
			sq += float64(r * r)
			b.N++
		}
		if b.N > 0 {
			b.Mean = sum / float64(b.N)
			b.RMS = math.Sqrt(sq / float64(b.N))
		}
		return b
	}
	return spec.ProfileResiduals{
		TTFT:             band(func(x Metrics) float64 { return x.TTFT }),
		TPOT:             band(func(x Metrics) float64 { return x.TPOT }),
		E2E:              band(func(x Metrics) float64 { return x.E2E }),
		OutputThroughput: band(func(x Metrics) float64 { return x.OutputThroughput }),
	}
}

// Domain is the validity domain of measurements: the ranges of closed-loop concurrency,
// open-loop rate, ISL and OSL they cover (for a drawn workload the lengths the draw is
// around, measure.Measurement.DrawLengths, which a prediction's configured lengths are
// checked against).
func Domain(ms []*measure.Measurement) spec.ProfileDomain {
	var d spec.ProfileDomain
	widen := func(r *[2]float64, v float64, first bool) {
		if first {
			*r = [2]float64{v, v}
			return
		}
		r[0], r[1] = min(r[0], v), max(r[1], v)
	}
	nc, nr := 0, 0
	for i, m := range ms {
		if m.Concurrency > 0 {
			widen(&d.Concurrency, float64(m.Concurrency), nc == 0)
			nc++
		} else {
			widen(&d.RequestRate, m.RequestRate, nr == 0)
			nr++
		}
		isl, osl := m.DrawLengths()
		widen(&d.ISL, float64(isl), i == 0)
		widen(&d.OSL, float64(osl), i == 0)
	}
	return d
}
