package simcore

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/spec"
)

const fixedEngine = `
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`

func predict(t *testing.T, yaml string, sets ...string) *Output {
	t.Helper()
	wall := 12.5
	out, err := Predict(Input{ConfigName: "test.yaml", ConfigYAML: []byte(yaml), Sets: sets, FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	return out
}

func summaryOf(t *testing.T, out *Output) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out.SummaryJSON, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func wantNum(t *testing.T, m map[string]any, key string, want float64) {
	t.Helper()
	v, ok := m[key].(float64)
	if !ok {
		t.Errorf("%s missing (%v)", key, m[key])
		return
	}
	if v != want {
		t.Errorf("%s = %.17g, want %.17g", key, v, want)
	}
}

// E2 of docs/semantics/simulation.md §14 and the complete prediction.json of docs/semantics/outputs.md §4.7.
func TestWorkedE2Golden(t *testing.T) {
	out := predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 2}
  stop: {requests: 6}
`+fixedEngine)
	want, err := os.ReadFile("testdata/e2_prediction.json")
	if err != nil {
		t.Fatal(err)
	}
	if string(out.PredictionJSON) != string(want) {
		t.Errorf("prediction.json differs from docs/semantics/outputs.md §4.7:\n%s", out.PredictionJSON)
	}
}

// E4: mixed pass; arrivals 0 and 0.5 come from a 2000 req/s constant rate.
func TestWorkedE4(t *testing.T) {
	out := predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 3}
  load: {type: constant_rate, requests_per_second: 2000}
  stop: {requests: 2}
`+fixedEngine)
	m := summaryOf(t, out)
	for k, v := range map[string]float64{
		"duration_ms": 6, "request_throughput_rps": 333.3333333333333, "input_throughput_tok_s": 10666.666666666666,
		"output_throughput_tok_s": 1000, "mean_ttft_ms": 2.75, "median_ttft_ms": 3.5, "std_ttft_ms": 0.75,
		"mean_tpot_ms": 1.25, "std_tpot_ms": 0.25, "mean_ttst_ms": 1.5, "mean_e2e_latency_ms": 5.25,
		"mean_itl_ms": 1.25, "median_itl_ms": 1, "p75_itl_ms": 1, "p90_itl_ms": 2, "p99_itl_ms": 2,
		"std_itl_ms": 0.4330127018922193, "mean_output_token_throughput_per_user": 875,
		"median_output_token_throughput_per_user": 1000, "min_output_token_throughput_per_user": 500,
		"std_output_token_throughput_per_user": 216.50635094610965, "decode_worker_seconds": 0.006,
		"gpu_hours": 1.6666666666666667e-06,
	} {
		wantNum(t, m, k, v)
	}
	if _, ok := m["goodput_completed_requests"]; ok {
		t.Error("goodput keys without an SLA")
	}
	if len(m) != 77 {
		t.Errorf("summary has %d keys, want 77", len(m))
	}
}

// Goodput on E4 (docs/semantics/outputs.md §4.7).
func TestWorkedE4Goodput(t *testing.T) {
	base := `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 3}
  load: {type: constant_rate, requests_per_second: 2000}
  stop: {requests: 2}
` + fixedEngine
	cases := []struct {
		sla       string
		good      float64
		rps, toks float64
	}{
		{"{ttft_ms: 4, itl_ms: 1.5}", 2, 333.3333333333333, 1000},
		{"{ttft_ms: 4, itl_ms: 1.4}", 1, 166.66666666666666, 500},
		{"{e2e_ms: 5}", 1, 166.66666666666666, 500},
	}
	for _, c := range cases {
		m := summaryOf(t, predict(t, base, "evaluation.sla="+c.sla))
		wantNum(t, m, "goodput_completed_requests", c.good)
		wantNum(t, m, "goodput_request_throughput_rps", c.rps)
		wantNum(t, m, "goodput_output_throughput_tok_s", c.toks)
		if len(m) != 80 {
			t.Errorf("%s: %d keys, want 80", c.sla, len(m))
		}
	}
}

// E1: an isolated request with n output tokens has TTFT 2 and e2e n+1.
func TestWorkedE1(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100} {
		out := predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 1}
`+fixedEngine, "traffic.source.output_tokens="+itoa(n))
		m := summaryOf(t, out)
		wantNum(t, m, "mean_ttft_ms", 2)
		wantNum(t, m, "mean_e2e_latency_ms", float64(n+1))
		if n > 1 {
			wantNum(t, m, "mean_tpot_ms", 1)
			wantNum(t, m, "max_itl_ms", 1)
			wantNum(t, m, "min_itl_ms", 1)
		}
	}
}

// E7: SGLang extend/decode passes.
func TestWorkedE7SGLang(t *testing.T) {
	sgl := strings.Replace(fixedEngine, "  workers:", "  backend: sglang\n  workers:", 1)
	m := summaryOf(t, predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 5}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 1}
`+sgl))
	wantNum(t, m, "mean_ttft_ms", 1)
	wantNum(t, m, "mean_e2e_latency_ms", 5)
	m = summaryOf(t, predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: constant_rate, requests_per_second: 2000}
  stop: {requests: 2}
`+sgl))
	wantNum(t, m, "min_ttft_ms", 1)
	wantNum(t, m, "max_ttft_ms", 1.5)
	wantNum(t, m, "max_e2e_latency_ms", 5)
	wantNum(t, m, "min_e2e_latency_ms", 4.5)
	wantNum(t, m, "duration_ms", 5)
}

// An SGLang prompt longer than one chunk whose prompt plus reserved output exceed the whole
// pool can never finish its prefill: once nothing else runs it is rejected
// (docs/semantics/simulation.md §8, "Decisions (no stalls)") instead of stalling the run; one
// that fits completes.
func TestSGLangChunkedPromptBeyondPool(t *testing.T) {
	cfg := func(osl int) string {
		return fmt.Sprintf(`
traffic:
  source: {type: synthetic, input_tokens: 8500, output_tokens: %d}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 2}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      kv_cache: {block_size: 1, capacity: {type: fixed, blocks: 9000}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`, osl)
	}
	m := summaryOf(t, predict(t, cfg(600)))
	wantNum(t, m, "num_requests", 2)
	wantNum(t, m, "completed_requests", 0)
	// The first chunk (8192 tokens) runs in [0, 1]; the second pass rejects the request at 1,
	// the next session starts then and is rejected at 2.
	wantNum(t, m, "duration_ms", 0)
	m = summaryOf(t, predict(t, cfg(400)))
	wantNum(t, m, "completed_requests", 2)
	// Two prefill passes, then 399 decode passes per request.
	wantNum(t, m, "mean_ttft_ms", 2)
	wantNum(t, m, "mean_e2e_latency_ms", 401)
}

// disaggFixedEngine ends an engine section (after mode/backend) with one prefill and one
// decode worker of 256 blocks and fixed 1/1 timing, no transfer delay.
const disaggFixedEngine = `  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  kv_transfer: {bandwidth_gb_per_second: null}
  workers:
    prefill:
      kv_cache: {capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
    decode:
      kv_cache: {capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`

// isolatedDisaggregated is one 32/4 request on the disaggregated fixed-timing engine; engine
// holds extra lines of the engine section (for example the backend).
func isolatedDisaggregated(engine string) string {
	return `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 1}
engine:
  mode: disaggregated
` + engine + disaggFixedEngine
}

// E8: disaggregated, TTFT 1 and e2e 4 without transfer delay; with a delay d both shift.
func TestWorkedE8Disaggregated(t *testing.T) {
	cfg := isolatedDisaggregated("")
	m := summaryOf(t, predict(t, cfg))
	wantNum(t, m, "mean_ttft_ms", 1)
	wantNum(t, m, "mean_e2e_latency_ms", 4)
	wantNum(t, m, "prefill_gpus_per_worker", 1)
	// Llama-3.1-8B: 131072 B/token; 32 tokens at 64 GB/s → 0.065536 ms.
	m = summaryOf(t, predict(t, cfg, "engine.kv_transfer={bandwidth_gb_per_second: 64, timing_mode: full_prompt}"))
	d := ((32.0 * 131072) / (64 * 1e9)) * 1000
	wantNum(t, m, "mean_ttft_ms", 1+d)
	wantNum(t, m, "mean_e2e_latency_ms", 4+d)
}

// Bad input is a *spec.Error naming the field.
func TestPredictConfigErrors(t *testing.T) {
	cases := map[string]string{
		"engine.model":    `engine: {model: no/such-model, hardware: h200_sxm, workers: {aggregated: {timing: {type: fixed, prefill_ms: 1, decode_ms: 1}, kv_cache: {capacity: {type: fixed, blocks: 8}}}}}`,
		"engine.hardware": `engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: z999, workers: {aggregated: {}}}`,
		"router.policy":   "router: {policy: kv_router}\n" + fixedEngine,
		"engine.workers.aggregated.parallelism.tensor": `engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, workers: {aggregated: {parallelism: {tensor: 3}}}}`,
	}
	for path, yaml := range cases {
		_, err := Predict(Input{ConfigYAML: []byte(yaml)})
		var se *spec.Error
		if !errors.As(err, &se) || se.Path != path {
			t.Errorf("want error at %s, got %v", path, err)
		}
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Attention DP: one worker with two ranks takes two simultaneous requests on different
// ranks in one lock-step pass (both TTFT 2 as in E1), and counts tensor × attention_data GPUs.
func TestAttentionDPRanks(t *testing.T) {
	cfg := strings.Replace(fixedEngine, "      kv_cache:", "      parallelism: {attention_data: 2}\n      kv_cache:", 1)
	out := predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 2}
  stop: {requests: 2}
`+cfg)
	m := summaryOf(t, out)
	wantNum(t, m, "max_ttft_ms", 2)
	wantNum(t, m, "duration_ms", 5)
	wantNum(t, m, "decode_gpus_per_worker", 2)
	wantNum(t, m, "gpu_hours", 2*0.005/3600)
	var doc struct {
		PerRequest []struct {
			Routes []struct {
				DPRank int `json:"dp_rank"`
			} `json:"routing_history"`
		} `json:"per_request"`
	}
	wall := 1.0
	o2, err := Predict(Input{ConfigYAML: []byte(`
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 2}
  stop: {requests: 2}
` + cfg), CapturePerRequest: true, FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(o2.PredictionJSON, &doc)
	if len(doc.PerRequest) != 2 || doc.PerRequest[0].Routes[0].DPRank != 0 || doc.PerRequest[1].Routes[0].DPRank != 1 {
		t.Errorf("ranks not rotated: %+v", doc.PerRequest)
	}
}

// Disaggregated SGLang (destination-first, docs/semantics/simulation.md §11.3): an isolated request has
// TTFT 1 (extend pass, no decode part) and e2e 4 with fixed 1/1 timing. When the decode rank
// cannot hold a second request's pages, its transfer waits for the first to finish.
func TestSGLangDisaggregatedDestinationFirst(t *testing.T) {
	cfg := isolatedDisaggregated("  backend: sglang\n")
	m := summaryOf(t, predict(t, cfg))
	wantNum(t, m, "mean_ttft_ms", 1)
	wantNum(t, m, "mean_e2e_latency_ms", 4)
	// Decode rank of 40 pages: the first request reserves 33 (L + 1) and grows to 36; the
	// second (arriving with it) waits until the first completes at 4 to reserve, so its first
	// token is visible at 4 (prefill finished at 2) and its last at 7.
	tight := strings.Replace(cfg, "    decode:\n      kv_cache: {capacity: {type: fixed, blocks: 256}}", "    decode:\n      kv_cache: {capacity: {type: fixed, blocks: 40}}", 1)
	m = summaryOf(t, predict(t, tight, "traffic.load.concurrency=2", "traffic.stop.requests=2"))
	wantNum(t, m, "completed_requests", 2)
	wantNum(t, m, "max_ttft_ms", 4)
	wantNum(t, m, "duration_ms", 7)
}
