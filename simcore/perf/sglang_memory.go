package perf

import (
	"math"

	"aisimulate/simcore/spec"
)

// SGLang's default mem_fraction_static (docs/timing.md "Memory model and KV capacity"). SGLang
// derives it at start-up from the GPU's memory: it reserves room for activations and CUDA
// graphs outside the static pool (weights + KV cache) and takes the rest:
//
//	reserved_MiB = 512 + 1.5·chunked_prefill + tp·pp/8·1024 + 2·graph_max_bs
//	               (+ 3·graph_max_bs·dp, and + 1.5·graph_max_bs·dp when graph_max_bs > 300,
//	               with data-parallel attention), at least 10 GiB on GPUs over 60 GiB
//	fraction     = round((capacity_MiB − reserved_MiB) / capacity_MiB, 3)
//
// where the GPU-memory tier sets chunked_prefill (the prefill-activation size) and
// graph_max_bs (the largest CUDA-graph batch): < 20 GiB 2048 / 8; < 35 GiB 2048 / 24 (80 at
// tp ≥ 4); < 60 GiB 4096 / 32 (160); < 160 GiB 8192 / 256 (512); else 16384 / 512. tp is
// SGLang's tensor size — every GPU of the worker, tensor × attention_data — and dp the
// attention-DP size. This is SGLang's ServerArgs GPU-memory heuristic (release 0.5.16), which
// the reference estimator reproduces; speculative-decoding and DeepEP reserves are not
// modelled (the MTP layer's weights are counted with the weights instead, WeightsMTP).

// sglangTier is one GPU-memory tier of the heuristic: GPUs below MaxMiB get these settings.
type sglangTier struct {
	maxMiB         float64
	chunkedPrefill float64
	graphMaxBS     float64 // tensor size < 4
	graphMaxBSWide float64 // tensor size ≥ 4
}

// sglangTiers are the tiers in ascending memory (MiB); the last has no upper bound.
var sglangTiers = [...]sglangTier{
	{20 * 1024, 2048, 8, 8},        // T4, RTX 4080
	{35 * 1024, 2048, 24, 80},      // A10, L4, RTX 4090
	{60 * 1024, 4096, 32, 160},     // A100 40G, L40S
	{160 * 1024, 8192, 256, 512},   // A100 80G, H100, H200
	{math.Inf(1), 16384, 512, 512}, // B200, GB200, B300, GB300
}

// SGLangMemFractionStatic is SGLang's default mem_fraction_static on a GPU of capacityBytes
// for one worker of parallelism par (the heuristic above).
func SGLangMemFractionStatic(capacityBytes int64, par spec.Parallelism) float64 {
	capMiB := float64(capacityBytes) / (1 << 20)
	tp := max(par.Tensor, 1) * max(par.AttentionData, 1)
	pp := max(par.Pipeline, 1)
	dp := max(par.AttentionData, 1)
	tier := sglangTiers[len(sglangTiers)-1]
	for _, t := range sglangTiers {
		if capMiB < t.maxMiB {
			tier = t
			break
		}
	}
	graphBS := tier.graphMaxBS
	if tp >= 4 {
		graphBS = tier.graphMaxBSWide
	}
	// Constant attention-backend metadata, prefill activations, CUDA graphs, and the slack
	// SGLang adds for large parallel sizes.
	reserved := 512 + 1.5*tier.chunkedPrefill + 2*graphBS + float64(tp*pp)/8*1024
	if dp > 1 {
		// Data-parallel attention pads its CUDA graphs per DP rank.
		reserved += 3 * graphBS * float64(dp)
		if graphBS > 300 {
			reserved += 1.5 * graphBS * float64(dp)
		}
	}
	if capMiB > 60*1024 {
		reserved = max(reserved, 10*1024)
	}
	return math.Round((capMiB-reserved)/capMiB*1000) / 1000
}
