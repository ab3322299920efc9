// Package perf prices forward passes (timing models) and sizes KV caches (memory models).
package perf

import "aisimulate/simcore/internal/grow"

// Timing prices one scheduler pass of a worker rank (docs/semantics/simulation.md §5.1). Both answers are in
// milliseconds and never negative. The simulator calls each method at most once per pass.
type Timing interface {
	// PrefillMs is the prefill part of a pass in which batch requests compute prompt tokens;
	// meanISL and meanPrefix are the floor means of (cached+computed) prompt length and of
	// the prompt tokens already present before the pass.
	PrefillMs(batch, meanISL, meanPrefix int) float64
	// DecodeMs is the decode part of a pass with batch ready requests holding activeKV tokens
	// in total (meanContext = floor(activeKV/batch)) on a rank with totalKV token capacity.
	DecodeMs(batch int, activeKV int64, meanContext int, totalKV int64) float64
	// DecodeRun prices a stretch of consecutive decode passes of one rank whose batch
	// requests hold kv tokens in the first pass and batch more in each one after: it appends
	// each pass's end to ends, the first starting at start and each next one at the previous
	// end, and stops after max passes or before a pass that would end at or after horizon or
	// take no time. It gives the ends a loop over DecodeMs gives (the fast-forward of steady
	// decode batches), without a dynamic call per pass.
	DecodeRun(batch int, kv, totalKV int64, start, horizon float64, max int, ends []float64) []float64
	// FrontendMs is the serving frontend's latency for a request of input length isl
	// (docs/semantics/simulation.md §5.3, client-visible time): it delays when the client sees each token
	// of the request and occupies no GPU; schedulers never see it. ≥ 0.
	FrontendMs(isl int) float64
}

// decodeRun is DecodeRun over model t's DecodeMs. The fixed model is switched on inside the
// loop so its DecodeMs is inlined (a generic loop would still call it through
// its dictionary); the switch costs a comparison per pass, the call it saves much more.
func decodeRun(t Timing, batch int, kv, totalKV int64, start, horizon float64, max int, ends []float64) []float64 {
	for i := 0; i < max; i++ {
		// meanContext is floor(kv/batch); unsigned, as signed division is a runtime call in
		// WebAssembly.
		mean := int(uint64(kv) / uint64(batch))
		var d float64
		switch m := t.(type) {
		case Fixed:
			d = m.DecodeMs(batch, kv, mean, totalKV)
		default:
			d = t.DecodeMs(batch, kv, mean, totalKV)
		}
		end := start + d
		if end >= horizon || end == start {
			break
		}
		if len(ends) == cap(ends) {
			ends = grow.Room(ends, 1)
		}
		ends = append(ends, end)
		start = end
		kv += int64(batch)
	}
	return ends
}

// Fixed is `timing: {type: fixed}`: constant prefill and decode parts whenever non-empty,
// and a constant frontend latency (`frontend_ms`, default 0).
type Fixed struct {
	Prefill  float64
	Decode   float64
	Frontend float64
}

// FrontendMs returns the configured frontend_ms.
func (f Fixed) FrontendMs(isl int) float64 { return f.Frontend }

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

// DecodeRun prices a stretch of decode passes (Timing.DecodeRun).
func (f Fixed) DecodeRun(batch int, kv, totalKV int64, start, horizon float64, max int, ends []float64) []float64 {
	return decodeRun(f, batch, kv, totalKV, start, horizon, max, ends)
}

// Polynomial is `timing: {type: polynomial}`, the Mocker's built-in curves
// (docs/semantics/simulation.md §5.1): prefill quadratic in the new tokens T, decode quadratic in the KV
// occupancy p, floored at 1 ms; Frontend is the configured `frontend_ms` (default 0).
type Polynomial struct {
	Frontend float64
}

// FrontendMs returns the configured frontend_ms.
func (p Polynomial) FrontendMs(isl int) float64 { return p.Frontend }

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

// DecodeRun prices a stretch of decode passes (Timing.DecodeRun). Its own loop, as the
// curve needs no mean context: without the generic loop's division and type switch per
// pass, pricing the Mooncake trace's 2.7 million passes in WebAssembly went from 0.22 s to
// 0.14 s. (The loop's tail repeats decodeRun's on purpose: decodeRun with a Polynomial case
// and no division measured 2.2× slower in wasm than this loop, and the shared tail as an
// inlined helper returning the slice 1.5× slower; re-measured with tools/wasmjumps applied,
// BenchmarkPolynomialDecodeRun: 17–19 ms per million passes here, 27–39 ms through a
// Polynomial case of decodeRun, 63–69 ms through its interface call.)
func (p Polynomial) DecodeRun(batch int, kv, totalKV int64, start, horizon float64, max int, ends []float64) []float64 {
	for i := 0; i < max; i++ {
		end := start + p.DecodeMs(batch, kv, 0, totalKV)
		if end >= horizon || end == start {
			break
		}
		if len(ends) == cap(ends) {
			ends = grow.Room(ends, 1)
		}
		ends = append(ends, end)
		start = end
		kv += int64(batch)
	}
	return ends
}
