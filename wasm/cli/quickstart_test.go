package cli

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/spec"
)

// quickstartPath is the example `make run` predicts.
const quickstartPath = "../../examples/quickstart.yaml"

func predictQuickstart(t *testing.T, sets ...string) (*simcore.Output, error) {
	t.Helper()
	text, err := os.ReadFile(quickstartPath)
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	return simcore.Predict(simcore.Input{ConfigName: quickstartPath, ConfigYAML: text, Sets: sets, FixedWallTimeMs: &zero})
}

// The quickstart runs on the default timing and capacity model, so each part of the
// deployment changes the answer (with the fixed/polynomial models none of them did).
func TestQuickstartDependsOnTheDeployment(t *testing.T) {
	base, err := predictQuickstart(t)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := base.Summary["goodput_completed_requests"]; !ok {
		t.Errorf("the quickstart sets no SLA: summary has no goodput")
	}
	for _, set := range []string{
		"engine.model=Qwen/Qwen3-0.6B",
		"engine.hardware=a100_sxm",
		"engine.backend=trtllm",
		"engine.workers.aggregated.parallelism.tensor=2",
	} {
		out, err := predictQuickstart(t, set)
		if err != nil {
			t.Errorf("%s: %v", set, err)
			continue
		}
		if string(out.SummaryJSON) == string(base.SummaryJSON) {
			t.Errorf("--set %s leaves the quickstart's summary unchanged", set)
		}
	}
}

// A model that does not fit the GPU is refused with the memory arithmetic, exit 2.
func TestQuickstartRefusesAModelThatDoesNotFit(t *testing.T) {
	_, err := predictQuickstart(t, "engine.model=meta-llama/Meta-Llama-3.1-405B")
	var se *spec.Error
	if !errors.As(err, &se) {
		t.Fatalf("405B on one H200: err = %v, want a configuration error", err)
	}
	for _, want := range []string{"does not fit on h200_sxm", "weights 755.95 GiB", "of 141.00 GiB", "raise tensor"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	var so, errOut bytes.Buffer
	code := Main([]string{"predict", "--stack", "dynamo", "-c", quickstartPath,
		"--set", "engine.model=meta-llama/Meta-Llama-3.1-405B", "--output-dir", t.TempDir()}, nil, nil, &so, &errOut)
	stderr := errOut.String()
	if code != ExitUsage || !strings.Contains(stderr, quickstartPath+": engine.workers.aggregated.kv_cache.capacity: model meta-llama/Meta-Llama-3.1-405B does not fit") {
		t.Errorf("CLI: exit %d, stderr %q", code, stderr)
	}
}
