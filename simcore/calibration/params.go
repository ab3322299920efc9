// Package calibration fits a calibration profile to measurements and applies one to a
// prediction (docs/calibration.md). Fitting is pure and deterministic: it is handed the
// measurements and a function that replays one under given parameters (the simulator), and
// returns the parameters, their residuals and the profile; applying is matching a role to a
// profile entry, checking the parameters against the role's physical floor and turning the
// entry's residuals into interval bands.
package calibration

import (
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// Params are the fitted terms in the order the fit solves them: the prefill and decode op
// sums' scales (1 = the default model), the time added to every prefill and every decode
// pass, to the frontend latency and to each disaggregated hand-off (ms), and the factor on
// the KV capacity (1 = the configuration's), the serving frontend's serial time per request
// (ms; 0 = none) and the cap on the requests a disaggregated decode rank runs at once (0 =
// none). The last three are not Gauss–Newton terms: FitAt holds them fixed
// (docs/calibration.md, "KV capacity", "Frontend queue" and "Decode batch cap").
type Params [NumParams]float64

// Indices of Params.
const (
	PrefillScale = iota
	PrefillPassMs
	DecodeScale
	DecodePassMs
	FrontendMs
	HandoffMs
	KVCapacityScale
	FrontendServiceMs
	DecodeMaxSequences
	NumParams
)

// ParamNames are the profile's names of Params (spec.ProfileParameters' JSON keys).
var ParamNames = [NumParams]string{"prefill_scale", "prefill_pass_ms", "decode_scale", "decode_pass_ms", "frontend_ms", "handoff_ms", "kv_capacity_scale", "frontend_service_ms", "decode_max_sequences"}

// Fields calls f with each parameter's profile name and value in ParamNames order, leaving
// out the KV-capacity scale when it is 1, the frontend service time when it is 0 and the
// decode batch cap when there is none: outputs show them, as the profile writes them, only
// when the fit changed them.
func (p Params) Fields(f func(name string, v float64)) {
	for k, name := range ParamNames {
		if k == KVCapacityScale && p[k] == 1 || (k == FrontendServiceMs || k == DecodeMaxSequences) && p[k] == 0 {
			continue
		}
		f(name, p[k])
	}
}

// Tree is the parameters as outputs show them (Fields' names and values), the decode batch
// cap as the whole number the profile writes.
func (p Params) Tree() map[string]any {
	t := map[string]any{}
	p.Fields(func(name string, v float64) { t[name] = v })
	if n := p[DecodeMaxSequences]; n > 0 {
		t[ParamNames[DecodeMaxSequences]] = int(n)
	}
	return t
}

// Identity is the default model: scales 1, nothing added.
var Identity = Params{PrefillScale: 1, DecodeScale: 1, KVCapacityScale: 1}

// FromProfile reads an entry's parameters (a profile without kv_capacity_scale keeps the
// capacity: 1; one without frontend_service_ms has no frontend queue: 0; one without
// decode_max_sequences caps nothing: 0).
func FromProfile(p spec.ProfileParameters) Params {
	kv, fs, seqs := 1.0, 0.0, 0.0
	if p.KVCapacityScale != nil {
		kv = *p.KVCapacityScale
	}
	if p.FrontendServiceMs != nil {
		fs = *p.FrontendServiceMs
	}
	if p.DecodeMaxSequences != nil {
		seqs = float64(*p.DecodeMaxSequences)
	}
	return Params{p.PrefillScale, p.PrefillPassMs, p.DecodeScale, p.DecodePassMs, p.FrontendMs, p.HandoffMs, kv, fs, seqs}
}

// Profile is the profile's form of the parameters; the KV-capacity scale, the frontend
// service time and the decode batch cap are written only when the fit changed them.
func (p Params) Profile() spec.ProfileParameters {
	out := spec.ProfileParameters{PrefillScale: p[PrefillScale], PrefillPassMs: p[PrefillPassMs], DecodeScale: p[DecodeScale],
		DecodePassMs: p[DecodePassMs], FrontendMs: p[FrontendMs], HandoffMs: p[HandoffMs]}
	if kv := p[KVCapacityScale]; kv != 1 {
		out.KVCapacityScale = &kv
	}
	if fs := p[FrontendServiceMs]; fs != 0 {
		out.FrontendServiceMs = &fs
	}
	if n := int(p[DecodeMaxSequences]); n > 0 {
		out.DecodeMaxSequences = &n
	}
	return out
}

// Correction is the timing-model correction of the parameters (the hand-off term is not a
// role's: the caller adds it to the hand-off latency; the KV-capacity scale is the
// lowering's, not the timing model's).
func (p Params) Correction() perf.Correction {
	return perf.Correction{PrefillScaleDelta: p[PrefillScale] - 1, DecodeScaleDelta: p[DecodeScale] - 1,
		PrefillPassMs: p[PrefillPassMs], DecodePassMs: p[DecodePassMs], FrontendMs: p[FrontendMs]}
}

// Floor is the lowest physical value of each parameter for a role's default model
// (perf.Default.CorrectionFloor), with handoffMs the default hand-off latency it may at
// most remove.
func Floor(c perf.Correction, handoffMs float64) Params {
	return Params{PrefillScale: 1 + c.PrefillScaleDelta, PrefillPassMs: c.PrefillPassMs, DecodeScale: 1 + c.DecodeScaleDelta,
		DecodePassMs: c.DecodePassMs, FrontendMs: c.FrontendMs, HandoffMs: -handoffMs, KVCapacityScale: spec.MinProfileKVScale}
}

// Ceiling is the highest value of each parameter the fit may reach (spec's profile ranges).
var Ceiling = Params{spec.MaxProfileScale, spec.MaxProfilePassMs, spec.MaxProfileScale, spec.MaxProfilePassMs, spec.MaxProfileLatMs, spec.MaxProfileLatMs, spec.MaxProfileKVScale, spec.MaxProfileFrontendServiceMs, spec.MaxProfileDecodeSequences}

// holding is p with the held parameters (those FitAt does not descend on) taken from h.
func (p Params) holding(h Params) Params {
	p[KVCapacityScale], p[FrontendServiceMs], p[DecodeMaxSequences] = h[KVCapacityScale], h[FrontendServiceMs], h[DecodeMaxSequences]
	return p
}

// Tighter is the elementwise larger of two floors (a parameter shared by several roles must
// respect every role's floor).
func (p Params) Tighter(q Params) Params {
	for i := range p {
		p[i] = max(p[i], q[i])
	}
	return p
}

// Below names the first parameter under its floor, or "" when none is.
func (p Params) Below(floor Params) (name string, value, min float64) {
	for i := range p {
		// A relative slack of 1e-9 keeps a fitted value sitting exactly on its floor, written
		// and read back through JSON, on the right side of it.
		if p[i] < floor[i]-1e-9*max(1, abs(floor[i])) {
			return ParamNames[i], p[i], floor[i]
		}
	}
	return "", 0, 0
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
