package replay

import (
	"testing"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/router"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
)

// disaggPlan is one prefill and one decode worker with fixed 1/1 timing, blocks blocks of bs
// tokens per rank, round-robin routers and no transfer delay.
func disaggPlan(policy engine.Policy, blocks, bs int, w traffic.Workload) *Plan {
	pool := func(seqs int) *PoolPlan {
		return &PoolPlan{Replicas: 1, DP: 1, GPUsPerWorker: 1,
			Rank: engine.RankConfig{Policy: policy, MaxBatchedTokens: 8192, MaxSequences: seqs, BlockSize: bs, NumBlocks: blocks,
				PrefixCaching: true, Timing: perf.Fixed{Prefill: 1, Decode: 1},
				ChunkedPrefillSize: 8192, MaxPrefillTokens: 16384, Conservativeness: 1},
			Router: router.Config{BlockSize: bs}}
	}
	return &Plan{Disaggregated: true, Prefill: pool(1), Decode: pool(256), Workload: w, Capture: true}
}

// prompt32 is a 32-token prompt of distinct tokens starting at first.
func prompt32(first uint32) []traffic.Segment {
	s := make([]traffic.Segment, 32)
	for i := range s {
		s[i] = traffic.Segment{Token: first + uint32(i), Count: 1}
	}
	return s
}

// kv_transfer.handoff_ms (simulation.md §11.4): with fixed timing an isolated request's first
// token and completion both move by exactly handoff_ms (E8: TTFT 1, e2e 4 without), and its
// prefill blocks stay held on the source until the transfer completes.
func TestHandoffShiftsTTFTAndE2E(t *testing.T) {
	for _, policy := range []engine.Policy{engine.VLLM, engine.SGLang, engine.TRTLLM} {
		for _, h := range []float64{0, 2.5, 40} {
			p := disaggPlan(policy, 256, 16, sessions(timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 4, Prompt: prompt32(1)}}))
			p.Transfer.HandoffMs = h
			res := Run(p)
			r := res.Outcomes.At(0)
			if r.Status != engine.Completed || r.FirstToken != 1+h || r.LastToken != 4+h {
				t.Errorf("policy %d handoff %g: status %v first token %g last %g, want 1+h and 4+h", policy, h, r.Status, r.FirstToken, r.LastToken)
			}
			if r.SourceHeld != 1 || r.SourceReleased != 1+h {
				t.Errorf("policy %d handoff %g: source held %g released %g, want 1 and 1+h", policy, h, r.SourceHeld, r.SourceReleased)
			}
		}
	}
}

// The hand-off latency is paid in prefill KV occupancy: a prefill rank of 3 blocks holds the
// first request's 2 prompt blocks until its transfer completes at 1 + h, so the second
// request (2 blocks) is admitted only then: its prefill runs [1+h, 2+h] and its first token
// is visible at 2 + 2h.
func TestHandoffHoldsSourceBlocks(t *testing.T) {
	for _, h := range []float64{0, 3} {
		p := disaggPlan(engine.VLLM, 256, 16, sessions(
			timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 2, Prompt: prompt32(1)}},
			timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 2, Prompt: prompt32(101)}},
		))
		p.Prefill.Rank.NumBlocks = 3
		p.Transfer.HandoffMs = h
		res := Run(p)
		b := res.Outcomes.At(1)
		if b.Status != engine.Completed || b.FirstAdmit != 1+h || b.FirstToken != 2+2*h {
			t.Errorf("handoff %g: B admitted at %g, first token %g; want %g and %g", h, b.FirstAdmit, b.FirstToken, 1+h, 2+2*h)
		}
	}
}

// The hand-off latency adds to the bandwidth term: E8's small-model transfer of 16 tokens at
// 400 GB/s (22528 B/token) plus handoff_ms.
func TestHandoffPlusBandwidth(t *testing.T) {
	p := disaggPlan(engine.VLLM, 256, 16, sessions(timedTurn{0, traffic.Turn{InputLength: 16, OutputLength: 2, Prompt: prompt32(1)[:16]}}))
	p.Transfer = Transfer{BytesPerToken: 22528, BandwidthGBs: 400, FullPrompt: true, HandoffMs: 7}
	res := Run(p)
	d := 7 + 0.0009011199999999999
	if r := res.Outcomes.At(0); r.FirstToken != 1+d {
		t.Errorf("first token %.17g, want %.17g", r.FirstToken, 1+d)
	}
}
