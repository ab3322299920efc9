package simcore

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

// burstTrace is a Mooncake trace with a dense burst in the first 8 s and a trickle after.
func burstTrace() []byte {
	var b strings.Builder
	id := 0
	row := func(ts int) {
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 2048, "output_length": 100, "hash_ids": [%d, %d, %d, %d]}`+"\n", ts, id, id+1, id+2, id+3)
		id += 4
	}
	for ts := 0; ts < 4000; ts += 40 {
		row(ts)
	}
	for ts := 4000; ts < 60000; ts += 2000 {
		row(ts)
	}
	return []byte(b.String())
}

const burstConfig = `
traffic:
  source: {type: trace, format: mooncake, paths: [burst.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 1500}}
      timing: {type: fixed, prefill_ms: 40, decode_ms: 20}
      startup_seconds: 2
planner:
  policy: enabled
  target: load
  enable_throughput_scaling: false
  enable_load_scaling: true
  load_adjustment_interval_seconds: 5
  max_num_gpus: 4
`

type plannerDoc struct {
	Summary map[string]any `json:"summary"`
	Planner struct {
		TotalTicks    int `json:"total_ticks"`
		ScalingEvents []struct {
			AtS       float64 `json:"at_s"`
			Component string  `json:"component"`
			From      int     `json:"from_count"`
			To        int     `json:"to_count"`
			Reason    string  `json:"reason"`
		} `json:"scaling_events"`
		Ops []struct {
			AtMs      float64 `json:"at_ms"`
			Operation string  `json:"operation"`
			WorkerID  int     `json:"worker_id"`
		} `json:"lifecycle_operations"`
	} `json:"planner"`
}

// A burst makes the load planner add a worker at a load tick, the worker becomes ready after
// startup_seconds, and it is drained and removed once the load falls. Nothing is lost and the
// GPU-hours are the integral of provisioned workers.
func TestPlannerBurstScalesUpAndDown(t *testing.T) {
	files := fstest.MapFS{"burst.jsonl": {Data: burstTrace()}}
	wall := 1.0
	out, err := Predict(Input{ConfigYAML: []byte(burstConfig), Files: files, FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	var d plannerDoc
	if err := json.Unmarshal(out.PredictionJSON, &d); err != nil {
		t.Fatal(err)
	}
	s := d.Summary
	if s["completed_requests"] != s["num_requests"] {
		t.Fatalf("requests lost: %v of %v completed", s["completed_requests"], s["num_requests"])
	}
	// Fixed timing makes the whole story exact: the backlog at the first load tick (5 s)
	// adds a worker, ready after startup_seconds (7 s); at the 10 s tick the load has fallen,
	// so the newest worker drains and is removed when its last request ends (10.04 s).
	ev := d.Planner.ScalingEvents
	if len(ev) != 2 || ev[0].AtS != 5 || ev[0].Component != "agg" || ev[0].From != 1 || ev[0].To != 2 || ev[0].Reason != "scale_up" ||
		ev[1].AtS != 10 || ev[1].From != 2 || ev[1].To != 1 || ev[1].Reason != "scale_down" {
		t.Fatalf("scaling events %+v, want scale_up 1→2 at 5 s and scale_down 2→1 at 10 s", ev)
	}
	type op struct {
		at   float64
		kind string
		id   int
	}
	var ops []op
	for _, o := range d.Planner.Ops {
		ops = append(ops, op{o.AtMs, o.Operation, o.WorkerID})
	}
	if want := []op{{5000, "add", 1}, {7000, "ready", 1}, {10000, "drain", 1}, {10040, "remove", 1}}; fmt.Sprint(ops) != fmt.Sprint(want) {
		t.Errorf("lifecycle %v, want %v", ops, want)
	}
	if s["decode_worker_seconds"] != 65.08 {
		t.Errorf("decode_worker_seconds %v, want 60.04 + 5.04 = 65.08", s["decode_worker_seconds"])
	}
	// Worker-seconds = ∫ provisioned workers dt from the lifecycle operations.
	count, last, ws := 1.0, 0.0, 0.0
	sawReady := false
	firstReady := true
	for _, op := range d.Planner.Ops {
		ws += count * (op.AtMs - last) / 1000
		last = op.AtMs
		switch op.Operation {
		case "add":
			count++
		case "cancel", "remove":
			count--
		case "ready":
			sawReady = true
			if firstReady && op.AtMs != ev[0].AtS*1000+2000 {
				t.Errorf("worker ready at %g ms, want tick + startup 2 s = %g", op.AtMs, ev[0].AtS*1000+2000)
			}
			firstReady = false
		}
	}
	dur := s["duration_ms"].(float64)
	ws += count * (dur - last) / 1000
	got := s["decode_worker_seconds"].(float64)
	if !sawReady || math.Abs(got-ws) > 1e-9*ws {
		t.Errorf("decode_worker_seconds %v, integral of lifecycle %v (ready seen %v)", got, ws, sawReady)
	}
	if gh := s["gpu_hours"].(float64); math.Abs(gh-got/3600) > 1e-12 {
		t.Errorf("gpu_hours %v != worker-seconds/3600", gh)
	}
	if d.Planner.TotalTicks == 0 {
		t.Error("no ticks")
	}
}

// The budget clamp: max_num_gpus 2 with tensor 2 allows one worker only, so the burst
// cannot scale up at all.
func TestPlannerBudgetClamp(t *testing.T) {
	files := fstest.MapFS{"burst.jsonl": {Data: burstTrace()}}
	cfg := strings.Replace(burstConfig, "max_num_gpus: 4", "max_num_gpus: 2", 1)
	cfg = strings.Replace(cfg, "      startup_seconds: 2", "      startup_seconds: 2\n      parallelism: {tensor: 2}", 1)
	out, err := Predict(Input{ConfigYAML: []byte(cfg), Files: files})
	if err != nil {
		t.Fatal(err)
	}
	var d plannerDoc
	json.Unmarshal(out.PredictionJSON, &d)
	if len(d.Planner.ScalingEvents) != 0 {
		t.Errorf("scaling events %+v despite a budget of one worker", d.Planner.ScalingEvents)
	}
	if d.Summary["completed_requests"] != d.Summary["num_requests"] {
		t.Error("requests lost")
	}
}

// SLA (throughput) scaling in disaggregated mode with the KV router: the bootstrap profile is
// installed, throughput logic runs at its interval with a lower bound, and nothing is lost.
func TestPlannerDisaggregatedSLA(t *testing.T) {
	cfg := `
traffic:
  source: {type: synthetic, input_tokens: 1024, output_tokens: 64}
  load: {type: poisson, requests_per_second: 20}
  stop: {requests: 1500}
engine:
  mode: disaggregated
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  kv_transfer: {bandwidth_gb_per_second: 50}
  workers:
    prefill:
      parallelism: {replicas: 2}
      kv_cache: {capacity: {type: fixed, blocks: 4000}}
      timing: {type: polynomial}
    decode:
      parallelism: {replicas: 2}
      kv_cache: {capacity: {type: fixed, blocks: 4000}}
      timing: {type: polynomial}
router: {policy: kv_router}
planner:
  policy: enabled
  target: sla
  enable_throughput_scaling: true
  enable_load_scaling: true
  throughput_adjustment_interval_seconds: 20
  load_adjustment_interval_seconds: 5
evaluation:
  sla: {ttft_ms: 300, itl_ms: 30}
`
	out, err := Predict(Input{ConfigYAML: []byte(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Summary map[string]any `json:"summary"`
		Planner struct {
			Metadata struct {
				Mode      string `json:"mode"`
				Bootstrap struct {
					Status  string         `json:"status"`
					Samples map[string]int `json:"samples"`
				} `json:"bootstrap"`
			} `json:"metadata"`
			Ticks []struct {
				AtMs        float64        `json:"at_ms"`
				Diagnostics map[string]any `json:"diagnostics"`
				Input       struct {
					Traffic *struct {
						NumReq int `json:"num_req"`
					} `json:"traffic"`
				} `json:"input"`
			} `json:"ticks"`
		} `json:"planner"`
	}
	if err := json.Unmarshal(out.PredictionJSON, &d); err != nil {
		t.Fatal(err)
	}
	md := d.Planner.Metadata
	if md.Mode != "disagg" || md.Bootstrap.Status != "installed" || md.Bootstrap.Samples["prefill"] == 0 || md.Bootstrap.Samples["decode"] == 0 {
		t.Errorf("metadata %+v", md)
	}
	throughputTicks := 0
	for _, tk := range d.Planner.Ticks {
		if math.Mod(tk.AtMs, 20000) == 0 {
			throughputTicks++
			if tk.Input.Traffic == nil || tk.Diagnostics["throughput_reason"] == nil {
				t.Errorf("tick at %g: throughput logic did not run: %+v", tk.AtMs, tk.Diagnostics)
			}
		} else if tk.Input.Traffic != nil {
			t.Errorf("tick at %g has traffic but is not a throughput tick", tk.AtMs)
		}
	}
	if throughputTicks == 0 {
		t.Error("no throughput tick")
	}
	if d.Summary["completed_requests"] != 1500.0 {
		t.Errorf("completed %v of 1500", d.Summary["completed_requests"])
	}
	if d.Summary["prefill_worker_seconds"].(float64) <= 0 || d.Summary["prefill_gpus_per_worker"] != 1.0 {
		t.Errorf("prefill accounting %v %v", d.Summary["prefill_worker_seconds"], d.Summary["prefill_gpus_per_worker"])
	}
}
