package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// A destination-first hand-off is reserved on an SGLang decode rank only when free + evictable
// pages cover its footprint plus its own reserved output and the ratio-scaled reserved growth
// of the requests already running or reserved there (docs/semantics/simulation.md §11.3,
// "decode pre-allocation"); otherwise it waits in FIFO order. On a 44-page pool four hand-offs
// of L = 4, O = 10 fit as footprints (4 × 5 pages) but not with their growth (4 × 14 tokens):
// admitting them all retracts once the pool runs dry. With ratio 0.7 the rule takes the
// first (idle rank), the second (5 + 9 < 39 − 0.7 × 9) and the third (5 + 9 < 34 − 0.7 × 18)
// but not the fourth (5 + 9 ≥ 29 − 0.7 × 27); it waits until the three complete at t = 9.
func TestSGLangDecodePreallocWaitsForGrowth(t *testing.T) {
	cfg := &RankConfig{Policy: SGLang, Pool: PoolDecode, MaxBatchedTokens: 64, MaxSequences: 8,
		BlockSize: 1, NumBlocks: 44, ChunkedPrefillSize: 64, MaxPrefillTokens: 64,
		Timing: perf.Fixed{Prefill: 1, Decode: 1}}
	w := NewWorker(0, cfg, 1)
	k := w.Ranks[0]
	reqs := make([]*Request, 4)
	reservedAt := make([]float64, 4)
	now := 0.0
	land := func(r *Request) { // the transfer takes no time here
		r.EmitExternal(now)
		r.PrepareDecode()
		k.Materialize(r)
	}
	for i := range reqs {
		reqs[i] = &Request{Outcome: Outcome{Ordinal: int32(i + 1), L: 4, O: 10, FirstAdmit: -1},
			Prompt: []traffic.Segment{{Token: 7, Count: 4}}}
		reservedAt[i] = -1
		if k.ReserveDestination(reqs[i]) {
			reservedAt[i] = now
			land(reqs[i])
		}
	}
	for pass := 0; pass < 100 && reqs[3].Status != Completed; pass++ {
		now = w.StartPass(now)
		w.FinishPass()
		for _, r := range k.RetryDestinations() {
			reservedAt[r.Ordinal-1] = now
			land(r)
		}
	}
	for i, r := range reqs {
		if r.Preemptions != 0 {
			t.Errorf("request %d retracted %d times on the decode rank; the rule admits only what grows in place", i+1, r.Preemptions)
		}
		if r.Status != Completed {
			t.Errorf("request %d status %v, want completed", i+1, r.Status)
		}
	}
	want := []float64{0, 0, 0, 9}
	for i := range want {
		if reservedAt[i] != want[i] {
			t.Errorf("reserved at %v, want %v", reservedAt, want)
			break
		}
	}
}
