package perf

// Correction is what a calibration profile changes in the default timing model of one role
// (docs/calibration.md, "Parameters"): a few physically meaningful terms applied on top of
// whatever the model computes, never a table of points. The zero value changes nothing.
//
//	prefill part = g·f·(1 + PrefillScaleDelta)·op sum + pass overhead + PrefillPassMs + per-request costs
//	decode part  = g·f·(1 + DecodeScaleDelta)·op sum + pass overhead + DecodePassMs + per-sequence costs
//	frontend     = the model's frontend latency + FrontendMs
//
// where g·f are the backend's and the model family's calibrated factors and the op sum is
// the speed-of-light time of the part's operations divided by their efficiencies
// (docs/timing.md, "Forward-pass model").
type Correction struct {
	// PrefillScaleDelta and DecodeScaleDelta scale the compute and memory terms of the
	// prefill and decode parts by 1 + delta (stored as a delta so the zero value is neutral).
	PrefillScaleDelta, DecodeScaleDelta float64
	// PrefillPassMs and DecodePassMs are added to every non-empty part (host time per pass:
	// scheduling, kernel launches the op model does not see).
	PrefillPassMs, DecodePassMs float64
	// FrontendMs is added to the client-visible frontend latency of every request.
	FrontendMs float64
}

func (c Correction) prefillScale() float64 { return 1 + c.PrefillScaleDelta }
func (c Correction) decodeScale() float64  { return 1 + c.DecodeScaleDelta }

// SetCorrection applies a calibration profile's correction to the model.
func (d *Default) SetCorrection(c Correction) { d.c = c; d.forgetLast() }

// CorrectionFloor is the smallest value of each Correction term that keeps the role
// physical (docs/calibration.md, "Physical ranges"): a scaled op sum never runs faster than
// the hardware's peak — the combined factor g·f·scale stays at or above the largest op
// efficiency of the model (no operation beyond 100 % of the GPU's FLOPS or bandwidth) — and
// no pass overhead or frontend latency becomes negative.
func (d *Default) CorrectionFloor() Correction {
	o := d.ops
	top := max(o.MemEff, o.GemmEff, o.DecAttnEff, o.AttnEff)
	frontend := d.g.FrontendMs
	if d.frontendSet {
		frontend = d.frontend
	}
	return Correction{
		PrefillScaleDelta: top/(d.g.Prefill*d.f.Prefill) - 1,
		DecodeScaleDelta:  top/(d.g.Decode*d.f.Decode) - 1,
		PrefillPassMs:     -d.g.PrefillMs,
		DecodePassMs:      -d.g.DecodeMs,
		FrontendMs:        -frontend,
	}
}
