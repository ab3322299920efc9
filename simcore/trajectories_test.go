package simcore

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/report"
)

// trajectoryConfig replays testdata/agentic_trajectories.jsonl: three plays. Play a (a-root at
// 0, a-tool spawned 5 ms after a-root's dispatch, a-join 1 ms after both complete) ends at
// 12 ms; play b's root is longer than the 16-token context, so it is rejected at 20 ms and
// b-next is canceled; play c (one request at 30 ms) ends at 34 ms.
const trajectoryConfig = `
traffic:
  source: {type: trace, format: agentic_mooncake, block_size: 4, paths: [agentic_trajectories.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  context_length: 16
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`

func trajectoryFixture(t *testing.T) Input {
	t.Helper()
	data, err := os.ReadFile("testdata/agentic_trajectories.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	wall := 12.5
	return Input{ConfigYAML: []byte(trajectoryConfig), Files: fstest.MapFS{"agentic_trajectories.jsonl": {Data: data}}, FixedWallTimeMs: &wall, CapturePerRequest: true}
}

// The 13 trajectory keys of docs/semantics/outputs.md §4.6 on a fixture whose plays are worked out by hand
// (trajectoryConfig), and the whole prediction.json as a golden file.
func TestTrajectoryMetricsGolden(t *testing.T) {
	out, err := Predict(trajectoryFixture(t))
	if err != nil {
		t.Fatal(err)
	}
	m := summaryOf(t, out)
	wantNum(t, m, report.KeyTotalTrajectories, 3)
	wantNum(t, m, report.KeyCompletedTrajectories, 2)
	wantNum(t, m, report.KeyIncompleteTrajectories, 1)
	// Completed trajectories: a (0 → 12 ms) and c (30 → 34 ms).
	d := report.TrajectoryE2ELatency
	wantNum(t, m, d.Key(report.Min), 4)
	wantNum(t, m, d.Key(report.Max), 12)
	wantNum(t, m, d.Key(report.Mean), 8)
	wantNum(t, m, d.Key(report.Std), 4)
	wantNum(t, m, d.Key(report.Median), 12) // N = 2: the larger value (docs/semantics/outputs.md §4.2)
	wantNum(t, m, report.KeyP50TrajectoryE2ELatencyMs, 12)
	wantNum(t, m, d.Key(report.P99), 12)
	if len(m) != 77+13 {
		t.Errorf("summary has %d keys, want 90 (77 + 13 trajectory keys)", len(m))
	}
	// The counts are JSON integers.
	for _, kv := range []string{`"completed_trajectories":2,`, `"incomplete_trajectories":1,`, `"total_trajectories":3,`} {
		if !strings.Contains(string(out.SummaryJSON), kv) {
			t.Errorf("summary lacks %s: %s", kv, out.SummaryJSON)
		}
	}
	wantGolden(t, "testdata/agentic_trajectories.prediction.json", out.PredictionJSON)
}

// The trajectory keys exist exactly for agentic-graph sources (agentic_mooncake, agentic
// dynamo traces), never for other traces.
func TestTrajectoryKeysOnlyForAgenticGraphs(t *testing.T) {
	cases := []struct {
		format, file, load string
		agentic            bool
	}{
		{"agentic_mooncake", "agentic_v2.jsonl", "{type: trace_timestamps}", true},
		{"agentic_mooncake", "agentic_legacy.jsonl", "{type: trace_timestamps}", true},
		{"dynamo", "dynamo_agentic.jsonl", "{type: trace_timestamps}", true},
		{"dynamo", "dynamo_standard.jsonl", "{type: trace_timestamps}", false},
		{"mooncake", "mooncake_sessions.jsonl", "{type: trace_timestamps}", false},
		{"applied_compute_agentic", "applied_compute.jsonl", "{type: concurrency, concurrency: 1}", false},
	}
	for _, c := range cases {
		cfg := traceConfig(c.format, c.file, c.load)
		if c.file == "agentic_v2.jsonl" {
			cfg = strings.Replace(cfg, "paths: [", "block_size: 4, paths: [", 1)
		}
		out, err := Predict(Input{ConfigYAML: []byte(cfg), Files: fixtureFS(t, c.file)})
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		s := out.Summary
		n := 0
		for _, k := range []string{report.KeyTotalTrajectories, report.KeyCompletedTrajectories, report.KeyIncompleteTrajectories, report.KeyP50TrajectoryE2ELatencyMs} {
			if _, ok := s[k]; ok {
				n++
			}
		}
		for _, st := range report.Statistics {
			if _, ok := s[report.TrajectoryE2ELatency.Key(st)]; ok {
				n++
			}
		}
		want := 0
		if c.agentic {
			want = 13
			if s[report.KeyTotalTrajectories] != s[report.KeyCompletedTrajectories] || s[report.KeyIncompleteTrajectories] != 0 {
				t.Errorf("%s: %v of %v trajectories completed, want all", c.file, s[report.KeyCompletedTrajectories], s[report.KeyTotalTrajectories])
			}
		}
		if n != want || len(s) != 77+want {
			t.Errorf("%s: %d trajectory keys and %d keys in all, want %d and %d", c.file, n, len(s), want, 77+want)
		}
	}
}

// A play cut off by max_virtual_time_seconds before all its requests were released is
// counted, and incomplete; with no completed trajectory the nine statistics are 0.0.
func TestTrajectoryCutOffIsIncomplete(t *testing.T) {
	cfg := traceConfig("dynamo", "dynamo_agentic.jsonl", "{type: trace_timestamps}") + "\n"
	cfg = strings.Replace(cfg, "load: {type: trace_timestamps}", "load: {type: trace_timestamps}\n  stop: {max_virtual_time_seconds: 0.01}", 1)
	out, err := Predict(Input{ConfigYAML: []byte(cfg), Files: fixtureFS(t, "dynamo_agentic.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	m := summaryOf(t, out)
	if n := m[report.KeyNumRequests].(float64); n >= 4 {
		t.Fatalf("num_requests = %v: the cutoff released every request, the test needs one that does not", n)
	}
	wantNum(t, m, report.KeyTotalTrajectories, 1)
	wantNum(t, m, report.KeyCompletedTrajectories, 0)
	wantNum(t, m, report.KeyIncompleteTrajectories, 1)
	for _, st := range report.Statistics {
		wantNum(t, m, report.TrajectoryE2ELatency.Key(st), 0)
	}
	wantNum(t, m, report.KeyP50TrajectoryE2ELatencyMs, 0)
}
