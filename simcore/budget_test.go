package simcore

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"unsafe"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/spec"
)

// The runs that used to exhaust the module's memory (a makeslice panic for a huge KV
// capacity, an out-of-memory for thousands of replicas or billions of requests) are refused
// before anything is allocated, naming the field that sets the size.
func TestMemoryBudgetRefusals(t *testing.T) {
	quick, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		sets    []string
		capture bool
		path    string
		fit     string
	}{
		// Running requests that can outgrow the pool may be preempted, so the pool's state is
		// bounded by its capacity only: 8,000 replicas × 16,384 blocks × 40 bytes.
		{[]string{"engine.workers.aggregated.parallelism.replicas=8000", "traffic.load.concurrency=2000", "traffic.stop.requests=2000",
			"engine.workers.aggregated.scheduler.max_sequences=1024"}, false,
			"engine.workers.aggregated.parallelism.replicas", "at most 4855 replicas fit; or lower engine.workers.aggregated.scheduler.max_sequences to at most 819, so that no request can be preempted"},
		// One worker over half the budget: its capacity is named. 9e7 blocks of 40 bytes
		// (3.4 GiB); 6,000 running requests of 1,000,128 tokens (15,628 blocks) outgrow it.
		{[]string{"engine.workers.aggregated.kv_cache.capacity.blocks=90000000", "traffic.source.input_tokens=1000000", "engine.context_length=2000000",
			"traffic.load.concurrency=6000", "traffic.stop.requests=6000", "engine.workers.aggregated.scheduler.max_sequences=6000"}, false,
			"engine.workers.aggregated.kv_cache.capacity", "KV blocks per rank fit"},
		// Without preemption the state is bounded by the workload's shareable blocks: a
		// million sessions of four turns sharing a 16-block prefix on a pool of a billion
		// blocks (4e6 × 17 blocks, twice, × 40 bytes = 5.1 GiB).
		{[]string{"engine.workers.aggregated.kv_cache.capacity.blocks=1000000000",
			"traffic.source={type: synthetic-session, new_input_tokens_per_turn: 1024, output_tokens_per_turn: 8, session: {turns: 4, shared_prefix_ratio: 1, prefix_groups: 1}}",
			"traffic.stop={sessions: 1000000}"}, false, "traffic.stop.sessions", "requests fit"},
		{[]string{"traffic.stop.requests=1000000000000"}, false, "traffic.stop.requests", "requests fit"},
		{[]string{"traffic.stop.requests=10000000", "traffic.load.concurrency=10000000"}, false, "traffic.load.concurrency", "reduce it"},
		{[]string{"traffic.stop.requests=1000000"}, true, "traffic.stop.requests", "requests fit"},
	}
	// A fixed KV capacity of 16,384 blocks of 64 tokens, so the limits do not move with the
	// memory model.
	fixed := []string{"engine.workers.aggregated.kv_cache.block_size=64",
		"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 16384}"}
	for _, c := range cases {
		sets := append(append([]string{}, fixed...), c.sets...)
		err := estimate(t, quick, sets, c.capture)
		var se *spec.Error
		if !errors.As(err, &se) {
			t.Errorf("%v: want a *spec.Error, got %v", c.sets, err)
			continue
		}
		kv := strings.Contains(c.path, "kv_cache") || strings.Contains(c.path, "replicas")
		if kv && !strings.Contains(se.Msg, "bytes of block state for prefix caching, none without it") {
			t.Errorf("%v: %s does not say that the block state is prefix caching's", c.sets, se.Msg)
		}
		if c.path == "traffic.stop.sessions" && !strings.Contains(se.Msg, "twice the shareable blocks of all requests, as no request can be preempted") {
			t.Errorf("%v: %s does not say that the workload bounds the block state", c.sets, se.Msg)
		}
		if se.Path != c.path || !strings.Contains(se.Msg, c.fit) || !strings.Contains(se.Msg, "3.0 GiB a run may use") {
			t.Errorf("%v: got %s: %s; want path %s and %q", c.sets, se.Path, se.Msg, c.path, c.fit)
		}
	}
}

// A pool whose running requests cannot outgrow it never preempts, so with prompts no other
// request shares it identifies no block: a billion blocks per rank, with prefix caching on,
// is within the estimate and runs (it was refused while the state was charged at the
// capacity).
func TestMemoryBudgetPreemptionFreePools(t *testing.T) {
	quick, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, capacity := range []string{"blocks: 1000000000", "blocks: 9223372036854775807"} {
		sets := []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, " + capacity + "}", "traffic.stop.requests=20"}
		if _, err := Predict(Input{ConfigName: "q.yaml", ConfigYAML: quick, Sets: sets, MemoryBudget: 1 << 20}); err != nil {
			t.Errorf("%s: %v", capacity, err)
		}
	}
}

// estimate lowers a configuration and checks its memory as Predict does, without simulating
// (a run the check wrongly admitted would otherwise run for minutes).
func estimate(t *testing.T, text []byte, sets []string, capture bool) error {
	t.Helper()
	in := Input{ConfigName: "q.yaml", ConfigYAML: text, Sets: sets, CapturePerRequest: capture}
	cfg, err := spec.LoadConfig(text, sets)
	if err != nil {
		return err
	}
	plan, _, err := lower(cfg, &in)
	if err != nil {
		return err
	}
	return checkPlanMemory(cfg, plan, &in)
}

// A caller's smaller budget (the edge worker's) applies the same estimate.
func TestMemoryBudgetOfCaller(t *testing.T) {
	quick, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{ConfigName: "q.yaml", ConfigYAML: quick, MemoryBudget: 64 << 10}
	_, err = Predict(in)
	var se *spec.Error
	if !errors.As(err, &se) || se.Path != "traffic.stop.requests" || !strings.Contains(se.Msg, "64.0 KiB a run may use") {
		t.Fatalf("got %v", err)
	}
	in.MemoryBudget = 64 << 20
	if _, err := Predict(in); err != nil {
		t.Fatalf("the quickstart example fits in 64 MiB: %v", err)
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[float64]string{0: "0 bytes", 1023: "1023 bytes", 1536: "1.5 KiB", 3 << 30: "3.0 GiB", 4e19: "34.7 EiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%v) = %q, want %q", n, got, want)
		}
	}
}

// Streamed outputs are the bytes of the held ones.
func TestStreamOutputsSameBytes(t *testing.T) {
	quick, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wall := 1.0
	in := Input{ConfigName: "q.yaml", ConfigYAML: quick, CapturePerRequest: true, FixedWallTimeMs: &wall, Sets: []string{"traffic.stop.requests=20"}}
	held, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	in.StreamOutputs = true
	streamed, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	if streamed.PredictionJSON != nil || streamed.RequestsJSONL != nil {
		t.Errorf("StreamOutputs still returned the bytes")
	}
	var pred, req bytes.Buffer
	if err := streamed.WriteOutputs(&pred, &req); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pred.Bytes(), held.PredictionJSON) || !bytes.Equal(req.Bytes(), held.RequestsJSONL) {
		t.Errorf("streamed outputs differ from the held ones")
	}
	if !bytes.Contains(held.PredictionJSON, []byte(`"per_request_records": 20`)) || bytes.Count(held.RequestsJSONL, []byte{'\n'}) != 20 {
		t.Errorf("the capture does not hold 20 records")
	}
}

// The estimate's KV term bounds what the pools really hold: after a run, no rank has
// allocated state for more blocks than engine.MaxStateBlocks allows for its pool — none
// without prefix caching, however large the capacity — and the stress configurations (KV
// pressure, vLLM preemption, SGLang retraction, shared prefixes, disaggregation) do allocate
// some with it, so the bound is exercised.
func TestPoolStateWithinEstimate(t *testing.T) {
	cases := []struct {
		file string
		sets []string
		// shares: the workload has shared prefixes, so prefix caching identifies blocks.
		shares bool
		// tight: no request can be preempted, so the bound is the workload's, not the capacity.
		tight bool
	}{
		{"../examples/stress/sessions-pressure.yaml", []string{"engine.workers.aggregated.kv_cache.capacity.blocks=100000"}, true, true},
		{"../examples/stress/sglang-chunked.yaml", []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 1000000}"}, true, true},
		{"../examples/stress/disagg-kv.yaml", []string{"engine.workers.prefill.kv_cache.capacity.blocks=300000", "engine.workers.decode.kv_cache.capacity.blocks=300000"}, true, true},
		{"../examples/stress/sessions-pressure.yaml", nil, true, false},
		{"../examples/stress/disagg-kv.yaml", nil, true, false},
		{"../examples/stress/sglang-chunked.yaml", nil, true, false},
		{"../examples/stress/trt-poisson.yaml", nil, false, false},
		{"../examples/stress/sessions-pressure.yaml", []string{"engine.workers.aggregated.kv_cache.prefix_caching=false"}, false, false},
		{"../examples/stress/disagg-kv.yaml", []string{"engine.workers.prefill.kv_cache.prefix_caching=false", "engine.workers.decode.kv_cache.prefix_caching=false"}, false, false},
	}
	for _, c := range cases {
		text, err := os.ReadFile(c.file)
		if err != nil {
			t.Fatal(err)
		}
		in := Input{ConfigName: c.file, ConfigYAML: text, Sets: c.sets}
		cfg, err := spec.LoadConfig(text, c.sets)
		if err != nil {
			t.Fatal(err)
		}
		plan, _, err := lower(cfg, &in)
		if err != nil {
			t.Fatal(err)
		}
		res := replay.Run(plan)
		held := 0
		requests, _, ok := cfg.Traffic.SyntheticRequests()
		if !ok {
			requests = float64(plan.Workload.Requests)
		}
		check := func(role string, p *replay.PoolPlan, workers []*engine.Worker) {
			if p == nil {
				return
			}
			for _, w := range workers {
				for _, k := range w.Ranks {
					held += k.KV.StateBlocks()
					got, bound := k.KV.StateBlocks(), stateBlocks(plan, p, role, requests)
					if got > bound {
						t.Errorf("%s %v: a rank holds state for %d blocks, more than the estimate's %d", c.file, c.sets, got, bound)
					}
					if c.tight && bound >= p.Rank.NumBlocks {
						t.Errorf("%s %v: the bound is the capacity (%d); the case does not exercise the workload's bound", c.file, c.sets, bound)
					}
				}
			}
		}
		check(spec.RoleAggregated, plan.Agg, res.AggWorkers)
		check(spec.RolePrefill, plan.Prefill, res.PrefillWorkers)
		check(spec.RoleDecode, plan.Decode, res.DecodeWorkers)
		if c.shares && held == 0 {
			t.Errorf("%s: no rank identified a block; the case does not exercise the bound", c.file)
		}
	}
}

// Without prefix caching a pool keeps no block state, so its capacity costs no memory: a
// billion blocks per rank, refused while pools were allocated whole, now runs.
func TestMemoryBudgetAnonymousPools(t *testing.T) {
	quick, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sets := []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 1000000000}",
		"engine.workers.aggregated.kv_cache.prefix_caching=false", "traffic.stop.requests=20"}
	if _, err := Predict(Input{ConfigName: "q.yaml", ConfigYAML: quick, Sets: sets}); err != nil {
		t.Fatalf("a billion anonymous blocks: %v", err)
	}
}

// The deployment a planner picks for Llama 3.1 70B at 20 requests/s (5 replicas of TP4 on
// H100, 2,000 requests) fits the edge worker's 96 MiB: no request can outgrow its pool, and
// the prompts share nothing, so the pools identify no block (it was estimated at 225.9 MiB
// while the state was charged at the capacity).
func TestMemoryBudgetEdge70B(t *testing.T) {
	text := []byte(`traffic:
  source: {type: synthetic, input_tokens: 2048, output_tokens: 256}
  load: {type: poisson, requests_per_second: 20}
  stop: {requests: 2000}
engine:
  mode: aggregated
  model: meta-llama/Meta-Llama-3.1-70B
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      parallelism: {replicas: 5, tensor: 4}
evaluation:
  sla: {ttft_ms: 500, itl_ms: 40}
`)
	in := Input{ConfigName: "70b.yaml", ConfigYAML: text, MemoryBudget: 96 << 20}
	cfg, err := spec.LoadConfig(text, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, _, err := lower(cfg, &in)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkPlanMemory(cfg, plan, &in); err != nil {
		t.Fatalf("refused at the edge's budget: %v", err)
	}
	if got := stateBlocks(plan, plan.Agg, spec.RoleAggregated, 2000); got != 16 {
		t.Errorf("state bound %d blocks per rank, want 16 (the pool's first allocation)", got)
	}
}

// The streamed capture charge covers what the engine keeps per captured request: its
// history-log entries for one admission and one route, a second admission and the record
// order (an int32 ordinal), so the estimate never admits a capture the log then outgrows.
func TestStreamedCaptureChargeCoversHistory(t *testing.T) {
	second := int64(unsafe.Sizeof(struct {
		a    engine.Admission
		next int32
	}{}))
	need := engine.CapturedHistoryBytes + second + 4
	if streamedCaptureBytes < need {
		t.Fatalf("streamedCaptureBytes = %d, below the %d bytes one captured request keeps (history log %d, second admission %d, order 4)",
			streamedCaptureBytes, need, engine.CapturedHistoryBytes, second)
	}
	t.Logf("history per captured request %d bytes, charged %d", engine.CapturedHistoryBytes, streamedCaptureBytes)
}
