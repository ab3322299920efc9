package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// Reserve sizes the hash id and block tables for the shareable blocks, never past
// ⌊tokens/bs⌋ + 2 with tokens cut at the context: a unique prompt takes no table at all.
func TestReserveSizesTablesForShareableBlocks(t *testing.T) {
	for _, c := range []struct {
		shared, maxModelLen, want int
	}{
		{0, 0, 0},   // unique prompt: nothing is ever hashed or identified
		{-1, 0, 32}, // everything shareable: (100 + 20)/4 + 2
		{40, 0, 10}, // 40 shared tokens: 10 blocks
		{-1, 60, 17},
		{200, 60, 17}, // the context bounds the shared prefix too
	} {
		r := &Request{Outcome: Outcome{L: 100, O: 20}, SharedTokens: c.shared}
		r.Reserve(4, c.maxModelLen)
		if cap(r.hashIDs) != c.want || cap(r.blocks) != c.want {
			t.Errorf("shared %d, max_model_len %d: tables of %d and %d entries, want %d", c.shared, c.maxModelLen, cap(r.hashIDs), cap(r.blocks), c.want)
		}
	}
}

// A preempted request's unique blocks become identified copies (keepOwn), which a unique
// prompt's empty table must then take: growBlocks gives it the whole bound at once, so the
// block table never holds more than the memory estimate counts (docs/robustness.md), and the
// re-admission pins the surviving own blocks within it.
func TestPreemptedOwnBlocksStayWithinTableLimit(t *testing.T) {
	cfg := &RankConfig{Policy: VLLM, MaxBatchedTokens: 64, MaxSequences: 4, BlockSize: 4, NumBlocks: 20,
		PrefixCaching: true, Exact: true, Timing: perf.Fixed{Prefill: 1, Decode: 1}}
	w := NewWorker(0, cfg, 1)
	k := w.Ranks[0]
	var reqs []*Request
	for i := range 2 {
		r := &Request{Outcome: Outcome{Ordinal: int32(i + 1), L: 8, O: 40, FirstAdmit: -1},
			Prompt: []traffic.Segment{{Token: 7 + uint32(i), Count: 8}}}
		r.Reserve(cfg.BlockSize, 0)
		if cap(r.blocks) != 0 {
			t.Fatalf("unique prompt reserved %d block entries, want 0", cap(r.blocks))
		}
		k.Enqueue(r)
		reqs = append(reqs, r)
	}
	own := false
	now := 0.0
	for pass := 0; pass < 500 && (reqs[0].Status != Completed || reqs[1].Status != Completed); pass++ {
		now = w.StartPass(now)
		w.FinishPass()
		for _, r := range reqs {
			own = own || len(r.ownIDs) > 0
			if cap(r.blocks) > int(r.tableLimit) {
				t.Fatalf("pass %d: request %d's block table has %d entries, over its bound %d", pass, r.Ordinal, cap(r.blocks), r.tableLimit)
			}
		}
	}
	for _, r := range reqs {
		if r.Status != Completed || r.Tokens != r.O {
			t.Errorf("request %d: %v with %d tokens, want completed with %d", r.Ordinal, r.Status, r.Tokens, r.O)
		}
	}
	if !own || reqs[0].Preemptions+reqs[1].Preemptions == 0 {
		t.Errorf("no preemption kept own blocks (preemptions %d, %d): the case is not exercised", reqs[0].Preemptions, reqs[1].Preemptions)
	}
}
