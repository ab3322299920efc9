package perf

import (
	"errors"
	"strings"
	"testing"

	"aisimulate/simcore/spec"
)

// SGLang's default mem_fraction_static from the GPU's memory (SGLangMemFractionStatic), by hand:
// reserved MiB = 512 + 1.5·chunked_prefill + 2·graph_max_bs + tp·pp/8·1024 (+ DP padding),
// at least 10240 on GPUs over 60 GiB.
func TestSGLangMemFractionStatic(t *testing.T) {
	cases := []struct {
		hw   string
		par  spec.Parallelism
		want float64
	}{
		// 180 GiB = 184320 MiB, tier 16384 / 512: 512 + 24576 + 1024 + 128 = 26240 → 0.858
		// (the reference estimator's B200 figure).
		{"b200_sxm", spec.Parallelism{Tensor: 1}, 0.858},
		// 189472.5 MiB: 512 + 24576 + 1024 + 512 = 26624 → 0.8595 → 0.859.
		{"gb200", spec.Parallelism{Tensor: 4}, 0.859},
		// 141 GiB = 144384 MiB, tier 8192 / 256 (tp < 4): 512 + 12288 + 512 + 128 = 13440 → 0.907.
		{"h200_sxm", spec.Parallelism{Tensor: 1}, 0.907},
		// 80 GiB, tier 8192 / 512 (tp ≥ 4): 512 + 12288 + 1024 + 1024 = 14848 → 0.819.
		{"h100_sxm", spec.Parallelism{Tensor: 8}, 0.819},
		// DP attention 8 on B200 (SGLang's tp = 8): 512 + 24576 + 1024 + 1024 + 3·512·8 +
		// 1.5·512·8 = 45568 → 0.753.
		{"b200_sxm", spec.Parallelism{Tensor: 1, AttentionData: 8}, 0.753},
		// 24 GiB, tier 2048 / 24: 512 + 3072 + 48 + 128 = 3760 (no 10 GiB floor) → 0.847.
		{"l4", spec.Parallelism{Tensor: 1}, 0.847},
	}
	for _, c := range cases {
		if got := SGLangMemFractionStatic(mustHW(t, c.hw).MemBytes, c.par); got != c.want {
			t.Errorf("%s %+v: fraction %v, want %v", c.hw, c.par, got, c.want)
		}
	}
}

// Exact SGLang KV budgets on two GPUs: (capacity − runtime)·fraction − weights, activations
// not deducted (they live outside mem_fraction_static).
func TestSGLangKVBudgetExact(t *testing.T) {
	m := mustModel(t, "meta-llama/Meta-Llama-3.1-8B-Instruct")
	// runtime = 1.2 · 3.5 GiB = 4,509,715,660 B; weights 16,059,990,016 B; 131,072 B/token.
	cases := []struct {
		hw       string
		fraction float64
		budget   int64
		tokens   int64
	}{
		// (151,397,597,184 − 4,509,715,660)·0.907 − 16,059,990,016
		{"h200_sxm", 0.907, 117167318526, 893915},
		// (193,273,528,320 − 4,509,715,660)·0.858 − 16,059,990,016
		{"b200_sxm", 0.858, 145899361246, 1113123},
	}
	for _, c := range cases {
		mem, err := memoryFor(m, mustHW(t, c.hw), "sglang", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MaxBatchedTokens: 8192})
		if err != nil || mem.Fraction != c.fraction || mem.Runtime != 4509715660 || mem.Weights != 16059990016 ||
			mem.KVBudget != c.budget || mem.Tokens != c.tokens {
			t.Errorf("%s: %+v %v; want fraction %v, budget %d, tokens %d", c.hw, mem, err, c.fraction, c.budget, c.tokens)
		}
	}
	// An explicit fraction is used as given, in the same formula.
	mem, _ := memoryFor(m, mustHW(t, "h200_sxm"), "sglang", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.5, MaxBatchedTokens: 8192})
	if want := int64(float64(151397597184-4509715660)*0.5) - 16059990016; mem.KVBudget != want {
		t.Errorf("fraction 0.5: budget %d, want %d", mem.KVBudget, want)
	}
}

// DeepSeek-R1 FP8 on four GB200 stays over SGLang's default budget: the derived fraction
// (0.859) is below the old fixed 0.88, so the measured runs must have raised it.
func TestSGLangDeepSeekFP8FourGPUs(t *testing.T) {
	ds := mustModel(t, "deepseek-ai/DeepSeek-R1")
	mem, err := memoryFor(ds, mustHW(t, "gb200"), "sglang", spec.Parallelism{Tensor: 4}, Quant{}, MemorySettings{MaxBatchedTokens: 8192})
	var pe *Error
	if !errors.As(err, &pe) || mem.Fraction != 0.859 || mem.KVBudget >= 0 {
		t.Fatalf("DeepSeek-R1 FP8 TP4 GB200 SGLang: %+v %v; want no KV budget at fraction 0.859", mem, err)
	}
	if _, err := memoryFor(ds, mustHW(t, "gb200"), "sglang", spec.Parallelism{Tensor: 4}, Quant{}, MemorySettings{MemoryFraction: 0.95, MaxBatchedTokens: 8192}); err != nil {
		t.Fatalf("with mem_fraction_static 0.95: %v", err)
	}
}

// With many attention-DP ranks SGLang's CUDA-graph reserve exceeds the GPU: 72 DP ranks on
// GB200 reserve 512 + 24576 + 1024 + 9216 + 4.5·512·72 = 201216 MiB of 189472.5 → −0.062.
// The default is then an error asking for an explicit fraction, not a negative budget.
func TestSGLangFractionExhausted(t *testing.T) {
	ds := mustModel(t, "deepseek-ai/DeepSeek-R1")
	par := spec.Parallelism{Tensor: 1, AttentionData: 72, MoeExpert: 72}
	if f := SGLangMemFractionStatic(mustHW(t, "gb200").MemBytes, par); f != -0.062 {
		t.Fatalf("fraction %v, want -0.062", f)
	}
	_, err := memoryFor(ds, mustHW(t, "gb200"), "sglang", par, Quant{}, MemorySettings{MaxBatchedTokens: 8192})
	var pe *Error
	if !errors.As(err, &pe) || pe.Key != "kv_cache.capacity" || !strings.Contains(pe.Msg, "set memory_fraction explicitly") {
		t.Fatalf("err %v", err)
	}
	if _, err := memoryFor(ds, mustHW(t, "gb200"), "sglang", par, Quant{}, MemorySettings{MemoryFraction: 0.85, MaxBatchedTokens: 8192}); err != nil {
		t.Fatalf("explicit fraction: %v", err)
	}
}
