package simcore

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"
)

// requestRecords runs cfg with per-request capture and returns the records by request id.
func requestRecords(t *testing.T, cfg string, files fstest.MapFS) (map[string]any, map[string]map[string]any) {
	t.Helper()
	wall := 1.0
	out, err := Predict(Input{ConfigName: "test.yaml", ConfigYAML: []byte(cfg), Files: files, CapturePerRequest: true, FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatalf("Predict: %v", err)
	}
	var doc struct {
		PerRequest []map[string]any `json:"per_request"`
	}
	if err := json.Unmarshal(out.PredictionJSON, &doc); err != nil {
		t.Fatal(err)
	}
	recs := map[string]map[string]any{}
	for _, r := range doc.PerRequest {
		recs[r["request_id"].(string)] = r
	}
	return summaryOf(t, out), recs
}

// sglangIntervalTrace is two one-token requests on one SGLang rank with
// prefill_decode_interval 2: a at 0 ms, b at 50 ms, long after a finished.
const sglangIntervalTrace = `{"timestamp": 0, "input_length": 4, "output_length": 1, "hash_ids": [1], "request_id": "a"}
{"timestamp": 50, "input_length": 4, "output_length": 1, "hash_ids": [2], "request_id": "b"}
`

func sglangIntervalConfig(dp, interval int) string {
	return sglangTraceConfig(dp, "prefill_decode_interval: "+itoa(interval)+", max_batched_tokens: 128, max_sequences: 16")
}

// sglangTraceConfig is an SGLang worker of dp attention-DP ranks with the given scheduler
// mapping, one-token pages and fixed pass times (extend 7 ms, decode 2 ms), replaying the
// trace two.jsonl.
func sglangTraceConfig(dp int, scheduler string) string {
	return `
traffic:
  source: {type: trace, format: mooncake, block_size: 4, paths: [two.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      parallelism: {attention_data: ` + itoa(dp) + `}
      scheduler: {` + scheduler + `}
      kv_cache: {block_size: 1, prefix_caching: false, capacity: {type: fixed, blocks: 1024}}
      timing: {type: fixed, prefill_ms: 7, decode_ms: 2}
`
}

// Blocked interval rounds of an idle SGLang rank drain before a later wave (docs/semantics/simulation.md §8
// item 4, docs/semantics/simulation.md §8 "prefill_decode_interval"): b, arriving long after
// a's extend pass armed the interval, is admitted on arrival, as with two attention-DP ranks.
func TestSGLangIntervalDrainsWhileIdle(t *testing.T) {
	files := fstest.MapFS{"two.jsonl": {Data: []byte(sglangIntervalTrace)}}
	for _, c := range []struct{ dp, interval int }{{1, 2}, {2, 2}, {1, 1}} {
		m, recs := requestRecords(t, sglangIntervalConfig(c.dp, c.interval), files)
		wantNum(t, m, "completed_requests", 2)
		a, b := recs["a"], recs["b"]
		if a == nil || b == nil {
			t.Fatalf("%+v: records %v", c, recs)
		}
		wantNum(t, a, "first_token_ms", 7)
		wantNum(t, b, "first_admit_ms", 50)
		wantNum(t, b, "first_token_ms", 57)
	}
	// The interval is the DP group's: a's extend pass on rank 0 also blocks rank 1, where b
	// (arriving during it) waits for the two blocked rounds in which a decodes, [7, 9] and
	// [9, 11]; its extend pass [11, 18] sets the end of the group pass of a's last token.
	files = fstest.MapFS{"two.jsonl": {Data: []byte(`{"timestamp": 0, "input_length": 4, "output_length": 4, "hash_ids": [1], "request_id": "a"}
{"timestamp": 3, "input_length": 4, "output_length": 1, "hash_ids": [2], "request_id": "b"}
`)}}
	_, recs := requestRecords(t, sglangIntervalConfig(2, 2), files)
	wantNum(t, recs["b"], "first_admit_ms", 11)
	wantNum(t, recs["b"], "first_token_ms", 18)
	wantNum(t, recs["a"], "last_token_ms", 18)
	// The basic synthetic workload (6 requests, 32/4, concurrency 2) completes with a long
	// interval and a small pool.
	m := summaryOf(t, predict(t, `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 2}
  stop: {requests: 6}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      scheduler: {prefill_decode_interval: 20}
      kv_cache: {capacity: {type: fixed, blocks: 128}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`))
	wantNum(t, m, "completed_requests", 6)
}

// SGLang's admission budget sees the KV slot of every running request's newest token
// (docs/semantics/simulation.md §8, "KV slots run one token ahead"): with 256 pages and
// prefill_decode_interval 20, the second request (4 + 106 tokens) waits until the first
// (4 + 200) finishes, 199.5 ms after its arrival, as in the reference, instead of slipping in
// when the interval ends (free 232 pages minus 179 × ratio 0.6799 reserved ≈ 110.3 > 110
// without that slot, 109.3 with it).
func TestSGLangAdmissionCountsNewestTokenSlot(t *testing.T) {
	trace := `{"timestamp": 100, "input_length": 4, "output_length": 200, "hash_ids": [1, 2, 3, 4], "request_id": "first"}
{"timestamp": 100.5, "input_length": 4, "output_length": 106, "hash_ids": [5, 6, 7, 8], "request_id": "second"}
`
	cfg := `
traffic:
  source: {type: trace, format: mooncake, block_size: 1, paths: [two.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      scheduler: {prefill_decode_interval: 20, max_sequences: 2}
      kv_cache: {block_size: 1, prefix_caching: false, capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`
	m, recs := requestRecords(t, cfg, fstest.MapFS{"two.jsonl": {Data: []byte(trace)}})
	wantNum(t, m, "completed_requests", 2)
	first, second := recs["first"], recs["second"]
	wantNum(t, first, "e2e_latency_ms", 200)
	if wait := second["first_admit_ms"].(float64) - second["arrival_time_ms"].(float64); wait != 199.5 {
		t.Errorf("second admitted %v ms after its arrival, want 199.5", wait)
	}
}

// A disaggregated SGLang prefill rank reserves L + 1 tokens, never the output (docs/semantics/simulation.md
// §11.5 amended): a 3/8 request fits a prefill pool of 2 pages of 4 tokens.
func TestSGLangDisaggregatedPrefillIgnoresOutput(t *testing.T) {
	cfg := `
traffic:
  source: {type: synthetic, input_tokens: 3, output_tokens: 8}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 1}
engine:
  mode: disaggregated
  backend: sglang
` + strings.Replace(strings.Replace(disaggFixedEngine,
		"    prefill:\n      kv_cache: {capacity: {type: fixed, blocks: 256}}",
		"    prefill:\n      kv_cache: {block_size: 4, capacity: {type: fixed, blocks: 2}}", 1),
		"    decode:\n      kv_cache: {capacity: {type: fixed, blocks: 256}}",
		"    decode:\n      kv_cache: {capacity: {type: fixed, blocks: 64}}", 1)
	m := summaryOf(t, predict(t, cfg))
	wantNum(t, m, "completed_requests", 1)
	wantNum(t, m, "total_output_tokens", 8)
}
