package perf

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

// The remembered last decode step (DecodeRawMs) gives the very bits of pricing each step
// afresh: the same step asked again in a row, steps that differ only in the batch or only in
// the KV tokens, the mean-context form (activeKV 0), and an MTP copy made after its source
// remembered a step (the copy must not answer with the source's step priced without drafts).
func TestLastDecodeStepChangesNoBit(t *testing.T) {
	type step struct {
		batch int
		kv    int64
		mean  int
	}
	steps := []step{{8, 8000, 0}, {8, 8000, 0}, {8, 8001, 0}, {9, 8001, 0}, {9, 8001, 0},
		{9, 0, 889}, {9, 0, 889}, {9, 8001, 0}, {1, 1, 0}, {256, 2_000_000, 0}, {256, 2_000_000, 0}, {8, 8000, 0}}
	for _, model := range []string{"meta-llama/Meta-Llama-3.1-8B", "deepseek-ai/DeepSeek-R1"} {
		dep, err := NewDeployment(mustModel(t, model), mustHW(t, "h200_sxm"), "sglang", spec.Parallelism{Tensor: 8}, Quant{})
		if err != nil {
			t.Fatal(err)
		}
		fresh := func(nextn int) Timing {
			d, err := NewDefault(dep)
			if err != nil {
				t.Fatal(err)
			}
			return WithMTP(d, nextn)
		}
		for _, nextn := range []int{0, 2} {
			src, err := NewDefault(dep)
			if err != nil {
				t.Fatal(err)
			}
			var warm Timing = src
			drafts := 0
			for i, s := range steps {
				if nextn > 0 && i == 1 {
					// src remembers steps[0] priced without drafts; its MTP copy must price afresh.
					warm, drafts = WithMTP(src, nextn), nextn
				}
				want := fresh(drafts).DecodeMs(s.batch, s.kv, s.mean, 1<<20)
				if got := warm.DecodeMs(s.batch, s.kv, s.mean, 1<<20); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, nextn %d, step %d %+v: remembered %v, afresh %v", model, nextn, i, s, got, want)
				}
			}
		}
	}
}

// The remembered last prefill pass (PrefillRawMs) gives the very bits of pricing each pass
// afresh: the same pass in a row, passes that differ in one of batch, mean ISL or mean
// prefix only, and an MTP copy (prefill passes carry no drafts).
func TestLastPrefillPassChangesNoBit(t *testing.T) {
	passes := [][3]int{{1, 2048, 1024}, {1, 2048, 1024}, {2, 2048, 1024}, {2, 2049, 1024}, {2, 2049, 1025},
		{2, 2049, 1025}, {1, 2048, 1024}, {64, 1024, 0}, {64, 1024, 0}}
	for _, model := range []string{"meta-llama/Meta-Llama-3.1-8B", "deepseek-ai/DeepSeek-R1"} {
		dep, err := NewDeployment(mustModel(t, model), mustHW(t, "h200_sxm"), "sglang", spec.Parallelism{Tensor: 8}, Quant{})
		if err != nil {
			t.Fatal(err)
		}
		src, err := NewDefault(dep)
		if err != nil {
			t.Fatal(err)
		}
		var warm Timing = src
		for i, p := range passes {
			if i == 5 {
				warm = WithMTP(src, 2)
			}
			f, err := NewDefault(dep)
			if err != nil {
				t.Fatal(err)
			}
			want := f.PrefillMs(p[0], p[1], p[2])
			if got := warm.PrefillMs(p[0], p[1], p[2]); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s, pass %d %v: remembered %v, afresh %v", model, i, p, got, want)
			}
		}
	}
}
