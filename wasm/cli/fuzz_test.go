package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aisimulate/simcore"
)

// FuzzPredictCommand runs the whole `predict` command on a fuzzed configuration, one --set
// assignment and a small trace file: it ends with exit 0, a configuration or command-line
// error (exit 2, "usage: …" then "aisimulate: error: …" or "aisimulate predict: error: …")
// or an execution failure (exit 1, one line "aisimulate predict failed: …"), never a panic. Runs are kept small through the
// simulator's own limits (a memory budget of 64 MiB, at most 5,000 requests).
func FuzzPredictCommand(f *testing.F) {
	f.Add([]byte(e2YAML), "traffic.load.concurrency=3", []byte(""), false)
	f.Add([]byte(e2YAML), "engine.workers.aggregated.kv_cache.capacity.blocks=9223372036854775807", []byte(""), true)
	f.Add([]byte(e2YAML), "engine.workers.aggregated.parallelism.replicas=8000", []byte(""), false)
	f.Add([]byte(e2YAML), "traffic.source={type: trace, format: mooncake, paths: [t.jsonl]}", []byte(`{"timestamp": 0, "input_length": 40, "output_length": 3, "hash_ids": [1]}`+"\n"), true)
	f.Add([]byte(e2YAML), "traffic.source={type: trace, format: applied_compute_agentic, paths: [t.jsonl]}", []byte(`{"num_turns": 1, "input_prompt_length": 3, "assistant_response_length": [2], "tool_call_output_length": [1], "tool_call_latency": [0.5], "final_assistant_response_length": 1}`+"\n"), false)
	f.Add([]byte(strings.Repeat("{a: ", 200)), "", []byte(""), false)
	f.Fuzz(func(t *testing.T, cfg []byte, set string, trace []byte, capture bool) {
		dir := t.TempDir()
		must(t, os.WriteFile(filepath.Join(dir, "c.yaml"), cfg, 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "t.jsonl"), trace, 0o644))
		predict = func(in simcore.Input) (*simcore.Output, error) {
			in.MemoryBudget, in.MaxRequests = 64<<20, 5000
			return simcore.Predict(in)
		}
		t.Cleanup(func() { predict = simcore.Predict })
		t.Chdir(dir)
		args := []string{"predict", "--stack", "dynamo", "-c", "c.yaml", "--output-dir", "out", "--format", "json"}
		if set != "" {
			args = append(args, "--set", set)
		}
		if capture {
			args = append(args, "--capture-per-request")
		}
		var so, se bytes.Buffer
		code := Main(args, nil, nil, &so, &se)
		stderr := se.String()
		switch code {
		case ExitOK:
			if _, err := os.Stat(filepath.Join(dir, "out", "prediction.json")); err != nil {
				t.Fatalf("exit 0 without prediction.json: %v", err)
			}
		case ExitUsage:
			// A configuration error is "aisimulate: error: …"; a command-line error is
			// argparse's "aisimulate predict: error: …" (a --set value starting with '-'
			// reads as a missing argument, seed-set-value-starts-with-dash).
			if !strings.Contains(stderr, "aisimulate: error: ") && !strings.Contains(stderr, "aisimulate predict: error: ") {
				t.Fatalf("exit 2 without an error line: %q", stderr)
			}
		case ExitFailure:
			if !strings.HasPrefix(stderr, "aisimulate predict failed: ") || strings.Count(stderr, "\n") != 1 {
				t.Fatalf("exit 1 is not one failure line: %q", stderr)
			}
		default:
			t.Fatalf("exit %d: %q", code, stderr)
		}
		if code != ExitOK {
			if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
				t.Fatalf("a failed run left the output directory")
			}
		}
	})
}
