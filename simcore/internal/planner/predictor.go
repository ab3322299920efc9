package planner

import (
	"math"

	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// Predictor kinds of planner.load_predictor (docs/semantics/simulation.md §13.7).
const (
	PredictorConstant = "constant"
	PredictorKalman   = "kalman"
	PredictorARIMA    = "arima"
	PredictorProphet  = "prophet"
)

// Predictor forecasts the next value of a series observed once per throughput interval
// (docs/semantics/simulation.md §13.7). The zero value is not usable; build one with NewPredictor.
type Predictor struct {
	kind      string
	log1p     bool
	minPoints int
	window    int
	qLevel    float64
	qTrend    float64
	r         float64

	started bool      // a non-zero value has been seen (leading zeros are skipped)
	last    float64   // last accepted raw value
	vals    []float64 // accepted values, transformed (log1p) when configured

	// Kalman state [level, trend] and covariance.
	x0, x1             float64
	p00, p01, p10, p11 float64
}

// NewPredictor builds the predictor of the given kind with the planner's knobs (kind
// "constant", "kalman", "arima" or "prophet"; anything else behaves as constant).
func NewPredictor(kind string, cfg spec.Planner) *Predictor {
	p := &Predictor{kind: kind, log1p: cfg.LoadPredictorLog1p, window: cfg.ProphetWindowSize,
		qLevel: cfg.KalmanQLevel, qTrend: cfg.KalmanQTrend, r: cfg.KalmanR}
	switch kind {
	case PredictorKalman:
		p.minPoints = cfg.KalmanMinPoints
	case PredictorARIMA, PredictorProphet:
		p.minPoints = 5
	default:
		p.kind = PredictorConstant
		p.minPoints = 1
	}
	if p.minPoints < 1 {
		p.minPoints = 1
	}
	if p.window < 5 {
		p.window = 5
	}
	return p
}

// Add records the next observation (non-finite values count as 0; leading zeros are ignored).
func (p *Predictor) Add(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		v = 0
	}
	if !p.started {
		if v == 0 {
			return
		}
		p.started = true
	}
	p.last = v
	z := v
	if p.log1p {
		z = xmath.Log1p(v)
	}
	p.vals = append(p.vals, z)
	if p.kind == PredictorKalman {
		p.kalmanStep(z)
	}
}

// MinPoints is the number of observations the predictor needs before it forecasts (until
// then Predict repeats the last value).
func (p *Predictor) MinPoints() int { return p.minPoints }

// Points is the number of accepted observations.
func (p *Predictor) Points() int { return len(p.vals) }

// Predict is the one-step-ahead forecast, clamped ≥ 0; the last value (0 if none) until the
// predictor has its minimum number of points.
func (p *Predictor) Predict() float64 {
	n := len(p.vals)
	if n == 0 {
		return 0
	}
	if n < p.minPoints {
		return p.last
	}
	var f float64
	switch p.kind {
	case PredictorKalman:
		f = p.x0 + p.x1
	case PredictorARIMA:
		if p.allEqual() {
			return p.last
		}
		f = arimaForecast(p.vals)
	case PredictorProphet:
		w := p.vals
		if len(w) > p.window {
			w = w[len(w)-p.window:]
		}
		f = lineForecast(w)
	default:
		return p.last
	}
	if p.log1p {
		f = xmath.Expm1(f)
	}
	if f < 0 {
		f = 0
	}
	return f
}

func (p *Predictor) allEqual() bool {
	for _, v := range p.vals[1:] {
		if v != p.vals[0] {
			return false
		}
	}
	return true
}

// kalmanStep folds one point into the local-linear-trend filter: the first point initialises
// the state to [z, 0] with P = 1000·I; later points predict (x = Fx, P = FPFᵀ + Q) then update.
func (p *Predictor) kalmanStep(z float64) {
	if len(p.vals) == 1 {
		p.x0, p.x1 = z, 0
		p.p00, p.p01, p.p10, p.p11 = 1000, 0, 0, 1000
		return
	}
	// Predict.
	x0 := p.x0 + p.x1
	x1 := p.x1
	a00 := (p.p00 + p.p10) + (p.p01 + p.p11) + p.qLevel
	a01 := p.p01 + p.p11
	a10 := p.p10 + p.p11
	a11 := p.p11 + p.qTrend
	// Update.
	s := a00 + p.r
	k0 := a00 / s
	k1 := a10 / s
	y := z - x0
	p.x0 = x0 + float64(k0*y)
	p.x1 = x1 + float64(k1*y)
	p.p00 = float64((1 - k0) * a00)
	p.p01 = float64((1 - k0) * a01)
	p.p10 = a10 - float64(k1*a00)
	p.p11 = a11 - float64(k1*a01)
}

// arimaForecast is the ARIMA(1,1,0) approximation: φ = Σ δ_t δ_{t−1} / Σ δ_{t−1}² over the
// first differences, clamped to [−0.99, 0.99]; forecast x_n + φ·δ_n.
func arimaForecast(v []float64) float64 {
	n := len(v)
	var num, den float64
	for t := 2; t < n; t++ {
		d := v[t] - v[t-1]
		dp := v[t-1] - v[t-2]
		num += float64(d * dp)
		den += float64(dp * dp)
	}
	phi := 0.0
	if den != 0 {
		phi = num / den
	}
	phi = math.Max(-0.99, math.Min(0.99, phi))
	last := v[n-1] - v[n-2]
	return v[n-1] + float64(phi*last)
}

// lineForecast fits y = a + b·k (k = 0..n−1) by least squares and evaluates it at k = n.
func lineForecast(v []float64) float64 {
	n := len(v)
	kbar := float64(n-1) / 2
	var ybar float64
	for _, y := range v {
		ybar += y
	}
	ybar /= float64(n)
	var sxx, sxy float64
	for k, y := range v {
		dk := float64(k) - kbar
		sxx += float64(dk * dk)
		sxy += float64(dk * (y - ybar))
	}
	b := 0.0
	if sxx != 0 {
		b = sxy / sxx
	}
	return ybar + float64(b*(float64(n)-kbar))
}
