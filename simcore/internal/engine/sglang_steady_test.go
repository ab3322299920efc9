package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// sglCohortRun runs a fixed set of requests through an SGLang worker of dp ranks without
// prefix caching at page size 1 (the steady cohort's case, sglang_steady.go), exact or not:
// a pool small enough to retract (600 pages over the ranks), a context length that stops some outputs early, requests
// arriving in waves of wave requests every `every` passes, and scheduler_recv_interval recv.
// Small waves arrive while others decode; a wave of max_running_requests fills the pool with
// nothing waiting, so it retracts while requests are steady. It returns the requests,
// the worker, the most steady requests any pass left unvisited, and the hand-off reservation
// Σ min(remaining output, clip) of every rank before every pass (what takeDestination sums).
func sglCohortRun(t *testing.T, exact bool, dp, recv, wave, every int) (reqs []*Request, w *Worker, maxSteady int, growth []int64) {
	t.Helper()
	cfg := &RankConfig{Policy: SGLang, MaxBatchedTokens: 256, MaxSequences: 12, BlockSize: 1, NumBlocks: 600 / dp,
		ChunkedPrefillSize: 256, MaxPrefillTokens: 256, MaxModelLen: 150, RecvInterval: recv, Exact: exact,
		Timing: perf.Fixed{Prefill: 2, Decode: 1}}
	w = NewWorker(0, cfg, dp)
	for i := 0; i < 60; i++ {
		L, O := 20+i*7%50, 10+i*13%110
		reqs = append(reqs, &Request{Outcome: Outcome{Ordinal: int32(i + 1), L: L, O: O, FirstAdmit: -1},
			Prompt: []traffic.Segment{{Token: uint32(100 + i), Count: L}}})
	}
	now, next := 0.0, 0
	for pass := 0; ; pass++ {
		// wave requests arrive every `every` passes, spread over the ranks.
		for ; next < len(reqs) && next < wave*(pass/every+1); next++ {
			w.Ranks[next%dp].Enqueue(reqs[next])
		}
		for _, k := range w.Ranks {
			g := int64(0)
			for _, r := range k.active {
				g += int64(min(k.reservedOut(r), sglClipMaxNewTokens))
			}
			if k.steadyN > 0 {
				g += k.steadyGrowth(int64(len(w.PassEnds)))
			}
			growth = append(growth, g)
		}
		if next == len(reqs) && !w.HasWork() {
			break
		}
		if pass > 20000 {
			t.Fatalf("not done after %d passes", pass)
		}
		end := w.StartPass(now)
		if !w.FormedWork() {
			w.Busy = false
			now++
			continue
		}
		w.FinishPass()
		now = end
		for _, k := range w.Ranks {
			maxSteady = max(maxSteady, k.steadyN)
		}
	}
	w.Settle()
	return reqs, w, maxSteady, growth
}

// The SGLang steady cohort changes no outcome: every token time, gap, retraction and status,
// the per-pass gap counts and the hand-off reservation's sum are those of visiting every
// request on every pass, with one rank or two attention-DP ranks and with request polling.
// The cohort is really used (steady requests left unvisited) and the pool really retracts.
func TestSGLangSteadyCohortChangesNothing(t *testing.T) {
	for _, tc := range []struct{ dp, recv, wave, every int }{{1, 1, 3, 15}, {2, 1, 3, 15}, {1, 3, 3, 15}, {2, 4, 3, 15}, {1, 1, 12, 400}, {2, 1, 24, 400}} {
		slowReqs, slowW, slowSteady, slowGrowth := sglCohortRun(t, true, tc.dp, tc.recv, tc.wave, tc.every)
		fastReqs, fastW, fastSteady, fastGrowth := sglCohortRun(t, false, tc.dp, tc.recv, tc.wave, tc.every)
		if slowSteady != 0 || fastSteady < 3 {
			t.Fatalf("dp %d recv %d: most steady requests %d exact, %d with the cohort; want 0 and ≥ 3", tc.dp, tc.recv, slowSteady, fastSteady)
		}
		retracted := 0
		for i, f := range fastReqs {
			s := slowReqs[i]
			if f.Outcome != s.Outcome {
				t.Fatalf("dp %d recv %d: request %d\ncohort %+v\nexact  %+v", tc.dp, tc.recv, f.Ordinal, f.Outcome, s.Outcome)
			}
			if f.Status != Completed {
				t.Fatalf("dp %d recv %d: request %d %v", tc.dp, tc.recv, f.Ordinal, f.Status)
			}
			fg, sg := f.FlushGaps(), s.FlushGaps()
			if len(fg) != len(sg) {
				t.Fatalf("dp %d recv %d: request %d: %d isolated gaps, want %d", tc.dp, tc.recv, f.Ordinal, len(fg), len(sg))
			}
			for j := range fg {
				if fg[j] != sg[j] {
					t.Fatalf("dp %d recv %d: request %d gap %d: %v, want %v", tc.dp, tc.recv, f.Ordinal, j, fg[j], sg[j])
				}
			}
			retracted += f.Preemptions
		}
		if retracted == 0 {
			t.Fatalf("dp %d recv %d: nothing retracted", tc.dp, tc.recv)
		}
		if len(fastW.PassEnds) != len(slowW.PassEnds) || len(fastGrowth) != len(slowGrowth) {
			t.Fatalf("dp %d recv %d: %d passes, %d samples; want %d, %d", tc.dp, tc.recv, len(fastW.PassEnds), len(fastGrowth), len(slowW.PassEnds), len(slowGrowth))
		}
		for i := range fastGrowth {
			if fastGrowth[i] != slowGrowth[i] {
				t.Fatalf("dp %d recv %d: reservation sample %d: %d, want %d", tc.dp, tc.recv, i, fastGrowth[i], slowGrowth[i])
			}
		}
		fc, sc := fastW.GapCounts(), slowW.GapCounts()
		if len(fc) != len(sc) {
			t.Fatalf("dp %d recv %d: %d gap counts, want %d", tc.dp, tc.recv, len(fc), len(sc))
		}
		for i := range fc {
			if fc[i] != sc[i] {
				t.Fatalf("dp %d recv %d: gap count %d: %d, want %d", tc.dp, tc.recv, i, fc[i], sc[i])
			}
		}
	}
}
