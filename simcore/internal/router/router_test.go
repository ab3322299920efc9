package router

import (
	"aisimulate/simcore/internal/grow"
	"math/rand/v2"
	"testing"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/hashtab"
	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// With prefill_load_model aic, elapsed time on the oldest prefill decays the whole backlog
// (docs/semantics/simulation.md §10.5): at half the anchor's expected time half its tokens count as done.
func TestAICLoadModelDecay(t *testing.T) {
	cfg := Config{Policy: KV, BlockSize: 4, TrackPrefill: true, UseEvents: true, OverlapScoreCredit: 1, PrefillLoadScale: 1,
		QueueThreshold: 1e9, ExpectedPrefillMs: func(L, prefix int) float64 { return float64(L-prefix) / 100 }}
	rt := New(cfg, rng.New(42, "router.agg"))
	w := engine.NewWorker(0, &engine.RankConfig{BlockSize: 4, NumBlocks: 64, MaxBatchedTokens: 8192, MaxSequences: 8, Timing: perf.Fixed{}}, 1)
	rt.SetWorkers([]*engine.Worker{w})
	r := &engine.Request{Outcome: engine.Outcome{L: 1000}, Prompt: []traffic.Segment{{Token: 1, Count: 1000}}}
	if _, ok := rt.Place(r, 0); !ok {
		t.Fatal("not placed")
	}
	s := rt.cands[0]
	if got := s.activePrefill(0); got != 1000 {
		t.Errorf("apt at 0 = %d, want 1000", got)
	}
	if got := s.activePrefill(5); got != 500 { // expected 10 ms
		t.Errorf("apt at 5 ms = %d, want 500", got)
	}
	if got := s.activePrefill(20); got != 0 {
		t.Errorf("apt after the expected time = %d, want 0", got)
	}
	rt.PrefillDone(r, w, 0, 6)
	if got := s.activePrefill(6); got != 0 || len(s.prefills) != 0 {
		t.Errorf("after prefill done apt %d, %d active", got, len(s.prefills))
	}
}

// heldPrefix (binary search) counts exactly the request's hashes held by placed requests (the
// definition: one lookup per hash), for chains that share prefixes of every length.
func TestHeldPrefixCountsHeldHashes(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 9))
	// chain returns the hash ids of the seq hashes of a prompt made of the given block tokens.
	in := engine.NewHashIDs()
	chain := func(tokens []uint64) []int32 {
		hs := make([]int32, len(tokens))
		h, parent := uint64(0x9e37), hashtab.Root
		for i, tok := range tokens {
			h = hashtab.Spread(h*31 + tok + 1)
			hs[i] = in.ID(parent, h)
			parent = hs[i]
		}
		return hs
	}
	prompt := func() []uint64 {
		tokens := make([]uint64, rnd.IntN(40))
		for i := range tokens {
			tokens[i] = uint64(rnd.IntN(3)) // few distinct tokens: long shared prefixes
		}
		return tokens
	}
	s := &sched{}
	for step := 0; step < 2000; step++ {
		hs := chain(prompt())
		if rnd.IntN(2) == 0 { // place a request: its whole chain becomes held
			for _, h := range hs {
				s.refs = grow.To(s.refs, int(h)+1)
				s.refs[h]++
			}
			continue
		}
		want := 0
		for _, h := range hs {
			if s.held(h) > 0 {
				want++
			}
		}
		if got := s.heldPrefix(hs); got != want {
			t.Fatalf("step %d: heldPrefix %d, %d hashes held", step, got, want)
		}
	}
}
