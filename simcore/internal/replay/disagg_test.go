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

// kv_transfer.handoff_ms (docs/semantics/simulation.md §11.4): with fixed timing an isolated request's first
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

// Attention DP in both disaggregated roles (docs/semantics/simulation.md §11.5 amended, §9), for every
// backend, with round-robin and KV routers: two requests
// released together go to prefill ranks 0 and 1 of the one prefill worker and prefill in the
// same lock-step pass [0, 1] (with dp 1 the second waits for [1, 2]: max_sequences is 1 per
// rank); the decode router places them on decode ranks 0 and 1, whose group passes [1, 2],
// [2, 3], [3, 4] give tokens 2..4. Both: TTFT 1, e2e 4.
func TestAttentionDPInBothRoles(t *testing.T) {
	for i := 0; i < 6; i++ {
		kv, policy := i%2 == 1, []engine.Policy{engine.VLLM, engine.SGLang, engine.TRTLLM}[i/2]
		w := sessions(
			timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 4, Prompt: prompt32(1)}},
			timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 4, Prompt: prompt32(101)}},
		)
		p := disaggPlan(policy, 256, 16, w)
		p.Prefill.DP, p.Decode.DP = 2, 2
		if kv {
			// Decode router of §11.1: cost = active decode blocks + request blocks, so the
			// second request avoids the rank holding the first.
			p.Prefill.Router = kvRouter(16, 8192)
			p.Prefill.Rank.WantEvents = true
			p.Decode.Router = router.Config{Policy: router.KV, BlockSize: 16, TrackDecodeBlocks: true, QueueThreshold: 16 * 8192}
		}
		res := Run(p)
		for i := 0; i < 2; i++ {
			r := res.Outcomes.At(i)
			if r.Status != engine.Completed || r.FirstToken != 1 || r.LastToken != 4 || r.Tokens != 4 {
				t.Errorf("policy %d kv %v request %d: status %v tokens %d first %g last %g, want 4 tokens at 1 … 4", policy, kv, i, r.Status, r.Tokens, r.FirstToken, r.LastToken)
			}
			if r.PrefillWorker != 0 || r.WorkerID != 0 || r.SourceHeld != 1 || r.DecodeAdmit != 1 {
				t.Errorf("kv %v request %d: prefill worker %d, decode worker %d, held %g, decode admit %g; want 0, 0, 1, 1", kv, i, r.PrefillWorker, r.WorkerID, r.SourceHeld, r.DecodeAdmit)
			}
		}
		a, b := res.Outcomes.At(0), res.Outcomes.At(1)
		if a.PrefillRank == b.PrefillRank || a.RankID == b.RankID {
			t.Errorf("kv %v: prefill ranks %d/%d, decode ranks %d/%d; want different ranks in both roles", kv, a.PrefillRank, b.PrefillRank, a.RankID, b.RankID)
		}
		rt := res.Histories.Of(2).Routes
		if len(rt) != 2 || rt[0].Pool != uint8(engine.PoolPrefill) || rt[1].Pool != uint8(engine.PoolDecode) || rt[1].Scheduler != rt[1].Worker*2+rt[1].Rank {
			t.Errorf("kv %v: routes %+v, want a prefill then a decode placement with scheduler_id = worker × 2 + rank", kv, rt)
		}
	}
	p := disaggPlan(engine.VLLM, 256, 16, sessions(
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 4, Prompt: prompt32(1)}},
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 4, Prompt: prompt32(101)}},
	))
	if b := Run(p).Outcomes.At(1); b.FirstToken != 2 {
		t.Errorf("dp 1: second request's first token at %g, want 2", b.FirstToken)
	}
}

// Lock-step decode group passes (docs/semantics/simulation.md §9): a decode worker with dp 2 whose ranks hold requests of
// different lengths ends every group pass at the same time on both ranks; a request
// handed off while the group pass runs waits for the next one even if its rank is idle.
func TestAttentionDPDecodeLockStep(t *testing.T) {
	w := sessions(
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 6, Prompt: prompt32(1)}},
		timedTurn{1.5, traffic.Turn{InputLength: 32, OutputLength: 3, Prompt: prompt32(101)}},
	)
	p := disaggPlan(engine.VLLM, 256, 16, w)
	p.Decode.DP = 2
	p.Decode.Rank.Timing = perf.Fixed{Prefill: 1, Decode: 2}
	res := Run(p)
	a, b := res.Outcomes.At(0), res.Outcomes.At(1)
	// A: prefill [0,1], decode group passes [1,3], [3,5], [5,7], [7,9], [9,11] → last token 11.
	// B: prefill [1.5, 2.5] (the prefill worker is idle at 1.5), hand-off at 2.5 to decode
	// rank 1, which joins at the group pass starting at 3: [3,5], [5,7] → last token 7.
	if a.LastToken != 11 || b.RankID != 1 || b.FirstToken != 2.5 || b.DecodeAdmit != 3 || b.LastToken != 7 {
		t.Errorf("A last %g; B rank %d first %g decode admit %g last %g; want 11; 1, 2.5, 3, 7", a.LastToken, b.RankID, b.FirstToken, b.DecodeAdmit, b.LastToken)
	}
}

// TensorRT-LLM decode ranks admit a hand-off only when its whole to-completion footprint fits
// (docs/semantics/simulation.md §7 amended, §11.3), with no prefix credit. Block 16, L 32, O 20: footprint
// ceil(52/16) = 4 blocks. A decode rank of 7 blocks admits A at 1 (holding 3 blocks, 1 more
// to come); B's hand-off at 2 finds (7 − 3) − 1 = 3 < 4 available and waits until A completes
// at 20, although its prompt's 2 blocks are already active there when it repeats A's prompt
// (vLLM's rule would admit it at 2). B then decodes [20, 21] … [38, 39] and reuses A's prompt
// blocks if they are the same.
func TestTRTLLMDisaggregatedDecodeReservation(t *testing.T) {
	for _, same := range []bool{false, true} {
		bPrompt := prompt32(101)
		if same {
			bPrompt = prompt32(1)
		}
		p := disaggPlan(engine.TRTLLM, 256, 16, sessions(
			timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 20, Prompt: prompt32(1)}},
			timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 20, Prompt: bPrompt}},
		))
		p.Decode.Rank.NumBlocks = 7
		res := Run(p)
		a, b := res.Outcomes.At(0), res.Outcomes.At(1)
		if a.DecodeAdmit != 1 || a.LastToken != 20 || a.Tokens != 20 {
			t.Errorf("same %v: A decode admit %g, last token %g (%d tokens); want 1, 20 (20)", same, a.DecodeAdmit, a.LastToken, a.Tokens)
		}
		wantReuse := 0
		if same {
			wantReuse = 32
		}
		if b.FirstToken != 2 || b.DecodeAdmit != 20 || b.LastToken != 39 || b.Tokens != 20 || b.DecodeReused != wantReuse {
			t.Errorf("same %v: B first %g, decode admit %g, last %g (%d tokens), decode reuse %d; want 2, 20, 39 (20), %d",
				same, b.FirstToken, b.DecodeAdmit, b.LastToken, b.Tokens, b.DecodeReused, wantReuse)
		}
	}
}

// On a TensorRT-LLM prefill rank the footprint is the prompt plus the bootstrap token, never
// the output (docs/semantics/simulation.md §11.5 amended): with 2 blocks of 16, L 31 fits (ceil(32/16) = 2)
// whatever O is, while L 32 needs 3 and is rejected at its first pass.
func TestTRTLLMPrefillFootprint(t *testing.T) {
	p := disaggPlan(engine.TRTLLM, 256, 16, sessions(
		timedTurn{0, traffic.Turn{InputLength: 31, OutputLength: 1000, Prompt: prompt32(1)[:31]}},
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 2, Prompt: prompt32(101)}},
	))
	p.Prefill.Rank.NumBlocks = 2
	res := Run(p)
	a, b := res.Outcomes.At(0), res.Outcomes.At(1)
	if a.Status != engine.Completed || a.O != 1000 || a.Tokens != 1000 {
		t.Errorf("A: status %v, O %d, %d tokens; want completed with all 1000", a.Status, a.O, a.Tokens)
	}
	if b.Status != engine.Rejected || b.Terminal != 1 {
		t.Errorf("B: status %v at %g; want rejected at its first pass (1)", b.Status, b.Terminal)
	}
}

// A finished TensorRT-LLM prefill leaves the rank's reservation totals when it is handed off:
// its held blocks count as active until the transfer completes, and nothing of its footprint
// stays reserved afterwards. On a prefill rank of 4 blocks (footprint 3 blocks per request)
// with a 5 ms hand-off, each request waits for the previous one's source release, and all
// five complete: prefills start at 0, 6, 12, 18, 24.
func TestTRTLLMPrefillHoldAccounting(t *testing.T) {
	var ts []timedTurn
	for i := 0; i < 5; i++ {
		ts = append(ts, timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 2, Prompt: prompt32(uint32(1 + 100*i))}})
	}
	p := disaggPlan(engine.TRTLLM, 256, 16, sessions(ts...))
	p.Prefill.Rank.NumBlocks = 4
	p.Transfer.HandoffMs = 5
	res := Run(p)
	for i := 0; i < 5; i++ {
		r := res.Outcomes.At(i)
		if r.Status != engine.Completed || r.FirstAdmit != float64(6*i) {
			t.Errorf("request %d: status %v, admitted at %g; want completed, admitted at %d", i, r.Status, r.FirstAdmit, 6*i)
		}
	}
}

// A TensorRT-LLM hand-off whose prompt and two tokens can never fit its decode rank is
// rejected there at the pass start that examines it (its first token was already visible),
// instead of blocking the rank: block 16, L 32 on a decode rank of 2 blocks (ceil(34/16) = 3).
func TestTRTLLMDecodeRejectsWhatNeverFits(t *testing.T) {
	p := disaggPlan(engine.TRTLLM, 256, 16, sessions(
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 5, Prompt: prompt32(1)}},
		timedTurn{0, traffic.Turn{InputLength: 8, OutputLength: 5, Prompt: prompt32(101)[:8]}},
	))
	p.Decode.Rank.NumBlocks = 2
	res := Run(p)
	a, b := res.Outcomes.At(0), res.Outcomes.At(1)
	if a.Status != engine.Rejected || a.Terminal != 1 || a.Tokens != 1 || a.O != 2 {
		t.Errorf("A: %v at %g with %d tokens, O %d; want rejected at 1 with 1 token, O clipped to 2", a.Status, a.Terminal, a.Tokens, a.O)
	}
	if b.Status != engine.Completed || b.Tokens != 5 {
		t.Errorf("B: %v with %d tokens; want completed with 5", b.Status, b.Tokens)
	}
}

// Every backend's prefill rank reserves and charges blocks for the prompt plus the bootstrap
// token, never the output (docs/semantics/simulation.md §11.5 amended). vLLM, blocks of 16 on a prefill rank
// of 2: L 31 fits (ceil(32/16) = 2), L 32 needs 3 and is rejected at its first pass. SGLang,
// pages of 1 on a prefill rank of 40: L 32 with O 100 is admitted (33 tokens) although its
// output would never fit there (the output is the decode rank's business).
func TestPrefillFootprintIsPromptPlusBootstrap(t *testing.T) {
	p := disaggPlan(engine.VLLM, 256, 16, sessions(
		timedTurn{0, traffic.Turn{InputLength: 31, OutputLength: 3, Prompt: prompt32(1)[:31]}},
		timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 3, Prompt: prompt32(101)}},
	))
	p.Prefill.Rank.NumBlocks = 2
	res := Run(p)
	if a, b := res.Outcomes.At(0), res.Outcomes.At(1); a.Status != engine.Completed || b.Status != engine.Rejected || b.Terminal != 1 {
		t.Errorf("vLLM: A %v, B %v at %g; want A completed, B rejected at 1", a.Status, b.Status, b.Terminal)
	}
	p = disaggPlan(engine.SGLang, 256, 1, sessions(timedTurn{0, traffic.Turn{InputLength: 32, OutputLength: 100, Prompt: prompt32(1)}}))
	p.Prefill.Rank.NumBlocks = 40
	res = Run(p)
	if a := res.Outcomes.At(0); a.Status != engine.Completed || a.Tokens != 100 || a.FirstToken != 1 {
		t.Errorf("SGLang: %v with %d tokens, first at %g; want completed with 100, first at 1", a.Status, a.Tokens, a.FirstToken)
	}
}

// An SGLang decode pass that only retracts counts as a pass (docs/semantics/simulation.md §8 step 3), so its
// victim is re-examined at once: a hand-off whose output outgrows a decode rank of 45 pages of
// 2 (L 20, O 187) is retracted at 70 output tokens, when its 90 known tokens leave no slot for
// the token the next pass produces (SGLang's slots run one token ahead, §8), and, as no idle
// rank could ever admit it with its reserved output, rejected, instead of waiting forever on
// a worker nothing wakes.
func TestSGLangDecodeRetractionOnlyPass(t *testing.T) {
	p := disaggPlan(engine.SGLang, 45, 2, sessions(timedTurn{0, traffic.Turn{InputLength: 20, OutputLength: 187, Prompt: prompt32(1)[:20]}}))
	res := Run(p)
	r := res.Outcomes.At(0)
	if r.Status != engine.Rejected || r.Preemptions != 1 || r.Tokens != 70 {
		t.Errorf("status %v, %d retractions, %d tokens; want rejected after 1 retraction with 70 tokens", r.Status, r.Preemptions, r.Tokens)
	}
}

// A destination-first (SGLang) hand-off with O = 1 completes at its transfer and gives its
// decode-rank reservation back: on a decode rank of 3 pages of 16, each of five L 32 requests
// reserves 3 pages (ceil(33/16)) and all complete; the reservations used to leak, so the
// second hand-off waited forever.
func TestSGLangSingleTokenReleasesDestination(t *testing.T) {
	var ts []timedTurn
	for i := 0; i < 5; i++ {
		ts = append(ts, timedTurn{float64(10 * i), traffic.Turn{InputLength: 32, OutputLength: 1, Prompt: prompt32(uint32(1 + 100*i))}})
	}
	p := disaggPlan(engine.SGLang, 256, 16, sessions(ts...))
	p.Decode.Rank.NumBlocks = 3
	res := Run(p)
	for i := 0; i < 5; i++ {
		if r := res.Outcomes.At(i); r.Status != engine.Completed || r.FirstToken != float64(10*i)+1 {
			t.Errorf("request %d: %v, first token %g; want completed at %d", i, r.Status, r.FirstToken, 10*i+1)
		}
	}
	if k := res.DecodeWorkers[0].Ranks[0]; k.KV.Active() != 0 {
		t.Errorf("%d decode pages still reserved", k.KV.Active())
	}
}
