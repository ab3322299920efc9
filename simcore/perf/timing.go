// Package perf prices forward passes (timing models) and sizes KV caches (memory models).
package perf

// Timing prices one scheduler pass of a worker rank (simulation.md §5.1). Both answers are in
// milliseconds and never negative. The simulator calls each method at most once per pass.
type Timing interface {
	// PrefillMs is the prefill part of a pass in which batch requests compute prompt tokens;
	// meanISL and meanPrefix are the floor means of (cached+computed) prompt length and of
	// the prompt tokens already present before the pass.
	PrefillMs(batch, meanISL, meanPrefix int) float64
	// DecodeMs is the decode part of a pass with batch ready requests holding activeKV tokens
	// in total (meanContext = floor(activeKV/batch)) on a rank with totalKV token capacity.
	DecodeMs(batch int, activeKV int64, meanContext int, totalKV int64) float64
}

// Fixed is `timing: {type: fixed}`: constant prefill and decode parts whenever non-empty.
type Fixed struct {
	Prefill float64
	Decode  float64
}

// PrefillMs returns the configured prefill_ms when batch > 0.
func (f Fixed) PrefillMs(batch, meanISL, meanPrefix int) float64 {
	if batch <= 0 {
		return 0
	}
	return f.Prefill
}

// DecodeMs returns the configured decode_ms when batch > 0.
func (f Fixed) DecodeMs(batch int, activeKV int64, meanContext int, totalKV int64) float64 {
	if batch <= 0 {
		return 0
	}
	return f.Decode
}

// Polynomial is `timing: {type: polynomial}`, the Mocker's built-in curves
// (simulation.md §5.1): prefill quadratic in the new tokens T, decode quadratic in the KV
// occupancy p, floored at 1 ms.
type Polynomial struct{}

// PrefillMs is 4.209989e-07·T² + 1.518344e-02·T + 16.50142 with T = batch×(isl−prefix).
func (Polynomial) PrefillMs(batch, meanISL, meanPrefix int) float64 {
	if batch <= 0 {
		return 0
	}
	t := float64(batch) * float64(meanISL-meanPrefix)
	if t <= 0 {
		return 0
	}
	v := float64(float64(float64(4.209989e-07*t)*t)+float64(1.518344e-02*t)) + 16.50142
	if v < 0 {
		return 0
	}
	return v
}

// DecodeMs is max(1, −25.74·p² + 54.01·p + 5.74) with p = min(1, activeKV/totalKV).
func (Polynomial) DecodeMs(batch int, activeKV int64, meanContext int, totalKV int64) float64 {
	if batch <= 0 {
		return 0
	}
	p := 1.0
	if totalKV > 0 {
		p = float64(activeKV) / float64(totalKV)
		if p > 1 {
			p = 1
		}
	}
	v := float64(float64(float64(-25.74*p)*p)+float64(54.01*p)) + 5.74
	if v < 1 {
		return 1
	}
	return v
}
