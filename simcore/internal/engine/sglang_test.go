package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// Blocked prefill_decode_interval rounds left when a wave ends drain at the next pass without
// decaying the new-token ratio: the whole group is idle in them, so the ratio is reset to its
// initial value (docs/semantics/simulation.md §8, "prefill_decode_interval"), and the next
// request is admitted at once.
func TestSGLangIdleIntervalRoundsResetRatio(t *testing.T) {
	cfg := &RankConfig{Policy: SGLang, MaxBatchedTokens: 64, MaxSequences: 4, BlockSize: 1, NumBlocks: 64,
		ChunkedPrefillSize: 64, MaxPrefillTokens: 64, PrefillDecodeInterval: 20,
		Timing: perf.Fixed{Prefill: 1, Decode: 1}}
	w := NewWorker(0, cfg, 1)
	k := w.Ranks[0]
	req := func(ord int32) *Request {
		return &Request{Outcome: Outcome{Ordinal: ord, L: 4, O: 5, FirstAdmit: -1},
			Prompt: []traffic.Segment{{Token: 7 + uint32(ord), Count: 4}}}
	}
	a := req(1)
	k.Enqueue(a)
	now := 0.0
	for a.Status != Completed {
		now = w.StartPass(now)
		w.FinishPass()
	}
	// One extend pass and four decode passes: four decays, 16 blocked rounds left.
	want := k.sgl.initRatio
	for i := 0; i < 4; i++ {
		want -= k.sgl.decay
	}
	if k.sgl.ratio != want || w.blockedRounds != 16 {
		t.Fatalf("after the wave: ratio %v, %d blocked rounds; want %v, 16", k.sgl.ratio, w.blockedRounds, want)
	}
	b := req(2)
	k.Enqueue(b)
	w.StartPass(50)
	if b.FirstAdmit != 50 || w.blockedRounds != 20 {
		t.Fatalf("b admitted at %v with %d blocked rounds after; want 50, 20", b.FirstAdmit, w.blockedRounds)
	}
	if k.sgl.ratio != k.sgl.initRatio {
		t.Errorf("ratio %v after the idle rounds, want the initial %v", k.sgl.ratio, k.sgl.initRatio)
	}
}
