package simcore

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"aisimulate/simcore/recommend"
)

// withinConfig runs for a few dozen progress reports.
const withinConfig = `traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 40000}
  load: {type: concurrency, concurrency: 1}
  stop: {requests: 2}
engine:
  model: meta-llama/Meta-Llama-3.1-8B
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {block_size: 64, capacity: {type: fixed, blocks: 4096}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`

// Within its limits EvaluateWithin answers Evaluate's bytes and charges the progress
// reports plus one; a step limit below that charge is a work limit, not an outcome, and
// one just at it is no limit.
func TestEvaluateWithinChargesReportsPlusOne(t *testing.T) {
	req := EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: withinConfig, BudgetSteps: 1 << 40}
	reports := int64(0)
	if _, err := Predict(Input{ConfigYAML: []byte(withinConfig), Progress: func(float64) { reports++ }}); err != nil {
		t.Fatal(err)
	}
	if reports < 3 {
		t.Fatalf("the configuration should run several progress reports, ran %d", reports)
	}
	out, steps, err := EvaluateWithin(req, nil, EvaluatorLimits{})
	if err != nil || !bytes.Equal(out, Evaluate(req, nil)) || steps != (reports+1)*ProgressSteps {
		t.Fatalf("unbounded: %v, %d steps for %d reports", err, steps, reports)
	}
	if out, _, err := EvaluateWithin(req, nil, EvaluatorLimits{MaxSteps: steps}); err != nil || !bytes.Equal(out, Evaluate(req, nil)) {
		t.Fatalf("at the charge: %v", err)
	}
	_, _, err = EvaluateWithin(req, nil, EvaluatorLimits{MaxSteps: steps - 1})
	var le *EvaluatorLimitError
	if !errors.As(err, &le) || le.Limit != LimitWork || !strings.Contains(le.Msg, "more than the") {
		t.Fatalf("below the charge: %v", err)
	}
	// An evaluation that never simulates is charged one chunk too.
	bad := EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: "engine: {}", BudgetSteps: 1 << 40}
	if out, steps, err := EvaluateWithin(bad, nil, EvaluatorLimits{}); err != nil || steps != ProgressSteps || !bytes.Contains(out, []byte(`"unsupported"`)) {
		t.Fatalf("unsupported: %s %d %v", out, steps, err)
	}
	// The candidate's own budget, when it runs out first, is the timed_out outcome.
	req.BudgetSteps = ProgressSteps
	if out, _, err := EvaluateWithin(req, nil, EvaluatorLimits{MaxSteps: 2 * ProgressSteps}); err != nil || !bytes.Equal(out, Evaluate(req, nil)) || !bytes.Contains(out, []byte("timed_out")) {
		t.Fatalf("own budget: %s %v", out, err)
	}
}

// A memory estimate over the evaluator's budget is a memory limit naming the field when the
// default budget admits it, and the unsupported outcome when it does not.
func TestEvaluateWithinMemory(t *testing.T) {
	lim := EvaluatorLimits{MemoryBudget: 1 << 20}
	req := EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: strings.Replace(withinConfig, "requests: 2", "requests: 10000", 1), BudgetSteps: 1 << 40}
	_, _, err := EvaluateWithin(req, nil, lim)
	var le *EvaluatorLimitError
	if !errors.As(err, &le) || le.Limit != LimitMemory || le.Path != "traffic.stop.requests" || !strings.Contains(le.Msg, "1.0 MiB") {
		t.Fatalf("%v", err)
	}
	req.ConfigYAML = strings.Replace(withinConfig, "requests: 2", "requests: 10000000000", 1)
	if out, _, err := EvaluateWithin(req, nil, lim); err != nil || !bytes.Equal(out, Evaluate(req, nil)) || !bytes.Contains(out, []byte(`"unsupported"`)) {
		t.Fatalf("%s %v", out, err)
	}
}

// A candidate's work budget holds to the step, whatever its size: a run of N steps completes
// with a budget of N and times out with N − 1, even when N is below one progress chunk, so a
// tiny candidate_timeout_seconds times out (docs/recommend.md, "Timeouts").
func TestWorkBudgetToTheStep(t *testing.T) {
	for _, requests := range []string{"2", "2000"} {
		yaml := strings.NewReplacer("output_tokens: 40000", "output_tokens: 4", "stop: {requests: 2}", "stop: {requests: "+requests+"}").Replace(withinConfig)
		out, err := Predict(Input{ConfigYAML: []byte(yaml)})
		if err != nil {
			t.Fatal(err)
		}
		n := out.Steps
		if requests == "2" && n >= ProgressSteps || requests == "2000" && n <= ProgressSteps {
			t.Fatalf("%s requests: %d steps; the test needs one run below a progress chunk and one above", requests, n)
		}
		for budget, want := range map[int64]string{n: "", n - 1: recommend.StatusTimedOut, 0: recommend.StatusTimedOut} {
			o, err := DecodeOutcome(Evaluate(EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: yaml, BudgetSteps: budget}, nil))
			if err != nil || o.Status != want {
				t.Errorf("%s requests (%d steps), budget %d: status %q %v, want %q", requests, n, budget, o.Status, err, want)
			}
		}
	}
}
