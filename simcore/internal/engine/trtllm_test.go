package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// A TensorRT-LLM prefill rank reserves the prompt and the hidden bootstrap token only
// (docs/semantics/simulation.md §11.5 amended): a 3/8 request on a pool of 2 blocks of 4 tokens is admitted
// with its output left whole for the decode pool, finishes its prefill and is handed off.
func TestTRTLLMPrefillReservesBootstrapOnly(t *testing.T) {
	cfg := &RankConfig{Policy: TRTLLM, Pool: PoolPrefill, MaxBatchedTokens: 64, MaxSequences: 1,
		BlockSize: 4, NumBlocks: 2, Timing: perf.Fixed{Prefill: 1, Decode: 1}}
	w := NewWorker(0, cfg, 1)
	k := w.Ranks[0]
	r := &Request{Outcome: Outcome{Ordinal: 1, L: 3, O: 8, FirstAdmit: -1},
		Prompt: []traffic.Segment{{Token: 7, Count: 3}}}
	k.Enqueue(r)
	if r.O != 8 || r.noRoom {
		t.Fatalf("output clipped on the prefill rank: O = %d, noRoom %v", r.O, r.noRoom)
	}
	w.StartPass(0)
	if k.trtToCompletion != 1 {
		t.Errorf("to-completion reservation %d blocks, want 1 (3 + 1 tokens)", k.trtToCompletion)
	}
	w.FinishPass()
	var handedOff bool
	for _, n := range w.Out {
		if n.Kind == NoteRejected {
			t.Fatalf("rejected on the prefill rank")
		}
		handedOff = handedOff || n.Kind == NoteHandoff && n.R == r
	}
	if !handedOff || len(k.Held) != 1 {
		t.Fatalf("not handed off (held %d, notes %v)", len(k.Held), w.Out)
	}
	// The held prefill left the running list: neither its reservation nor its blocks count
	// against later admissions beyond the blocks it still occupies.
	if k.trtToCompletion != 0 || k.trtHeld != 0 {
		t.Errorf("after the hand-off: to-completion %d, held %d blocks; want 0, 0", k.trtToCompletion, k.trtHeld)
	}
}
