package perf

import (
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// Multi-token prediction (MTP) pricing, docs/semantics/simulation.md §5.4: every decode request of a pass
// runs 1 + nextn tokens through the model (its newest token and nextn drafts to verify).

// defaultAcceptRates are engine.nextn_accept_rates when unset: the probability that draft i
// is accepted given draft i−1 was. Draft 1: 0.85, the DeepSeek-V3 technical report's
// 85–90 % acceptance of its MTP module's second token; drafts 2 and later: 0.6, which with
// nextn 3 gives 1 + 0.85 + 0.51 + 0.31 ≈ 2.67 tokens per step, close to the mean acceptance
// length of 2.49 a published SGLang DeepSeek-V4-Pro MTP benchmark measured (docs/timing.md).
var defaultAcceptRates = [spec.MaxNextN]float64{0.85, 0.6, 0.6, 0.6, 0.6}

// DefaultAcceptRates returns the default engine.nextn_accept_rates for nextn drafts.
func DefaultAcceptRates(nextn int) []float64 {
	return append([]float64(nil), defaultAcceptRates[:nextn]...)
}

// WithMTP returns t pricing every decode request as 1 + nextn tokens (t itself for nextn 0).
// The default model prices as the AIC model does (notes on aiconfigurator, MTP scaling): one
// generation step at batch × (1 + nextn) — token-major ops, LM head and attention KV reads
// all scale — with every op scaled by mtp_scale_factor = (nextn + layers) / layers for the
// MTP layers. Other models see batch and active KV tokens multiplied by 1 + nextn (the fixed
// model's decode part does not change).
func WithMTP(t Timing, nextn int) Timing {
	if nextn <= 0 {
		return t
	}
	if d, ok := t.(*Default); ok {
		c := *d
		c.nextn = nextn
		c.forgetLast() // d's remembered step was priced without the drafts
		return &c
	}
	return mtpTiming{inner: t, k: 1 + nextn}
}

// mtpTiming scales the decode queries of a timing model by k = 1 + nextn tokens per request.
type mtpTiming struct {
	inner Timing
	k     int
}

// PrefillMs is the inner model's: prompt tokens carry no drafts.
func (m mtpTiming) PrefillMs(batch, meanISL, meanPrefix int) float64 {
	return m.inner.PrefillMs(batch, meanISL, meanPrefix)
}

// DecodeMs prices batch × k decode rows reading k times the active KV; the mean context per
// request is unchanged.
func (m mtpTiming) DecodeMs(batch int, activeKV int64, meanContext int, totalKV int64) float64 {
	return m.inner.DecodeMs(batch*m.k, activeKV*int64(m.k), meanContext, totalKV)
}

// FrontendMs is the inner model's: drafts change what the GPU computes, not the frontend.
func (m mtpTiming) FrontendMs(isl int) float64 { return m.inner.FrontendMs(isl) }

// DecodeRun prices a stretch of decode passes (Timing.DecodeRun).
func (m mtpTiming) DecodeRun(batch int, kv, totalKV int64, start, horizon float64, max int, ends []float64) []float64 {
	return decodeRun(m, batch, kv, totalKV, start, horizon, max, ends)
}

// decodeStepMs is the default model's uncalibrated decode step of b requests holding ctx KV
// tokens in total, with MTP when d.nextn > 0 (see WithMTP).
func (d *Default) decodeStepMs(b, ctx float64) float64 {
	if d.nextn == 0 {
		terms, lm := d.decodeTerms(b)
		return d.forward(terms, lm, d.decodeAttn(b, ctx))
	}
	k := float64(1 + d.nextn)
	layers := float64(d.s.m.Layers)
	scale := (float64(d.nextn) + layers) / layers // AIC mtp_scale_factor
	terms, lm := d.decodeTerms(b * k)
	return float64(scale * d.forward(terms, lm, d.decodeAttn(b*k, ctx*k)))
}

// mtpWeightBytes is the per-GPU weight of the MTP draft layers that are resident when
// engine.nextn > 0 (0 otherwise). The model config gives the number of such layers
// (num_nextn_predict_layers / mtp_num_hidden_layers, at least 1: servers reuse one layer for
// every draft) but not their size, so it is derived from DeepSeek-V3's MTP module (its
// technical report §2.2): one decoder layer of the model's kind — full attention and, in MoE
// models, the routed and shared experts, sharded like the main layers and at their
// quantisation — plus the projection of the concatenated embedding and hidden state, 2h × h
// in bf16 on every GPU. The embedding and the output head are the main model's (SGLang and
// TensorRT-LLM share them with the draft), so they are not counted again. The draft layers sit
// on the last pipeline stage, so they are not divided by the pipeline size. DeepSeek-V3:
// 11.6 B parameters (the checkpoint's 14 B add its own copies of the embedding and head).
func mtpWeightBytes(m *catalog.Model, par spec.Parallelism, q Quant, nextn int) float64 {
	if nextn <= 0 {
		return 0
	}
	layer := *m
	layer.Layers, layer.AttnLayers = 1, 1
	layer.SlidingLayers, layer.LinearLayers, layer.FirstDenseLayers = 0, 0, 0
	layer.MoELayers = 0
	if m.Experts > 0 {
		layer.MoELayers = 1
	}
	layer.Vocab = 0
	one := newShape(&layer, spec.Parallelism{Tensor: par.Tensor, Pipeline: 1, AttentionData: par.AttentionData,
		MoeTensor: par.MoeTensor, MoeExpert: par.MoeExpert}, q)
	h := float64(m.Hidden)
	proj := 2 * h * h * weightBytes("bf16")
	return float64(max(m.MTPLayers, 1)) * (one.weightBytesPerGPU() + proj)
}
