package simcore

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

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
		{[]string{"engine.workers.aggregated.kv_cache.capacity.blocks=1000000000"}, false, "engine.workers.aggregated.kv_cache.capacity", "KV blocks per rank fit"},
		{[]string{"engine.workers.aggregated.kv_cache.capacity.blocks=9223372036854775807"}, false, "engine.workers.aggregated.kv_cache.capacity", "KV blocks per rank fit"},
		{[]string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, bytes: 9223372036854775807}",
			"engine.workers.aggregated.kv_cache.bytes_per_token=131072"}, false, "engine.workers.aggregated.kv_cache.capacity", "KV blocks per rank fit"},
		{[]string{"engine.workers.aggregated.parallelism.replicas=8000"}, false, "engine.workers.aggregated.parallelism.replicas", "at most 4915 replicas fit"},
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
		_, err := Predict(Input{ConfigName: "q.yaml", ConfigYAML: quick, Sets: sets, CapturePerRequest: c.capture})
		var se *spec.Error
		if !errors.As(err, &se) {
			t.Errorf("%v: want a *spec.Error, got %v", c.sets, err)
			continue
		}
		kv := strings.Contains(c.path, "kv_cache") || strings.Contains(c.path, "replicas")
		if kv && !strings.Contains(se.Msg, "bytes of block state for prefix caching, none without it") {
			t.Errorf("%v: %s does not say that the block state is prefix caching's", c.sets, se.Msg)
		}
		if se.Path != c.path || !strings.Contains(se.Msg, c.fit) || !strings.Contains(se.Msg, "3.0 GiB a run may use") {
			t.Errorf("%v: got %s: %s; want path %s and %q", c.sets, se.Path, se.Msg, c.path, c.fit)
		}
	}
}

// A caller's smaller budget (the edge worker's) applies the same estimate.
func TestMemoryBudgetOfCaller(t *testing.T) {
	quick, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{ConfigName: "q.yaml", ConfigYAML: quick, MemoryBudget: 512 << 10}
	_, err = Predict(in)
	var se *spec.Error
	if !errors.As(err, &se) || se.Path != "engine.workers.aggregated.kv_cache.capacity" || !strings.Contains(se.Msg, "512.0 KiB a run may use") {
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
	if err := streamed.WritePrediction(&pred); err != nil {
		t.Fatal(err)
	}
	if err := streamed.WriteRequests(&req); err != nil {
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
	}{
		{"../examples/stress/sessions-pressure.yaml", nil, true},
		{"../examples/stress/disagg-kv.yaml", nil, true},
		{"../examples/stress/sglang-chunked.yaml", nil, true},
		{"../examples/stress/trt-poisson.yaml", nil, false},
		{"../examples/stress/sessions-pressure.yaml", []string{"engine.workers.aggregated.kv_cache.prefix_caching=false"}, false},
		{"../examples/stress/disagg-kv.yaml", []string{"engine.workers.prefill.kv_cache.prefix_caching=false", "engine.workers.decode.kv_cache.prefix_caching=false"}, false},
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
		check := func(p *replay.PoolPlan, workers []*engine.Worker) {
			if p == nil {
				return
			}
			for _, w := range workers {
				for _, k := range w.Ranks {
					held += k.KV.StateBlocks()
					if got, bound := k.KV.StateBlocks(), engine.MaxStateBlocks(p.Rank); got > bound {
						t.Errorf("%s %v: a rank holds state for %d blocks, more than the estimate's %d", c.file, c.sets, got, bound)
					}
				}
			}
		}
		check(plan.Agg, res.AggWorkers)
		check(plan.Prefill, res.PrefillWorkers)
		check(plan.Decode, res.DecodeWorkers)
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
