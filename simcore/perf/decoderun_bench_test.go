package perf

import (
	"testing"

	"aisimulate/simcore/spec"
)

// BenchmarkPolynomialDecodeRun prices a million fast-forwarded decode passes with the
// polynomial model, as the Mooncake trace's 2.7 million passes are priced.
func BenchmarkPolynomialDecodeRun(b *testing.B) {
	p := Polynomial{}
	ends := make([]float64, 0, 1<<20)
	for b.Loop() {
		ends = p.DecodeRun(64, 100000, 1<<20, 0, 1e18, 1<<20, ends[:0])
	}
}

// BenchmarkPolynomialDecodeRunShared is the same through the shared loop decodeRun (an
// interface call and a division per pass): why Polynomial.DecodeRun has its own loop.
func BenchmarkPolynomialDecodeRunShared(b *testing.B) {
	var t Timing = Polynomial{}
	ends := make([]float64, 0, 1<<20)
	for b.Loop() {
		ends = decodeRun(t, 64, 100000, 1<<20, 0, 1e18, 1<<20, ends[:0])
	}
}

// BenchmarkDefaultDecodeStep prices DeepSeek-R1 decode steps of 64 requests on H200 (attention
// DP 8, FP8 KV cache) whose Σ known grows by one per step, as a single-rank decode worker's
// passes are priced: every step afresh (the remembered last price never matches), its
// token-count terms remembered.
func BenchmarkDefaultDecodeStep(b *testing.B) {
	t := &testing.T{}
	dep, err := NewDeployment(mustModel(t, "deepseek-ai/DeepSeek-R1"), mustHW(t, "h200_sxm"), "trtllm",
		spec.Parallelism{Tensor: 1, AttentionData: 8, MoeExpert: 8}, Quant{KVCache: "fp8"})
	if err != nil {
		b.Fatal(err)
	}
	d, err := NewDefault(dep)
	if err != nil {
		b.Fatal(err)
	}
	kv := int64(100000)
	for b.Loop() {
		kv++
		d.DecodeMs(64, kv, 0, 1<<20)
	}
}
