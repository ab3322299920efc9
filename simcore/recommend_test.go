package simcore

import (
	"aisimulate/simcore/canon"
	"math"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/recommend"
	"aisimulate/simcore/spec"
)

// candidateTree reads a predict configuration as the tree a search would hand over.
func candidateTree(t *testing.T, text string, sets ...string) map[string]any {
	t.Helper()
	rec, err := spec.LoadRecommendation([]byte(text+"optimization: {}\n"), sets)
	if err != nil {
		t.Fatal(err)
	}
	return rec.Candidate(nil, nil)
}

const e2Config = `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 2}
  stop: {requests: 6}
engine:
  mode: aggregated
  backend: vllm
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      scheduler: {max_batched_tokens: 8192, max_sequences: 256}
      kv_cache: {capacity: {type: fixed, blocks: 256}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`

// A candidate is predicted as predict predicts its YAML: the summary of the worked example
// E2, without a wall-clock value.
func TestEvaluateCandidateIsPredict(t *testing.T) {
	tree := candidateTree(t, e2Config)
	got := EvaluateCandidate("r.yaml", tree, nil, WorkBudget(spec.Optimizer{CandidateTimeoutSeconds: 600}))
	if got.Status != "" {
		t.Fatalf("status %s: %s", got.Status, got.Reason)
	}
	zero := 0.0
	want, err := Predict(Input{ConfigYAML: spec.EmitYAML(tree), FixedWallTimeMs: &zero})
	if err != nil {
		t.Fatal(err)
	}
	// The outcome crosses evaluators as canonical JSON: values and number kinds (integer or
	// float) survive, so the summaries print the same.
	gotJSON, err := canon.Compact(got.Summary)
	if err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := canon.Compact(want.Summary)
	if string(gotJSON) != string(wantJSON) {
		t.Errorf("summary\n%s\npredict says\n%s", gotJSON, wantJSON)
	}
	if got.Summary["mean_ttft_ms"] != 2.0 || got.Summary["wall_time_ms"] != 0.0 {
		t.Errorf("E2: mean_ttft_ms %v wall_time_ms %v", got.Summary["mean_ttft_ms"], got.Summary["wall_time_ms"])
	}
}

// A configuration the model cannot price is unsupported, with predict's message; a simulation
// beyond the work budget is timed_out.
func TestEvaluateCandidateStatuses(t *testing.T) {
	tree := candidateTree(t, e2Config, "engine.workers.aggregated.timing={type: default}", "engine.workers.aggregated.parallelism={tensor: 3}")
	got := EvaluateCandidate("r.yaml", tree, nil, 1<<40)
	if got.Status != recommend.StatusUnsupported || !strings.HasPrefix(got.Reason, "engine.workers.aggregated.parallelism.tensor: tensor 3 does not split") {
		t.Errorf("tensor 3: %s %q", got.Status, got.Reason)
	}
	tree = candidateTree(t, e2Config, "traffic.stop.requests=200000")
	got = EvaluateCandidate("r.yaml", tree, nil, 2*ProgressSteps)
	if got.Status != recommend.StatusTimedOut || got.Summary != nil {
		t.Errorf("over budget: %s %q", got.Status, got.Reason)
	}
}

// The small example end to end in-process: progress after every round, the best score
// rising, and the same bytes as a second run.
func TestRecommendInProcess(t *testing.T) {
	text, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var calls []int
	last := math.Inf(-1)
	in := RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: text, ModuleVersion: "test",
		Progress: func(done, total int, best float64) {
			calls = append(calls, done)
			if total != 24 || best < last {
				t.Errorf("progress %d/%d best %v after %v", done, total, best, last)
			}
			last = best
		}}
	a, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	// Rounds of min(parallelism 4, remaining): 4, 8, …, 24.
	if len(calls) != 6 || calls[5] != 24 {
		t.Errorf("progress calls %v", calls)
	}
	in.Progress = nil
	b, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(a.JSON) != string(b.JSON) || a.Feasible == 0 || len(a.Configs) != len(a.Rows) {
		t.Errorf("second run differs or nothing feasible (%d)", a.Feasible)
	}
}

// The stepper driven by hand, with the outcomes of each round computed in reverse order and
// placed by index, gives Recommend's bytes; the steps refuse to run out of order.
func TestRecommenderSteps(t *testing.T) {
	text, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	wall := 3.0
	in := RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: text, ModuleVersion: "test", FixedWallTimeMs: &wall}
	want, err := Recommend(in)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRecommender(in)
	if err != nil {
		t.Fatal(err)
	}
	if r.Parallelism() != 4 {
		t.Errorf("parallelism %d, want 4", r.Parallelism())
	}
	if _, err := r.Result(); err == nil {
		t.Error("Result before the search finished: no error")
	}
	if err := r.Observe(nil); err == nil {
		t.Error("Observe without a round: no error")
	}
	rounds := 0
	for {
		reqs, done, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		if done {
			if len(reqs) != 0 {
				t.Errorf("done with %d requests", len(reqs))
			}
			break
		}
		if len(reqs) == 0 || len(reqs) > 4 {
			t.Fatalf("round of %d requests", len(reqs))
		}
		if _, _, err := r.Next(); err == nil {
			t.Fatal("Next before Observe: no error")
		}
		if err := r.Observe(make([][]byte, len(reqs)+1)); err == nil {
			t.Fatal("Observe with one outcome too many: no error")
		}
		out := make([][]byte, len(reqs))
		for i := len(reqs) - 1; i >= 0; i-- {
			out[i] = Evaluate(reqs[i], nil)
		}
		if err := r.Observe(out); err != nil {
			t.Fatal(err)
		}
		rounds++
	}
	got, err := r.Result()
	if err != nil {
		t.Fatal(err)
	}
	if string(got.JSON) != string(want.JSON) || string(got.CSV) != string(want.CSV) || rounds == 0 {
		t.Errorf("stepped result differs from Recommend's (%d rounds)", rounds)
	}
	if done, total, _ := r.Progress(); done != total || total != 24 {
		t.Errorf("progress %d/%d", done, total)
	}
}
