package simcore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/spec"
)

// The client-visible frontend latency (docs/semantics/simulation.md §5.3): every token becomes visible at
// its engine stamp + frontend_ms; TTFT and E2E grow by exactly that, ITLs do not change, the
// closed loop releases the next request at the previous one's visible completion, and nothing
// the schedulers or the planner see moves.

const frontendClosedLoop = `
traffic:
  source: {type: synthetic, input_tokens: 100, output_tokens: 5}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 3}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 100}}
      timing: {type: fixed, prefill_ms: 10, decode_ms: 2%s}
`

// requestRecords runs a configuration with per-request capture and returns its records in
// ordinal order.
func capturedRecords(t *testing.T, cfg string, files fstest.MapFS) ([]map[string]any, *Output) {
	t.Helper()
	in := Input{ConfigName: "frontend.yaml", ConfigYAML: []byte(cfg), CapturePerRequest: true}
	if files != nil {
		in.Files = files
	}
	out, err := Predict(in)
	if err != nil {
		t.Fatal(err)
	}
	var recs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out.RequestsJSONL))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	return recs, out
}

// summaryFloat is the float value of key k of a summary or record m, failing the test otherwise.
func summaryFloat(t *testing.T, m map[string]any, k string) float64 {
	t.Helper()
	v, ok := m[k].(float64)
	if !ok {
		t.Fatalf("record lacks numeric %s: %v", k, m)
	}
	return v
}

func TestFrontendLatencyFixedTiming(t *testing.T) {
	const f = 7.5
	base, baseOut := capturedRecords(t, strings.Replace(frontendClosedLoop, "%s", "", 1), nil)
	with, withOut := capturedRecords(t, strings.Replace(frontendClosedLoop, "%s", ", frontend_ms: 7.5", 1), nil)
	if len(base) != 3 || len(with) != 3 {
		t.Fatalf("records %d / %d, want 3", len(base), len(with))
	}
	// Engine timeline without a frontend: prefill 10 ms + decode 2 ms → first token at 12 ms,
	// four more tokens 2 ms apart → completion at 20 ms; the next request arrives then.
	for i := range base {
		b, w := base[i], with[i]
		if got, want := summaryFloat(t, b, "ttft_ms"), 12.0; got != want {
			t.Errorf("request %d: TTFT %v, want %v", i, got, want)
		}
		if got, want := summaryFloat(t, w, "ttft_ms"), summaryFloat(t, b, "ttft_ms")+f; got != want {
			t.Errorf("request %d: TTFT with frontend %v, want %v", i, got, want)
		}
		if got, want := summaryFloat(t, w, "e2e_latency_ms"), summaryFloat(t, b, "e2e_latency_ms")+f; got != want {
			t.Errorf("request %d: E2E with frontend %v, want %v", i, got, want)
		}
		if summaryFloat(t, w, "itl_ms") != summaryFloat(t, b, "itl_ms") || summaryFloat(t, w, "ttst_ms") != summaryFloat(t, b, "ttst_ms") {
			t.Errorf("request %d: inter-token times moved: %v/%v vs %v/%v", i, w["itl_ms"], w["ttst_ms"], b["itl_ms"], b["ttst_ms"])
		}
		// Closed loop: request i is released at the previous one's visible completion, i·(20 + f).
		if got, want := summaryFloat(t, w, "arrival_time_ms"), float64(i)*(20+f); got != want {
			t.Errorf("request %d: arrival %v, want %v", i, got, want)
		}
		if got, want := summaryFloat(t, w, "first_token_ms"), summaryFloat(t, w, "arrival_time_ms")+12+f; got != want {
			t.Errorf("request %d: first token visible at %v, want %v", i, got, want)
		}
	}
	var sb, sw map[string]any
	json.Unmarshal(baseOut.SummaryJSON, &sb)
	json.Unmarshal(withOut.SummaryJSON, &sw)
	if sb["mean_tpot_ms"] != sw["mean_tpot_ms"] || sw["mean_ttft_ms"].(float64) != sb["mean_ttft_ms"].(float64)+f {
		t.Errorf("summary: TPOT %v → %v, TTFT %v → %v", sb["mean_tpot_ms"], sw["mean_tpot_ms"], sb["mean_ttft_ms"], sw["mean_ttft_ms"])
	}
}

// Polynomial timing takes frontend_ms too; an open-loop run's schedule (and so the planner's
// decisions and worker-hours) is unchanged, only the client-visible times move.
func TestFrontendLatencyLeavesPlannerAlone(t *testing.T) {
	files := fstest.MapFS{"burst.jsonl": {Data: burstTrace()}}
	type doc struct {
		Summary map[string]any  `json:"summary"`
		Planner json.RawMessage `json:"planner"`
	}
	run := func(cfg string) doc {
		out, err := Predict(Input{ConfigYAML: []byte(cfg), Files: files})
		if err != nil {
			t.Fatal(err)
		}
		var d doc
		if err := json.Unmarshal(out.PredictionJSON, &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	base := run(burstConfig)
	cfg := strings.Replace(burstConfig, "decode_ms: 20}", "decode_ms: 20, frontend_ms: 30}", 1)
	if cfg == burstConfig {
		t.Fatal("the burst configuration changed; update the test")
	}
	with := run(cfg)
	if !bytes.Equal(base.Planner, with.Planner) {
		t.Errorf("planner output changed with a frontend latency:\n%s\n%s", base.Planner, with.Planner)
	}
	if got, want := with.Summary["mean_ttft_ms"].(float64), base.Summary["mean_ttft_ms"].(float64)+30; got != want {
		t.Errorf("mean TTFT %v, want %v", got, want)
	}
	if with.Summary["mean_itl_ms"] != base.Summary["mean_itl_ms"] {
		t.Errorf("mean ITL %v → %v", base.Summary["mean_itl_ms"], with.Summary["mean_itl_ms"])
	}
}

// The default timing model's frontend is the calibrated per-backend latency unless a number
// is configured; frontend_ms: 0 gives the engine's own times.
func TestFrontendLatencyDefaultTiming(t *testing.T) {
	cfg := strings.Replace(seedLike, "%s", "", 1)
	auto, _ := capturedRecords(t, cfg, nil)
	autoExplicit, _ := capturedRecords(t, strings.Replace(seedLike, "%s", "frontend_ms: auto", 1), nil)
	zero, _ := capturedRecords(t, strings.Replace(seedLike, "%s", "frontend_ms: 0", 1), nil)
	set, _ := capturedRecords(t, strings.Replace(seedLike, "%s", "frontend_ms: 25", 1), nil)
	for i := range zero {
		if summaryFloat(t, auto[i], "ttft_ms") != summaryFloat(t, autoExplicit[i], "ttft_ms") {
			t.Fatalf("request %d: frontend_ms: auto differs from the default", i)
		}
		if got, want := summaryFloat(t, set[i], "ttft_ms"), summaryFloat(t, zero[i], "ttft_ms")+25; got != want {
			t.Errorf("request %d: TTFT %v, want %v", i, got, want)
		}
	}
}

// seedLike is a small default-timing run (one request at a time).
const seedLike = `
traffic:
  source: {type: synthetic, input_tokens: 1000, output_tokens: 20}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 2}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      timing: {type: default, %s}
`

func TestFrontendLatencyValidation(t *testing.T) {
	for _, tc := range []struct{ timing, msg string }{
		{"{type: fixed, prefill_ms: 1, decode_ms: 1, frontend_ms: -1}", "at least 0"},
		{"{type: fixed, prefill_ms: 1, decode_ms: 1, frontend_ms: auto}", "a number ≥ 0"},
		{"{type: polynomial, frontend_ms: auto}", "a number ≥ 0"},
		{"{type: default, frontend_ms: fast}", `or "auto"`},
		{"{type: default, frontend_ms: -3}", "at least 0"},
	} {
		cfg := "engine:\n  model: meta-llama/Meta-Llama-3.1-8B-Instruct\n  hardware: h200_sxm\n  workers:\n    aggregated:\n      timing: " + tc.timing + "\n"
		_, err := Predict(Input{ConfigName: "c.yaml", ConfigYAML: []byte(cfg)})
		se, ok := err.(*spec.Error)
		if !ok || se.Path != "engine.workers.aggregated.timing.frontend_ms" || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("%s: error %v, want one at engine.workers.aggregated.timing.frontend_ms containing %q", tc.timing, err, tc.msg)
		}
	}
}

// A session's next turn is released at the previous turn's visible completion plus its delay.
func TestFrontendLatencySessionTurns(t *testing.T) {
	cfg := `
traffic:
  source: {type: synthetic-session, new_input_tokens_per_turn: 64, output_tokens_per_turn: 4, session: {turns: 2, inter_turn_delay_ms: 5}}
  load: {type: concurrency, concurrency: 1}
  stop: {sessions: 1}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 100}}
      timing: {type: fixed, prefill_ms: 10, decode_ms: 2%s}
`
	base, _ := capturedRecords(t, strings.Replace(cfg, "%s", "", 1), nil)
	with, _ := capturedRecords(t, strings.Replace(cfg, "%s", ", frontend_ms: 4", 1), nil)
	if len(base) != 2 || len(with) != 2 {
		t.Fatalf("records %d / %d, want 2", len(base), len(with))
	}
	// Turn 1 completes at 10 + 2 + 3·2 = 18 ms (engine), visible at 22 ms; turn 2 is released
	// 5 ms later.
	if got, want := summaryFloat(t, base[1], "arrival_time_ms"), 18.0+5; got != want {
		t.Errorf("turn 2 arrival without frontend %v, want %v", got, want)
	}
	if got, want := summaryFloat(t, with[1], "arrival_time_ms"), 18.0+4+5; got != want {
		t.Errorf("turn 2 arrival with frontend %v, want %v", got, want)
	}
	if got, want := summaryFloat(t, with[1], "ttft_ms"), summaryFloat(t, base[1], "ttft_ms")+4; got != want {
		t.Errorf("turn 2 TTFT %v, want %v", got, want)
	}
}
