package simcore

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/internal/replay"
)

// sharedPrefixTrace writes a Mooncake trace whose rows share leading hash ids in groups, so
// some blocks are shared and others unique.
func sharedPrefixTrace(rows int) []byte {
	var b strings.Builder
	for i := 0; i < rows; i++ {
		g := i % 3
		fmt.Fprintf(&b, `{"timestamp": %d, "input_length": %d, "output_length": %d, "hash_ids": [%d, %d, %d, %d]}`+"\n",
			i*7, 1500+i%5*100, 20+i%9, 1000+g, 2000+g, 3000+i, 4000+i)
	}
	return []byte(b.String())
}

var equivalenceConfigs = map[string]string{
	// Open-loop single-turn aggregated runs fast-forward steady-only workers.
	"poisson-fast-forward": `
traffic:
  source: {type: synthetic, input_tokens: 700, output_tokens: 300}
  load: {type: poisson, requests_per_second: 30, seed: 7}
  stop: {requests: 300}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      parallelism: {replicas: 3, attention_data: 2}
      kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 900}}
      timing: {type: polynomial}
router: {policy: kv_router}
`,
	"trace-agg-fast-forward": `
traffic:
  source: {type: trace, format: mooncake, paths: [t.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      parallelism: {replicas: 2}
      kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 700}}
      timing: {type: polynomial}
router: {policy: kv_router}
`,
	"preemption": `
traffic:
  source: {type: synthetic, input_tokens: 600, output_tokens: 90}
  load: {type: concurrency, concurrency: 24}
  stop: {requests: 200}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 700}}
      timing: {type: polynomial}
`,
	"sessions-kv-router": `
traffic:
  source: {type: synthetic-session, new_input_tokens_per_turn: 300, output_tokens_per_turn: 30,
           session: {turns: 3, shared_prefix_ratio: 0.5, prefix_groups: 3, inter_turn_delay_ms: 5}}
  load: {type: poisson, sessions_per_second: 40}
  stop: {sessions: 60}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      parallelism: {replicas: 3}
      kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 400}}
      timing: {type: polynomial}
router: {policy: kv_router, temperature: 0.3}
`,
	"sglang": `
traffic:
  source: {type: synthetic, input_tokens: 200, output_tokens: 60}
  load: {type: concurrency, concurrency: 16}
  stop: {requests: 80}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 2000}}
      timing: {type: polynomial}
`,
	// SGLang's steady decode cohort (engine/sglang_steady.go) needs prefix caching off: a
	// tight pool retracts, a context length stops outputs early, and one request owes more
	// than clip_max_new_tokens for its first passes.
	"sglang-cohort-retraction": `
traffic:
  source: {type: synthetic, input_tokens: 300, output_tokens: 120}
  load: {type: concurrency, concurrency: 20}
  stop: {requests: 90}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  context_length: 400
  workers:
    aggregated:
      kv_cache: {prefix_caching: false, capacity: {type: fixed, blocks: 5200}}
      timing: {type: polynomial}
`,
	"sglang-cohort-long-output": `
traffic:
  source: {type: synthetic, input_tokens: 100, output_tokens: 4200}
  load: {type: concurrency, concurrency: 3}
  stop: {requests: 4}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      kv_cache: {prefix_caching: false, capacity: {type: fixed, blocks: 40000}}
      timing: {type: polynomial}
`,
	// Attention DP with prefill_decode_interval and scheduler_recv_interval, open loop.
	"sglang-cohort-dp-recv": `
traffic:
  source: {type: synthetic, input_tokens: 250, output_tokens: 80}
  load: {type: poisson, requests_per_second: 40, seed: 3}
  stop: {requests: 160}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      parallelism: {replicas: 2, attention_data: 2}
      scheduler: {prefill_decode_interval: 2, recv_interval: 4}
      kv_cache: {prefix_caching: false, capacity: {type: fixed, blocks: 9000}}
      timing: {type: polynomial}
router: {policy: kv_router}
`,
	// Disaggregated: destination-first reservations on tight decode ranks with attention DP.
	"sglang-cohort-disagg": `
traffic:
  source: {type: synthetic, input_tokens: 400, output_tokens: 100}
  load: {type: concurrency, concurrency: 40}
  stop: {requests: 160}
engine:
  mode: disaggregated
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  kv_transfer: {bandwidth_gb_per_second: 50}
  workers:
    prefill:
      parallelism: {replicas: 1}
      kv_cache: {prefix_caching: false, capacity: {type: fixed, blocks: 20000}}
      timing: {type: polynomial}
    decode:
      parallelism: {replicas: 2, attention_data: 2}
      kv_cache: {prefix_caching: false, capacity: {type: fixed, blocks: 4000}}
      timing: {type: polynomial}
`,
	"sglang-cohort-mtp": `
traffic:
  source: {type: synthetic, input_tokens: 200, output_tokens: 70}
  load: {type: concurrency, concurrency: 12}
  stop: {requests: 50}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  nextn: 2
  workers:
    aggregated:
      kv_cache: {prefix_caching: false, capacity: {type: fixed, blocks: 6000}}
      timing: {type: polynomial}
`,
	"trace-disagg": `
traffic:
  source: {type: trace, format: mooncake, paths: [t.jsonl]}
  load: {type: trace_timestamps}
engine:
  mode: disaggregated
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  kv_transfer: {bandwidth_gb_per_second: 50}
  workers:
    prefill:
      parallelism: {replicas: 2}
      kv_cache: {capacity: {type: fixed, blocks: 300}}
      timing: {type: polynomial}
    decode:
      parallelism: {replicas: 2}
      kv_cache: {capacity: {type: fixed, blocks: 300}}
      timing: {type: polynomial}
router: {policy: kv_router}
`,
	"trace-agg-trtllm": `
traffic:
  source: {type: trace, format: mooncake, paths: [t.jsonl]}
  load: {type: concurrency, concurrency: 6}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: trtllm
  workers:
    aggregated:
      parallelism: {replicas: 2}
      kv_cache: {capacity: {type: fixed, blocks: 300}}
      timing: {type: polynomial}
router: {policy: kv_router}
`,
}

// exactPlan turns every shortcut off: every block hashed and indexed, every request visited
// on every pass (no steady cohort, hence no fast-forward).
func exactPlan(p *replay.Plan) {
	p.ShareEverything = true
	for _, pp := range []*replay.PoolPlan{p.Agg, p.Prefill, p.Decode} {
		if pp != nil {
			pp.Rank.Exact = true
		}
	}
}

// The unique-block shortcut (blocks no other request can share are neither hashed nor
// indexed) and the steady decode cohort must not change a single output byte.
func TestShortcutsChangeNothing(t *testing.T) {
	files := fstest.MapFS{"t.jsonl": {Data: sharedPrefixTrace(60)}}
	wall := 1.0
	for name, cfg := range equivalenceConfigs {
		in := Input{ConfigYAML: []byte(cfg), Files: files, CapturePerRequest: true, FixedWallTimeMs: &wall}
		fast, err := predictWith(in, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		slow, err := predictWith(in, exactPlan)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(fast.PredictionJSON, slow.PredictionJSON) {
			t.Errorf("%s: prediction.json differs with every block shareable and every request visited every pass", name)
		}
		if !bytes.Equal(fast.RequestsJSONL, slow.RequestsJSONL) {
			t.Errorf("%s: requests.jsonl differs with every block shareable and every request visited every pass", name)
		}
		if fast.Summary["completed_requests"] == int64(0) {
			t.Errorf("%s: nothing completed", name)
		}
	}
}
