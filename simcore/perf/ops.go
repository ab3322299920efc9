package perf

import (
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// opProbe builds a one-layer attention-only model so single ops can be priced in isolation
// (op-level calibration against measured kernel tables).
func opProbe(o OpCoef, hw *catalog.Hardware, heads, kvHeads, headDim, window int, kvQuant string) *Default {
	m := &catalog.Model{ID: "probe", Family: catalog.FamilyDense, Layers: 1, Hidden: heads * headDim, Heads: heads,
		KVHeads: kvHeads, HeadDim: headDim, Intermediate: 1, Vocab: 1, AttnLayers: 1}
	if window > 0 {
		m.AttnLayers, m.SlidingLayers, m.SlidingWindow = 0, 1, window
	}
	q := Quant{Gemm: "bf16", MoE: "bf16", KVCache: kvQuant, FMHA: "bf16", Comm: "half"}
	par := spec.Parallelism{Replicas: 1, Tensor: 1, Pipeline: 1, AttentionData: 1, MoeTensor: 1, MoeExpert: 1}
	return &Default{s: newShape(m, par, q), hw: hw, ops: o, g: GroupCoef{Prefill: 1, Decode: 1}}
}

// GemmOpMs is the modelled latency of one m×n×k GEMM in mode on hw under coefficients o.
func GemmOpMs(o OpCoef, hw *catalog.Hardware, m, n, k float64, mode string) float64 {
	d := &Default{hw: hw, ops: o}
	return d.gemm(m, n, k, mode)
}

// ContextAttnOpMs is the modelled latency of one prefill attention kernel (batch b, isl
// tokens, heads/kvHeads/headDim, sliding window 0 = full).
func ContextAttnOpMs(o OpCoef, hw *catalog.Hardware, b, isl, heads, kvHeads, headDim, window int, kvQuant string) float64 {
	d := opProbe(o, hw, heads, kvHeads, headDim, window, kvQuant)
	return d.prefillAttn(float64(b), float64(isl), 0)
}

// GenerationAttnOpMs is the modelled latency of one decode attention kernel over b
// sequences of kvLen cached tokens.
func GenerationAttnOpMs(o OpCoef, hw *catalog.Hardware, b, kvLen, heads, kvHeads, headDim, window int, kvQuant string) float64 {
	d := opProbe(o, hw, heads, kvHeads, headDim, window, kvQuant)
	return d.decodeAttn(float64(b), float64(b)*float64(kvLen))
}

// AllReduceOpMs is the modelled latency of one all-reduce of elems 16-bit elements over n GPUs.
func AllReduceOpMs(o OpCoef, hw *catalog.Hardware, n int, elems float64) float64 {
	if n <= 1 {
		return 0
	}
	nf := float64(n)
	return o.ARLatUs/1000 + float64(float64(2*(nf-1)/nf*elems*2)/(hw.IntraNodeBW*o.AREff)*1000)
}
