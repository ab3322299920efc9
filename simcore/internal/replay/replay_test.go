package replay

import (
	"testing"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/router"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// sessions makes an open-loop workload of one-turn sessions.
func sessions(turns ...timedTurn) traffic.Workload {
	i := 0
	return traffic.Workload{Sessions: len(turns), OpenLoop: true, Next: func() (traffic.Session, bool) {
		if i >= len(turns) {
			return traffic.Session{}, false
		}
		t := turns[i]
		i++
		return traffic.Session{ArrivalMs: t.at, Turns: []traffic.Turn{t.turn}}, true
	}}
}

type timedTurn struct {
	at   float64
	turn traffic.Turn
}

func tokens(ts ...uint32) []traffic.Segment {
	s := make([]traffic.Segment, len(ts))
	for i, t := range ts {
		s[i] = traffic.Segment{Token: t, Count: 1}
	}
	return s
}

func aggPlan(blocks, bs int, w traffic.Workload) *Plan {
	return &Plan{
		Agg: &PoolPlan{Replicas: 1, DP: 1, GPUsPerWorker: 1,
			Rank:   engine.RankConfig{MaxBatchedTokens: 8192, MaxSequences: 256, BlockSize: bs, NumBlocks: blocks, PrefixCaching: true, Timing: perf.Fixed{Prefill: 1, Decode: 1}},
			Router: router.Config{BlockSize: bs}},
		Workload: w,
		Capture:  true,
	}
}

// E5: prefix reuse at block size 4.
func TestWorkedE5PrefixReuse(t *testing.T) {
	first := tokens(1, 2, 3, 4, 5, 6, 7, 8)
	second := tokens(1, 2, 3, 4, 9, 9, 9, 9)
	res := Run(aggPlan(256, 4, sessions(
		timedTurn{0, traffic.Turn{InputLength: 8, OutputLength: 2, Prompt: first}},
		timedTurn{100, traffic.Turn{InputLength: 8, OutputLength: 2, Prompt: second}},
	)))
	if got := res.Outcomes.At(1).Reuse; got != 4 {
		t.Errorf("reused_input_tokens = %d, want 4", got)
	}
	// Identical prompt: matched 8, capped at floor(7/4)·4 = 4.
	res = Run(aggPlan(256, 4, sessions(
		timedTurn{0, traffic.Turn{InputLength: 8, OutputLength: 2, Prompt: first}},
		timedTurn{100, traffic.Turn{InputLength: 8, OutputLength: 2, Prompt: first}},
	)))
	if got := res.Outcomes.At(1).Reuse; got != 4 {
		t.Errorf("identical prompt reuse = %d, want 4", got)
	}
}

// E6: LIFO preemption with 3 blocks of 4.
func TestWorkedE6Preemption(t *testing.T) {
	res := Run(aggPlan(3, 4, sessions(
		timedTurn{0, traffic.Turn{InputLength: 4, OutputLength: 6, Prompt: tokens(1, 2, 3, 4)}},
		timedTurn{0, traffic.Turn{InputLength: 4, OutputLength: 6, Prompt: tokens(11, 12, 13, 14)}},
	)))
	a, b := res.Outcomes.At(0), res.Outcomes.At(1)
	if a.Terminal != 7 || a.Status != engine.Completed {
		t.Errorf("A terminal %g status %v, want 7 completed", a.Terminal, a.Status)
	}
	if b.FirstToken != 2 || b.SecondToken != 9 || b.LastToken != 13 {
		t.Errorf("B tokens first %g second %g last %g, want 2, 9, 13", b.FirstToken, b.SecondToken, b.LastToken)
	}
	tpot := (b.LastToken - b.FirstToken) / float64(b.Tokens-1)
	if tpot != 2.2 || b.Preemptions != 1 {
		t.Errorf("B tpot %g preemptions %d, want 2.2 and 1", tpot, b.Preemptions)
	}
	bh := res.Histories.Of(2)
	h := bh.Admissions
	if len(h) != 2 || h[0].At != 0 || h[1].At != 7 || h[1].Reused != 0 {
		t.Errorf("B admissions %+v", h)
	}
	if len(bh.Pressure) != 1 || bh.Pressure[0] != 0 {
		t.Errorf("B pressure ordinals %v, want [0]", bh.Pressure)
	}
}

// E3: open-loop arrivals at 0 and 10, L 4, O 2: e2e 3 each, duration 13.
func TestWorkedE3OpenLoop(t *testing.T) {
	res := Run(aggPlan(256, 64, sessions(
		timedTurn{0, traffic.Turn{InputLength: 4, OutputLength: 2, Prompt: tokens(1, 2, 3, 4)}},
		timedTurn{10, traffic.Turn{InputLength: 4, OutputLength: 2, Prompt: tokens(5, 6, 7, 8)}},
	)))
	for i := 0; i < res.Outcomes.Len(); i++ {
		r := res.Outcomes.At(i)
		if e := r.LastToken - r.Arrival; e != 3 {
			t.Errorf("request %d e2e %g, want 3", i, e)
		}
	}
	if res.Outcomes.At(1).Terminal != 13 {
		t.Errorf("duration %g, want 13", res.Outcomes.At(1).Terminal)
	}
}

// E9: the soft cutoff at 3 ms leaves E1 (n = 4) incomplete.
func TestWorkedE9Cutoff(t *testing.T) {
	p := aggPlan(256, 64, sessions(timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 4, Prompt: []traffic.Segment{{Token: 1, Count: 32}}}}))
	p.CutoffMs = 3
	res := Run(p)
	r := res.Outcomes.At(0)
	if r.Status != engine.Pending || r.Tokens != 3 || r.LastToken != 4 {
		t.Errorf("status %v tokens %d last %g, want pending, 3 tokens, last at 4", r.Status, r.Tokens, r.LastToken)
	}
}

// E10: round robin over 2 workers gives 0, 1, 0, 1; the KV router on two empty workers
// takes the second candidate iff the stream's first uniform_int(2) is 0 → worker 1.
func TestWorkedE10Routing(t *testing.T) {
	var ts []timedTurn
	for i := 0; i < 4; i++ {
		ts = append(ts, timedTurn{0, traffic.Turn{InputLength: 4, OutputLength: 1, Prompt: tokens(uint32(i), 2, 3, 4)}})
	}
	p := aggPlan(256, 4, sessions(ts...))
	p.Agg.Replicas = 2
	res := Run(p)
	for i, want := range []int32{0, 1, 0, 1} {
		if got := res.Outcomes.At(i).WorkerID; got != want {
			t.Errorf("round robin request %d → worker %d, want %d", i, got, want)
		}
	}
	p = aggPlan(256, 4, sessions(ts[:1]...))
	p.Agg.Replicas = 2
	p.Agg.Router = router.Config{Policy: router.KV, BlockSize: 4, TrackPrefill: true, TrackDecodeBlocks: true, AssumeKVReuse: true,
		UseEvents: true, OverlapScoreCredit: 1, PrefillLoadScale: 1, QueueThreshold: 16 * 8192}
	res = Run(p)
	if got := res.Outcomes.At(0).WorkerID; got != 1 {
		t.Errorf("kv router tie → worker %d, want 1", got)
	}
}

func kvRouter(bs int, mbt int) router.Config {
	return router.Config{Policy: router.KV, BlockSize: bs, TrackPrefill: true, TrackDecodeBlocks: true, AssumeKVReuse: true,
		UseEvents: true, OverlapScoreCredit: 1, PrefillLoadScale: 1, QueueThreshold: 16 * float64(mbt)}
}

// The KV router sends a request to the worker that holds its prefix (from the KV events of
// the earlier request), where round robin would alternate; the prefix is then reused.
func TestKVRouterPrefixAffinity(t *testing.T) {
	prompt := make([]traffic.Segment, 8)
	for i := range prompt {
		prompt[i] = traffic.Segment{Token: uint32(100 + i), Count: 4}
	}
	second := append(append([]traffic.Segment{}, prompt[:6]...), traffic.Segment{Token: 7, Count: 8})
	w := sessions(
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 2, Prompt: prompt}},
		timedTurn{50, traffic.Turn{InputLength: 32, OutputLength: 2, Prompt: second}},
	)
	p := aggPlan(256, 4, w)
	p.Agg.Replicas = 2
	p.Agg.Router = kvRouter(4, 8192)
	p.Agg.Rank.WantEvents = true
	res := Run(p)
	a, b := res.Outcomes.At(0), res.Outcomes.At(1)
	if a.WorkerID != b.WorkerID || b.Reuse != 24 {
		t.Errorf("A on %d, B on %d reusing %d tokens; want the same worker and 24 reused", a.WorkerID, b.WorkerID, b.Reuse)
	}
	rt := res.Histories.Of(2).Routes[0]
	if !rt.HasOverlap || rt.Overlap != 6 || rt.BestOverlap != 6 {
		t.Errorf("route %+v, want overlap 6 blocks", rt)
	}
}

// When every worker's active prefill tokens exceed 16 × max_batched_tokens the KV router
// queues requests and releases them as prefills complete; nothing is lost.
func TestKVRouterQueue(t *testing.T) {
	var ts []timedTurn
	for i := 0; i < 10; i++ {
		ts = append(ts, timedTurn{0, traffic.Turn{InputLength: 600, OutputLength: 2, Prompt: []traffic.Segment{{Token: uint32(i + 1), Count: 600}}}})
	}
	p := aggPlan(4096, 4, sessions(ts...))
	p.Agg.Replicas = 2
	p.Agg.Rank.MaxBatchedTokens = 64
	p.Agg.Router = kvRouter(4, 64)
	p.Agg.Rank.WantEvents = true
	res := Run(p)
	queued := 0
	for i := 0; i < res.Outcomes.Len(); i++ {
		if o := res.Outcomes.At(i); o.Status != engine.Completed {
			t.Fatalf("request %d not completed", i)
		}
		rt := res.Histories.Of(int32(i + 1)).Routes[0]
		if rt.Queued {
			queued++
			if rt.Worker < 0 || rt.ReleasedAt <= rt.EnteredAt {
				t.Errorf("queued route %+v never released after entering", rt)
			}
		}
	}
	// Two placements per worker push both above 1024 tokens; the other six wait.
	if queued != 6 {
		t.Errorf("%d requests queued, want 6", queued)
	}
}

// A rank that runs out of work while another rank of its worker continues forms empty passes:
// nothing of its last pass is finished again (attention DP, docs/semantics/simulation.md §9).
func TestIdleRankFormsEmptyPasses(t *testing.T) {
	p := aggPlan(256, 4, sessions(
		timedTurn{0, traffic.Turn{InputLength: 8, OutputLength: 2, Prompt: tokens(1, 2, 3, 4, 5, 6, 7, 8)}},
		timedTurn{0, traffic.Turn{InputLength: 8, OutputLength: 9, Prompt: tokens(9, 10, 11, 12, 13, 14, 15, 16)}},
	))
	p.Agg.DP = 2
	res := Run(p)
	a, b := res.Outcomes.At(0), res.Outcomes.At(1)
	if a.Tokens != 2 || a.Terminal != 3 || b.Tokens != 9 || b.Terminal != 10 {
		t.Errorf("A %d tokens ending %g, B %d tokens ending %g; want 2 at 3 and 9 at 10", a.Tokens, a.Terminal, b.Tokens, b.Terminal)
	}
}
