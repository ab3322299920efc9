package perf

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

// decodeTerms' remembered addends (the LM head's GEMM among them) give the very bits of pricing each step afresh, whatever
// the order the token counts come in, below and above decodeMemoTokens and for fractional
// counts: a fresh timing model per call (nothing remembered) against one that remembers
// everything it priced, asked twice in a scrambled order, prefill passes in between (each
// priced twice in a row: the last token count's addends are kept).
func TestTokenTermsMemoChangesNoBit(t *testing.T) {
	counts := []float64{1, 2, 3, 7, 64, 255, 256, 1000, 4095, 4096, 4097, 9000, 16384, 20000, 2.5}
	for i := 1; i <= 300; i += 7 {
		counts = append(counts, float64(i))
	}
	for _, model := range memoModels {
		fresh := freshDefaults(t, model)
		warm := fresh()
		for round := range 2 {
			for j := range counts {
				x := counts[(j*7+round*3)%len(counts)]
				f := fresh()
				want := f.forward(f.tokenTerms(x), f.lmHead(x), 0.25)
				terms, lm := warm.decodeTerms(x)
				if got := warm.forward(terms, lm, 0.25); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("%s, %v tokens, round %d: remembered %v, afresh %v", model, x, round, got, want)
				}
				wantPre := fresh().PrefillMs(3, int(x)+1, 0)
				for again := range 2 { // the second call reuses the first's addends
					if got := warm.PrefillMs(3, int(x)+1, 0); math.Float64bits(got) != math.Float64bits(wantPre) {
						t.Fatalf("%s, prefill of %v tokens, call %d: remembered %v, afresh %v", model, x, again+1, got, wantPre)
					}
				}
			}
		}
		if len(warm.termKnown) != decodeMemoTokens {
			t.Errorf("%s: %d token counts remembered, want the bound %d", model, len(warm.termKnown), decodeMemoTokens)
		}
	}
}

// memoModels are the models the memo tests price: a dense one and an MoE one with MLA.
var memoModels = []string{"meta-llama/Meta-Llama-3.1-8B", "deepseek-ai/DeepSeek-R1"}

// freshDefaults returns a maker of fresh default timing models of model with SGLang on eight
// H200s, every one built anew (nothing remembered).
func freshDefaults(t *testing.T, model string) func() *Default {
	t.Helper()
	dep, err := NewDeployment(mustModel(t, model), mustHW(t, "h200_sxm"), "sglang", spec.Parallelism{Tensor: 8}, Quant{})
	if err != nil {
		t.Fatal(err)
	}
	return func() *Default {
		d, err := NewDefault(dep)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
}
