package perf

import (
	"testing"

	"aisimulate/simcore/spec"
)

// MTP pricing (docs/semantics/simulation.md §5.4): the default model prices a decode step of b requests as
// the AIC model does, one step at batch b × (1 + nextn) reading (1 + nextn) × the KV, scaled
// by (nextn + layers) / layers; nextn 0 leaves a model untouched; prefill is never scaled.
func TestMTPDefaultPricing(t *testing.T) {
	base := mustTiming(t, "meta-llama/Meta-Llama-3.1-8B-Instruct", "h200_sxm", "vllm", spec.Parallelism{Tensor: 1}, Quant{}).(*Default)
	if WithMTP(base, 0) != Timing(base) {
		t.Error("nextn 0 wrapped the model")
	}
	m := WithMTP(base, 2).(*Default)
	layers := float64(base.s.m.Layers) // 32
	want := (2 + layers) / layers * base.DecodeRawMs(12, 12*1500, 1500)
	if got := m.DecodeRawMs(4, 4*1500, 1500); got != want {
		t.Errorf("nextn 2 decode step %.17g ms, want %.17g", got, want)
	}
	if m.DecodeMs(4, 6000, 1500, 1e6) <= base.DecodeMs(4, 6000, 1500, 1e6) {
		t.Error("drafts cost nothing")
	}
	if m.PrefillMs(2, 1000, 0) != base.PrefillMs(2, 1000, 0) {
		t.Error("prefill changed")
	}
	if base.nextn != 0 {
		t.Error("WithMTP modified its argument")
	}
}

// Other models see batch and active KV multiplied by 1 + nextn: the polynomial decode curve
// moves with the KV occupancy, the fixed model's decode part does not change.
func TestMTPOtherModelsPricing(t *testing.T) {
	p := WithMTP(Polynomial{}, 3)
	if got, want := p.DecodeMs(4, 400, 100, 10000), (Polynomial{}).DecodeMs(16, 1600, 100, 10000); got != want {
		t.Errorf("polynomial %.17g, want %.17g", got, want)
	}
	if got, want := p.PrefillMs(1, 512, 0), (Polynomial{}).PrefillMs(1, 512, 0); got != want {
		t.Errorf("polynomial prefill %.17g, want %.17g", got, want)
	}
	f := WithMTP(Fixed{Prefill: 3, Decode: 2}, 1)
	if f.DecodeMs(7, 700, 100, 1000) != 2 || f.PrefillMs(1, 10, 0) != 3 {
		t.Error("fixed timing changed by MTP")
	}
	ends := f.DecodeRun(2, 10, 1000, 0, 100, 3, nil)
	if len(ends) != 3 || ends[2] != 6 {
		t.Errorf("fixed decode run %v, want [2 4 6]", ends)
	}
}

// The default acceptance rates are one per draft, in [0, 1], fresh copies.
func TestDefaultAcceptRates(t *testing.T) {
	for n := 0; n <= spec.MaxNextN; n++ {
		r := DefaultAcceptRates(n)
		if len(r) != n {
			t.Fatalf("nextn %d: %d rates", n, len(r))
		}
		for _, p := range r {
			if p < 0 || p > 1 {
				t.Errorf("nextn %d: rate %g", n, p)
			}
		}
	}
	DefaultAcceptRates(2)[0] = 0
	if DefaultAcceptRates(2)[0] != 0.85 {
		t.Error("defaults shared with a caller")
	}
}

// MTP changes what the GPU computes, not the client-visible frontend latency.
func TestMTPKeepsFrontendLatency(t *testing.T) {
	for _, inner := range []Timing{Fixed{Prefill: 1, Decode: 1, Frontend: 5}, Polynomial{Frontend: 5}} {
		if got := WithMTP(inner, 2).FrontendMs(100); got != 5 {
			t.Errorf("%T: frontend %v with MTP, want 5", inner, got)
		}
	}
}

// With engine.nextn > 0 the MTP draft layer's weights are resident. DeepSeek-R1 FP8 (block)
// TP8, by hand, per GPU: MLA attention q_a 1536·7168 + q_b 16·192·1536 + kv_a 576·7168 +
// kv_b 16·256·512 + o 7168·16·128 = 36,634,624 B at 1 byte; router 256·7168·2 = 3,670,016 B;
// shared expert (2·256 + 256)·7168 = 5,505,024 B; 256 routed experts of (512 + 256)·7168 =
// 1,409,286,144 B; eh_proj 2·7168·7168·2 = 205,520,896 B: 1,660,616,704 B in all.
func TestMTPWeightsExact(t *testing.T) {
	ds := mustModel(t, "deepseek-ai/DeepSeek-R1")
	hw := mustHW(t, "b200_sxm")
	par := spec.Parallelism{Tensor: 8}
	base, err := memoryFor(ds, hw, "trtllm", par, Quant{}, MemorySettings{MaxBatchedTokens: 8192})
	if err != nil || base.MTPWeights != 0 {
		t.Fatalf("nextn 0: %+v %v", base, err)
	}
	for _, nextn := range []int{1, 3} { // one resident layer serves every draft
		mem, err := memoryFor(ds, hw, "trtllm", par, Quant{}, MemorySettings{MaxBatchedTokens: 8192, NextN: nextn})
		if err != nil || mem.MTPWeights != 1660616704 || mem.Weights != base.Weights+1660616704 || mem.KVBudget >= base.KVBudget {
			t.Fatalf("nextn %d: MTP weights %d (want 1660616704), weights %d vs %d, %v", nextn, mem.MTPWeights, mem.Weights, base.Weights, err)
		}
	}
	// TP1 parameter count: 11,610,030,080 ≈ 11.6 B (DeepSeek-V3's 14 B MTP module less the
	// embedding and head copies the servers share with the main model).
	if got := mtpWeightBytes(ds, spec.Parallelism{Tensor: 1, MoeTensor: 1, MoeExpert: 1}, Quant{Gemm: "bf16", MoE: "bf16"}, 1) / 2; got != 11610030080 {
		t.Errorf("MTP parameters %v, want 11610030080", got)
	}
}
