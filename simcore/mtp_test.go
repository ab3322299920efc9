package simcore

import (
	"bytes"
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// mtpRequest is E1 with n = 6 output tokens.
const mtpRequest = `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 6}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 1}
` + fixedEngine

// MTP bursts (docs/semantics/simulation.md §5.4) with every draft accepted (nextn 3): the prompt's pass
// [0, 2] gives token 1 alone; the decode pass [2, 3] gives 1 + 3 tokens; the pass [3, 4]
// computes their KV and its burst is clipped to the one token still owed. Tokens at 2, 3, 3,
// 3, 3, 4: TTFT 2, e2e 4, TPOT (4 − 2)/5 = 0.4; ITL gaps {1, 0, 0, 0, 1} (a burst is one gap
// and k zero gaps): mean 0.4, median 0, max 1; per-user throughput over positive gaps only.
func TestMTPBurstsClippedWithZeroGaps(t *testing.T) {
	for _, backend := range []string{"vllm", "trtllm"} {
		m := summaryOf(t, predict(t, mtpRequest, "engine.backend="+backend, "engine.nextn=3", "engine.nextn_accept_rates=[1, 1, 1]"))
		wantNum(t, m, "completed_requests", 1)
		wantNum(t, m, "total_output_tokens", 6)
		wantNum(t, m, "mean_ttft_ms", 2)
		wantNum(t, m, "mean_ttst_ms", 1)
		wantNum(t, m, "mean_e2e_latency_ms", 4)
		wantNum(t, m, "mean_tpot_ms", 0.4)
		wantNum(t, m, "mean_itl_ms", 0.4)
		wantNum(t, m, "median_itl_ms", 0)
		wantNum(t, m, "max_itl_ms", 1)
		wantNum(t, m, "min_itl_ms", 0)
		wantNum(t, m, "min_output_token_throughput_per_user", 1000)
		wantNum(t, m, "max_output_token_throughput_per_user", 1000)
	}
	// SGLang (E7): extend pass [0, 1] gives token 1, decode [1, 2] gives 4, [2, 3] the last.
	m := summaryOf(t, predict(t, mtpRequest, "engine.backend=sglang", "engine.workers.aggregated.kv_cache.block_size=1",
		"engine.nextn=3", "engine.nextn_accept_rates=[1, 1, 1]"))
	wantNum(t, m, "total_output_tokens", 6)
	wantNum(t, m, "mean_ttft_ms", 1)
	wantNum(t, m, "mean_e2e_latency_ms", 3)
	wantNum(t, m, "mean_itl_ms", 0.4)
}

// Disaggregated: the first token is visible at the transfer (1, E8), the first decode pass
// [1, 2] gives a burst of 1 + 2 tokens, [2, 3] the last two of six (clipped from 3).
func TestMTPDisaggregated(t *testing.T) {
	cfg := isolatedDisaggregated("")
	m := summaryOf(t, predict(t, cfg, "traffic.source.output_tokens=6", "engine.nextn=2", "engine.nextn_accept_rates=[1, 1]"))
	wantNum(t, m, "total_output_tokens", 6)
	wantNum(t, m, "mean_ttft_ms", 1)
	wantNum(t, m, "mean_e2e_latency_ms", 3)
	wantNum(t, m, "mean_tpot_ms", 0.4)
}

// mtpLoad is a loaded closed loop of 12 requests over 4 slots on the fixed-timing engine,
// with a KV pool small enough to preempt (vLLM) or retract (SGLang).
const mtpLoad = `
traffic:
  source: {type: synthetic, input_tokens: 100, output_tokens: 40}
  load: {type: concurrency, concurrency: 4}
  stop: {requests: 12}
` + fixedEngine

// With every acceptance rate 0 no draft is ever kept: outputs equal nextn 0's exactly (with
// fixed timing the drafts cost nothing), for every backend and both modes, although MTP ranks
// never use the steady decode shortcut. Draws are seeded: two runs with rates 0.5 are equal,
// and they emit bursts (fewer passes, so a shorter run than without MTP).
func TestMTPRateZeroEqualsOff(t *testing.T) {
	for _, sets := range [][]string{
		{"engine.backend=vllm"},
		{"engine.backend=vllm", "engine.workers.aggregated.kv_cache.capacity.blocks=6"},
		{"engine.backend=trtllm"},
		{"engine.backend=sglang", "engine.workers.aggregated.kv_cache.block_size=1", "engine.workers.aggregated.kv_cache.capacity.blocks=400"},
	} {
		off := predict(t, mtpLoad, sets...)
		zero := predict(t, mtpLoad, append(sets, "engine.nextn=2", "engine.nextn_accept_rates=[0, 0]")...)
		if !bytes.Equal(off.PredictionJSON, zero.PredictionJSON) {
			t.Errorf("%v: rates 0 differ from nextn 0:\n%s\n%s", sets, off.SummaryJSON, zero.SummaryJSON)
		}
		half := append(sets, "engine.nextn=2", "engine.nextn_accept_rates=[0.5, 0.5]")
		a, b := predict(t, mtpLoad, half...), predict(t, mtpLoad, half...)
		if !bytes.Equal(a.PredictionJSON, b.PredictionJSON) {
			t.Errorf("%v: two seeded runs differ", sets)
		}
		ma, mo := summaryOf(t, a), summaryOf(t, off)
		wantNum(t, ma, "total_output_tokens", 480)
		if ma["duration_ms"].(float64) >= mo["duration_ms"].(float64) {
			t.Errorf("%v: MTP run %v ms, not shorter than %v ms without", sets, ma["duration_ms"], mo["duration_ms"])
		}
	}
	dis := isolatedDisaggregated("")
	off := predict(t, dis, "traffic.load.concurrency=3", "traffic.stop.requests=9")
	zero := predict(t, dis, "traffic.load.concurrency=3", "traffic.stop.requests=9", "engine.nextn=1", "engine.nextn_accept_rates=[0]")
	if !bytes.Equal(off.PredictionJSON, zero.PredictionJSON) {
		t.Errorf("disaggregated: rates 0 differ from nextn 0")
	}
}

// engine.nextn reaches every rank with the documented default rates when none are given.
func TestMTPLowering(t *testing.T) {
	cfg, err := spec.LoadConfig([]byte(mtpRequest), []string{"engine.nextn=2"})
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := lower(cfg, &Input{})
	if err != nil {
		t.Fatal(err)
	}
	rc := plan.Agg.Rank
	if rc.NextN != 2 || len(rc.AcceptRates) != 2 || rc.AcceptRates[0] != perf.DefaultAcceptRates(2)[0] || rc.AcceptRates[1] != perf.DefaultAcceptRates(2)[1] {
		t.Errorf("nextn %d rates %v, want 2 and the defaults", rc.NextN, rc.AcceptRates)
	}
}

// engine.nextn > 0 makes the MTP draft layer's weights resident, so a default capacity holds
// exactly the blocks the memory model leaves after them (docs/timing.md "MTP draft weights").
func TestMTPWeightsShrinkDefaultCapacity(t *testing.T) {
	sets := []string{"engine.model=deepseek-ai/DeepSeek-R1", "engine.hardware=b200_sxm", "engine.backend=trtllm",
		"engine.workers.aggregated.parallelism={tensor: 8}", "engine.workers.aggregated.kv_cache={capacity: {type: default}}",
		"engine.workers.aggregated.timing={type: default}"}
	blocks := func(extra ...string) int {
		cfg, err := spec.LoadConfig([]byte(mtpRequest), append(append([]string(nil), sets...), extra...))
		if err != nil {
			t.Fatal(err)
		}
		plan, _, err := lower(cfg, &Input{})
		if err != nil {
			t.Fatal(err)
		}
		return plan.Agg.Rank.NumBlocks
	}
	m, _ := catalog.LookupModel("deepseek-ai/DeepSeek-R1", nil)
	hw, _ := catalog.LookupHardware("b200_sxm")
	par := spec.Parallelism{Tensor: 8}
	dep, err := perf.NewDeployment(m, hw, spec.BackendTRTLLM, par, perf.Quant{})
	if err != nil {
		t.Fatal(err)
	}
	want0, err0 := dep.KVCapacityBlocks(perf.MemorySettings{MemoryFraction: 0.9, MaxBatchedTokens: 8192}, 32)
	want1, err1 := dep.KVCapacityBlocks(perf.MemorySettings{MemoryFraction: 0.9, MaxBatchedTokens: 8192, NextN: 1}, 32)
	if err0 != nil || err1 != nil || want1 >= want0 {
		t.Fatalf("memory model: %d %v, %d %v", want0, err0, want1, err1)
	}
	if got0, got1 := blocks(), blocks("engine.nextn=1"); got0 != want0 || got1 != want1 {
		t.Errorf("blocks nextn 0: %d (want %d), nextn 1: %d (want %d)", got0, want0, got1, want1)
	}
}
