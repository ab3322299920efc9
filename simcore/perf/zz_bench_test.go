package perf

import (
	"testing"

	"aisimulate/simcore/spec"
)

func BenchmarkZZDecodeMs(b *testing.B) {
	dep, err := NewDeployment(mustModel(&testing.T{}, "deepseek-ai/DeepSeek-R1"), mustHW(&testing.T{}, "h200_sxm"), "trtllm", spec.Parallelism{Tensor: 1, AttentionData: 8, MoeExpert: 8}, Quant{KVCache: "fp8"})
	if err != nil {
		b.Fatal(err)
	}
	d, _ := NewDefault(dep)
	var s float64
	kv := int64(100000)
	for b.Loop() {
		kv++
		s += d.DecodeMs(64, kv, 0, 1<<20)
	}
	_ = s
}
