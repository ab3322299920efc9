package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// A request whose prompt ends inside a block joins the steady cohort right after the pass
// that completed its prompt (its next tokens fit the block), while one whose prompt fills
// whole blocks stays active for the pass that takes its next block. Both then record the
// same token times as if every pass had visited them.
func TestSteadyRightAfterPrompt(t *testing.T) {
	for _, tc := range []struct {
		L          int
		steadyNext bool
	}{{L: 5, steadyNext: true}, {L: 8, steadyNext: false}} {
		cfg := &RankConfig{MaxBatchedTokens: 64, MaxSequences: 8, BlockSize: 4, NumBlocks: 64,
			PrefixCaching: true, Timing: perf.Fixed{Prefill: 1, Decode: 1}}
		w := NewWorker(0, cfg, 1)
		k := w.Ranks[0]
		r := &Request{Outcome: Outcome{Ordinal: 1, L: tc.L, O: 6, FirstAdmit: -1},
			Prompt: []traffic.Segment{{Token: 7, Count: tc.L}}, SharedTokens: -1}
		k.Enqueue(r)
		now := 0.0
		for pass := 0; r.Status != Completed; pass++ {
			end := w.StartPass(now)
			w.FinishPass()
			now = end
			if pass == 0 && (k.steadyN == 1) != tc.steadyNext {
				t.Fatalf("L %d: steady after the prompt's pass = %v, want %v", tc.L, k.steadyN == 1, tc.steadyNext)
			}
			if pass > 10 {
				t.Fatalf("L %d: not completed after %d passes", tc.L, pass)
			}
		}
		// Prefill+decode pass [0, 2] gives token 1; decode passes of 1 ms the other five.
		if r.FirstToken != 2 || r.SecondToken != 3 || r.LastToken != 7 || r.Tokens != 6 {
			t.Fatalf("L %d: tokens at %v, %v … %v (%d tokens), want 2, 3 … 7 (6)", tc.L, r.FirstToken, r.SecondToken, r.LastToken, r.Tokens)
		}
	}
}
