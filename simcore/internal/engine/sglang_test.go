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

// A decode pass without prefix caching claims every running request's slot while counting the
// blocks the claims need (claimDecodeSlots); when the pool cannot hold them the claims are
// undone before the retraction (docs/semantics/simulation.md §8; docs/performance.md, "One
// visit per request to claim a decode slot"). Three requests with L = 2 and one token each
// hold 3 pages of a 10-page pool (page size 1): the pass needs 3 pages with 1 free, so it
// retracts the third (ties on generated and L go to the highest ordinal), which frees 3, and
// the two left take one page each: 4 pages held, 2 free. Claims left in place by the failed
// attempt would show as 5 pages held.
func TestSGLangDecodeClaimUndoneOnRetraction(t *testing.T) {
	cfg := &RankConfig{Policy: SGLang, MaxBatchedTokens: 64, MaxSequences: 4, BlockSize: 1, NumBlocks: 10,
		ChunkedPrefillSize: 64, MaxPrefillTokens: 64, Timing: perf.Fixed{Prefill: 1, Decode: 1}}
	w := NewWorker(0, cfg, 1)
	k := w.Ranks[0]
	reqs := make([]*Request, 3)
	for i := range reqs {
		r := &Request{Outcome: Outcome{Ordinal: int32(i + 1), L: 2, O: 10, FirstAdmit: -1},
			Prompt: []traffic.Segment{{Token: 7, Count: 2}}}
		r.generated, r.Tokens, r.computed, r.anon = 1, 1, 3, 3
		k.KV.TakeAnon(3)
		k.addRunning(r)
		reqs[i] = r
	}
	if _, decode := k.formSGLangPass(0, w); decode != 1 {
		t.Fatalf("decode time %v, want 1", decode)
	}
	if len(k.running) != 2 || k.running[0] != reqs[0] || k.running[1] != reqs[1] {
		t.Fatalf("running %v, want the first two requests", k.running)
	}
	for _, r := range reqs[:2] {
		if r.anon != 4 || r.computed != 4 || r.before != 3 || r.scheduled != 1 {
			t.Errorf("request %d: %d pages, computed %d, before %d, scheduled %d; want 4, 4, 3, 1",
				r.Ordinal, r.anon, r.computed, r.before, r.scheduled)
		}
	}
	if v := reqs[2]; v.Preemptions != 1 || v.held() != 0 || v.computed != 0 || k.waiting[len(k.waiting)-1] != v {
		t.Errorf("victim: %d preemptions, %d pages, computed %d; want 1, 0, 0 and back in waiting", v.Preemptions, v.held(), v.computed)
	}
	if k.KV.Free() != 2 || k.passDecodeReqs != 2 || k.passDecodeKV != 6 {
		t.Errorf("free %d, decode batch %d, KV %d; want 2, 2, 6", k.KV.Free(), k.passDecodeReqs, k.passDecodeKV)
	}
}
