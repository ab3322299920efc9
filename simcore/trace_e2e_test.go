package simcore

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

func traceConfig(format, path, load string) string {
	return `
traffic:
  source: {type: trace, format: ` + format + `, paths: [` + path + `]}
  load: ` + load + `
` + fixedEngine
}

func fixtureFS(t *testing.T, names ...string) fstest.MapFS {
	fs := fstest.MapFS{}
	for _, n := range names {
		b, err := os.ReadFile("internal/traffic/testdata/" + n)
		if err != nil {
			t.Fatal(err)
		}
		fs[n] = &fstest.MapFile{Data: b}
	}
	return fs
}

// E3 through the whole pipeline: the Mooncake fixture (32/4 at 0, 24/3 at 20 ms) with
// speedup 2 arrives at 0 and 10 ms; with fixed 1/1 timing e2e is 5 and 4, duration 14.
func TestWorkedE3MooncakeEndToEnd(t *testing.T) {
	wall := 1.0
	out, err := Predict(Input{ConfigYAML: []byte(traceConfig("mooncake", "mooncake.jsonl", "{type: trace_timestamps, speedup: 2}")),
		Files: fixtureFS(t, "mooncake.jsonl"), FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	m := summaryOf(t, out)
	wantNum(t, m, "completed_requests", 2)
	wantNum(t, m, "duration_ms", 14)
	wantNum(t, m, "max_e2e_latency_ms", 5)
	wantNum(t, m, "min_e2e_latency_ms", 4)
	// The dynamo standard fixture (two requests L 4, O 2 at 0 and 20 ms, speedup 2): e2e 3 each,
	// duration 13.
	out, err = Predict(Input{ConfigYAML: []byte(traceConfig("dynamo", "dynamo_standard.jsonl", "{type: trace_timestamps, speedup: 2}")),
		Files: fixtureFS(t, "dynamo_standard.jsonl"), FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	m = summaryOf(t, out)
	wantNum(t, m, "duration_ms", 13)
	wantNum(t, m, "mean_e2e_latency_ms", 3)
}

// Every fixture format replays to completion through Predict.
func TestTraceFormatsReplay(t *testing.T) {
	cases := []struct{ format, file, load string }{
		{"mooncake", "mooncake_sessions.jsonl", "{type: trace_timestamps}"},
		{"mooncake", "mooncake_sessions.jsonl", "{type: concurrency, concurrency: 2}"},
		{"mooncake-delta", "mooncake_delta.jsonl", "{type: trace_timestamps}"},
		{"agentic_mooncake", "agentic_v2.jsonl", "{type: trace_timestamps}"},
		{"agentic_mooncake", "agentic_legacy.jsonl", "{type: trace_timestamps}"},
		{"applied_compute_agentic", "applied_compute.jsonl", "{type: concurrency, concurrency: 1}"},
		{"dynamo", "dynamo_agentic.jsonl", "{type: trace_timestamps}"},
	}
	for _, c := range cases {
		cfg := traceConfig(c.format, c.file, c.load)
		if c.file == "agentic_v2.jsonl" {
			// The v2 header fixes the trace block size at 4.
			cfg = strings.Replace(cfg, "paths: [", "block_size: 4, paths: [", 1)
		}
		out, err := Predict(Input{ConfigYAML: []byte(cfg), Files: fixtureFS(t, c.file)})
		if err != nil {
			t.Errorf("%s %s: %v", c.format, c.file, err)
			continue
		}
		s := out.Summary
		if s["completed_requests"] != int64(s["num_requests"].(int)) || s["num_requests"].(int) == 0 {
			t.Errorf("%s %s: %v of %v completed", c.format, c.file, s["completed_requests"], s["num_requests"])
		}
	}
}

// The shared real traces (beside the repository, skipped when absent) replay to completion.
// The synthetic trace has prompts of up to 191k tokens, beyond Llama 3.1's 131k context, so
// the context length is raised (at 131k those ten requests are rejected, as they should be).
func TestSharedTracesReplay(t *testing.T) {
	for name, want := range map[string]int{"synthetic_trace.jsonl": 3993, "conversation_trace.jsonl": 12031} {
		data, err := os.ReadFile("../../shared/traces/" + name)
		if err != nil {
			t.Skip("shared traces not available")
		}
		cfg := `
traffic:
  source: {type: trace, format: mooncake, paths: [` + name + `]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  context_length: 262144
  workers:
    aggregated:
      parallelism: {replicas: 8}
      kv_cache: {capacity: {type: fixed, blocks: 16384}}
      timing: {type: polynomial}
router: {policy: kv_router}
`
		out, err := Predict(Input{ConfigYAML: []byte(cfg), Files: fstest.MapFS{name: {Data: data}}})
		if err != nil {
			t.Fatal(err)
		}
		if out.Summary["num_requests"] != want || out.Summary["completed_requests"] != int64(want) {
			t.Errorf("%s: %v of %v completed, want all %d", name, out.Summary["completed_requests"], out.Summary["num_requests"], want)
		}
	}
}

// A weka trace through the whole pipeline: the overlap fixture's graph (docs/traces.md,
// "weka") with fixed 1 ms passes (a one-token request takes 2 ms), each request alone on the
// worker; a request starts at the later of its recorded time and its dependencies. outer:0
// runs 0–2 ms; subagent a's request is spawned on its dispatch +300 ms (300–302); outer:2
// joins it +500 ms but was recorded at 1 s (1000–1002); the background prefill-only request
// (out 0, no token, no e2e) starts on outer:2's completion +200 ms (1202); outer:4 follows
// outer:2 +500 ms (1502–1504).
func TestWekaEndToEnd(t *testing.T) {
	wall := 1.0
	out, err := Predict(Input{ConfigYAML: []byte(traceConfig("weka", "weka/overlap.json", "{type: trace_timestamps}")),
		Files: fixtureFS(t, "weka/overlap.json"), FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	m := summaryOf(t, out)
	wantNum(t, m, "completed_requests", 5)
	wantNum(t, m, "duration_ms", 1504)
	wantNum(t, m, "max_e2e_latency_ms", 2)
	wantNum(t, m, "min_e2e_latency_ms", 2)
}
