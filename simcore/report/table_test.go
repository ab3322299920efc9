package report

import (
	"strings"
	"testing"
)

// e2Summary is the summary of docs/semantics/simulation.md E2 (docs/semantics/outputs.md §4.7) with a wall time of 12.5 ms.
func e2Summary() map[string]any {
	s := map[string]any{
		"completed_requests": 6, "num_requests": 6, "decode_gpus_per_worker": 1,
		"prefill_gpus_per_worker": 0, "decode_worker_seconds": 0.015, "prefill_worker_seconds": 0.0,
		"duration_ms": 15.0, "gpu_hours": 4.166666666666667e-06, "wall_time_ms": 12.5,
		"input_throughput_tok_s": 12800.0, "output_throughput_tok_s": 1600.0,
		"total_throughput_tok_s": 14400.0, "request_throughput_rps": 400.0,
		"prefix_cache_reused_ratio": 0.0, "first_admission_prefix_cache_reused_ratio": 0.0,
		"num_e2e_latency_samples": 6, "num_tpot_samples": 6, "num_ttft_samples": 6,
		"processed_output_tokens_per_s": 1920.0, "processed_tokens": 216,
		"processed_tokens_per_s": 17280.0, "total_input_tokens": 192, "total_output_tokens": 24,
	}
	dists := map[string]float64{"ttft_ms": 2, "ttst_ms": 1, "tpot_ms": 1, "itl_ms": 1,
		"e2e_latency_ms": 5, "output_token_throughput_per_user": 1000}
	for suffix, v := range dists {
		for _, st := range []string{"mean", "min", "max", "median", "p75", "p90", "p95", "p99"} {
			s[st+"_"+suffix] = v
		}
		s["std_"+suffix] = 0.0
	}
	return s
}

// e2Table is the byte-exact example of docs/semantics/outputs.md §7.2.
const e2Table = `NVIDIA AIPerf | LLM Metrics
┏━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━━━━━┳━━━━━━┓
┃ Metric                                             ┃      avg ┃      min ┃      max ┃      p99 ┃      p90 ┃      p75 ┃  std ┃
┡━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━━━━━╇━━━━━━┩
┃ Time to First Token (ms)                           ┃     2.00 ┃     2.00 ┃     2.00 ┃     2.00 ┃     2.00 ┃     2.00 ┃ 0.00 ┃
┃ Time to Second Token (ms)                          ┃     1.00 ┃     1.00 ┃     1.00 ┃     1.00 ┃     1.00 ┃     1.00 ┃ 0.00 ┃
┃ Request Latency (ms)                               ┃     5.00 ┃     5.00 ┃     5.00 ┃     5.00 ┃     5.00 ┃     5.00 ┃ 0.00 ┃
┃ Inter Token Latency (ms)                           ┃     1.00 ┃     1.00 ┃     1.00 ┃     1.00 ┃     1.00 ┃     1.00 ┃ 0.00 ┃
┃ Output Token Throughput Per User (tokens/sec/user) ┃ 1,000.00 ┃ 1,000.00 ┃ 1,000.00 ┃ 1,000.00 ┃ 1,000.00 ┃ 1,000.00 ┃ 0.00 ┃
┃ Output Token Throughput (tokens/sec)               ┃ 1,600.00 ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃  N/A ┃
┃ Request Throughput (requests/sec)                  ┃   400.00 ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃  N/A ┃
┃ Request Count (requests)                           ┃     6.00 ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃  N/A ┃
└━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┴━━━━━━━━━━┴━━━━━━━━━━┴━━━━━━━━━━┴━━━━━━━━━━┴━━━━━━━━━━┴━━━━━━━━━━┴━━━━━━┘
Wall Time (ms): 12.50
Prefix Cache Reused Ratio: 0.00
First Admission Prefix Cache Reused Ratio: 0.00
Saved full report to: aisimulate-output/prediction.json
`

func TestTableE2(t *testing.T) {
	got := Table(e2Summary(), nil, "./aisimulate-output")
	if got != e2Table {
		t.Fatalf("table mismatch:\n%s\nwant\n%s", got, e2Table)
	}
}

func TestTableOutputPath(t *testing.T) {
	for dir, want := range map[string]string{
		"out":          "out/prediction.json",
		"out/":         "out/prediction.json",
		"/tmp/x/../y":  "/tmp/y/prediction.json",
		".":            "prediction.json",
		"./a//b/./c":   "a/b/c/prediction.json",
		"/abs/results": "/abs/results/prediction.json",
	} {
		got := Table(map[string]any{}, nil, dir)
		if !strings.HasSuffix(got, "Saved full report to: "+want+"\n") {
			t.Errorf("dir %q: last line of\n%s\nwant path %s", dir, got, want)
		}
	}
}

func TestTableMissingAndNonNumeric(t *testing.T) {
	s := map[string]any{"mean_ttft_ms": 1234567.891, "num_requests": 3, "wall_time_ms": nil,
		"prefix_cache_reused_ratio": 0.125}
	got := Table(s, nil, "o")
	for _, want := range []string{
		"┃ Time to First Token (ms)             ┃ 1,234,567.89 ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃\n",
		"┃ Request Count (requests)             ┃         3.00 ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃\n",
		"┃ Output Token Throughput (tokens/sec) ┃          N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃ N/A ┃\n",
		"\nPrefix Cache Reused Ratio: 0.12\nSaved full report to: o/prediction.json\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "Wall Time") || strings.Contains(got, "Second Token") {
		t.Errorf("table shows absent rows/footers:\n%s", got)
	}
}

func TestTablePowerRows(t *testing.T) {
	got := Table(map[string]any{"power_coverage": 0.5, "power_w": 700.25}, nil, "o")
	for _, want := range []string{"┃ Power per GPU (W)                    ┃ 700.25 ┃", "┃ Power Data Coverage (%)              ┃  50.00 ┃"} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

func TestFormatNumber(t *testing.T) {
	// docs/semantics/outputs.md §7.2 item 3, plus ties-to-even and grouping edges.
	cases := []struct {
		v    any
		want string
	}{
		{1234567.891, "1,234,567.89"}, {0.125, "0.12"}, {0.375, "0.38"}, {-1234.5, "-1,234.50"},
		{6, "6.00"}, {999.995, "1,000.00"}, {999.985, "999.99"}, {-0.0001, "-0.00"}, {999.999, "1,000.00"}, {100.0, "100.00"},
		{1000.0, "1,000.00"}, {-0.5, "-0.50"}, {123456.0, "123,456.00"}, {int64(-1234567), "-1,234,567.00"},
		{2.675, "2.67"}, {1e21, "1,000,000,000,000,000,000,000.00"}, {nil, "N/A"},
	}
	for _, c := range cases {
		if got := formatCell(c.v); got != c.want {
			t.Errorf("formatCell(%v) = %q, want %q", c.v, got, c.want)
		}
	}
}

// The trajectory rows appear exactly when the summary has the trajectory keys (agentic-graph
// sources): a statistics row after Request Latency and two count rows after Request Count.
func TestTableTrajectoryRows(t *testing.T) {
	s := e2Summary()
	if got := Table(s, nil, "./aisimulate-output"); strings.Contains(got, "Trajector") {
		t.Errorf("trajectory rows without trajectory keys:\n%s", got)
	}
	for _, st := range Statistics {
		s[TrajectoryE2ELatency.Key(st)] = 7.0
	}
	s[KeyP50TrajectoryE2ELatencyMs] = 7.0
	s[KeyTotalTrajectories], s[KeyCompletedTrajectories], s[KeyIncompleteTrajectories] = 3, 2, 1
	got := Table(s, nil, "./aisimulate-output")
	lines := strings.Split(got, "\n")
	want := []struct {
		at   int
		text string
	}{
		{6, "┃ Request Latency (ms) "},
		{7, "┃ Trajectory Latency (ms)                            ┃     7.00 ┃     7.00 ┃     7.00 ┃     7.00 ┃     7.00 ┃     7.00 ┃ 7.00 ┃"},
		{8, "┃ Inter Token Latency (ms) "},
		{12, "┃ Request Count (requests) "},
		{13, "┃ Completed Trajectories (trajectories)              ┃     2.00 ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃  N/A ┃"},
		{14, "┃ Incomplete Trajectories (trajectories)             ┃     1.00 ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃      N/A ┃  N/A ┃"},
		{15, "└"},
	}
	for _, w := range want {
		if w.at >= len(lines) || !strings.HasPrefix(lines[w.at], w.text) {
			t.Errorf("line %d = %q, want prefix %q\n%s", w.at, lines[min(w.at, len(lines)-1)], w.text, got)
		}
	}
}
