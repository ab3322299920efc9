package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// The chunk that completes a prompt on a disaggregated prefill rank also reserves the
// bootstrap token's slot (docs/semantics/simulation.md §11.5 amended), for every backend: L 32 at block 16
// holds 3 blocks, not 2, while the request waits for its transfer.
func TestPrefillRankHoldsBootstrapSlot(t *testing.T) {
	for _, policy := range []Policy{VLLM, TRTLLM, SGLang} {
		cfg := &RankConfig{Policy: policy, Pool: PoolPrefill, MaxBatchedTokens: 8192, MaxSequences: 1, BlockSize: 16, NumBlocks: 8,
			PrefixCaching: true, Timing: perf.Fixed{Prefill: 1, Decode: 1}, ChunkedPrefillSize: 8192, MaxPrefillTokens: 16384, Conservativeness: 1}
		w := NewWorker(0, cfg, 1)
		k := w.Ranks[0]
		r := &Request{Outcome: Outcome{Ordinal: 1, L: 32, O: 5, FirstAdmit: -1}, Prompt: []traffic.Segment{{Token: 3, Count: 32}}, SharedTokens: -1}
		k.Enqueue(r)
		w.StartPass(0)
		w.FinishPass()
		if len(k.Held) != 1 || k.KV.Active() != 3 {
			t.Errorf("policy %d: %d held, %d blocks active; want 1 request holding 3 blocks", policy, len(k.Held), k.KV.Active())
		}
		if policy == TRTLLM && (k.trtToCompletion != 0 || k.trtHeld != 0) {
			t.Errorf("TRT-LLM totals %d/%d after the hand-off, want 0/0", k.trtToCompletion, k.trtHeld)
		}
		k.ReleaseSource(r)
		if k.KV.Active() != 0 {
			t.Errorf("policy %d: %d blocks active after the source release", policy, k.KV.Active())
		}
	}
}

// A prefill-only request (O = 0, docs/semantics/simulation.md §3) produces no bootstrap token, so its prefill
// footprint is its prompt alone (docs/semantics/simulation.md §11.5): L 32 fits a vLLM or
// TensorRT-LLM prefill rank of 2 blocks of 16 and completes there, where L + 1 would need 3.
func TestPrefillOnlyRequestHasNoBootstrapSlot(t *testing.T) {
	for _, policy := range []Policy{VLLM, TRTLLM} {
		cfg := &RankConfig{Policy: policy, Pool: PoolPrefill, MaxBatchedTokens: 8192, MaxSequences: 1, BlockSize: 16, NumBlocks: 2,
			PrefixCaching: true, Timing: perf.Fixed{Prefill: 1, Decode: 1}}
		w := NewWorker(0, cfg, 1)
		k := w.Ranks[0]
		r := &Request{Outcome: Outcome{Ordinal: 1, L: 32, O: 0, FirstAdmit: -1}, Prompt: []traffic.Segment{{Token: 3, Count: 32}}, SharedTokens: -1}
		k.Enqueue(r)
		w.StartPass(0)
		w.FinishPass()
		if r.Status != Completed || len(k.Held) != 0 || k.KV.Active() != 0 {
			t.Errorf("policy %d: %v, %d held, %d blocks active; want completed on the prefill rank, nothing held", policy, r.Status, len(k.Held), k.KV.Active())
		}
	}
}
