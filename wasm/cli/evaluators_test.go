package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/host/wire"
	"aisimulate/simcore"
	"aisimulate/simcore/spec"
)

// Outside the native host (no host functions) recommend evaluates in process and --remote is
// a usage error before anything runs.
func TestRemoteNeedsTheNativeHost(t *testing.T) {
	if hostCall != nil {
		t.Skip("runs under a host that provides the host functions")
	}
	dir := t.TempDir()
	r := runCLI(t, "", nil, nil, nil, "recommend", "--stack", "dynamo", "--config", filepath.Join("..", "..", "examples", "recommend-small.yaml"),
		"--output-dir", filepath.Join(dir, "out"), "--remote", "http://127.0.0.1:1")
	if r.code != ExitUsage || !strings.HasSuffix(r.stderr, "aisimulate recommend: error: argument --remote: only the native aisimulate binary sends requests to remote workers\n") {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
}

// The files a remote worker needs are the trace paths as written and the files the catalog's
// lookup reads from a local model directory; a catalog model reads none.
func TestRequestFiles(t *testing.T) {
	files := fstest.MapFS{"models/m/config.json": {Data: []byte(`{}`)}}
	yaml := "traffic:\n  source: {type: trace, format: mooncake, paths: [./t.jsonl]}\n  load: {type: trace_timestamps}\nengine: {model: ./models/m, hardware: h200_sxm, workers: {aggregated: {}}}\n"
	got := requestFiles(simcore.EvaluationRequest{ConfigName: "r.yaml", ConfigYAML: yaml, BudgetSteps: 1}, files)
	if want := []string{"./t.jsonl", "models/m/config.json"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	synthetic := "engine: {model: meta-llama/Meta-Llama-3.1-8B-Instruct, hardware: h200_sxm, workers: {aggregated: {}}}\n"
	if _, err := spec.LoadConfig([]byte(synthetic), nil); err != nil {
		t.Fatal(err)
	}
	if got := requestFiles(simcore.EvaluationRequest{ConfigYAML: synthetic}, files); len(got) != 0 {
		t.Errorf("catalog model, synthetic source: %q", got)
	}
}

// The evaluator loop answers each frame with simcore.Evaluate's bytes and ends cleanly at the
// end of its input.
func TestEvaluatorLoop(t *testing.T) {
	req := simcore.EvaluationRequest{ConfigName: "r.yaml", ConfigYAML: "engine: {model: nope, hardware: h200_sxm}\n", BudgetSteps: 1000}
	b, _ := json.Marshal(req)
	var in, out, errOut bytes.Buffer
	wire.WriteFrame(&in, b)
	wire.WriteFrame(&in, b)
	if code := runEvaluator(&in, &out, &errOut); code != ExitOK || errOut.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut.String())
	}
	want := simcore.Evaluate(req, osFS{})
	for i := range 2 {
		got, err := wire.ReadFrame(&out)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("answer %d: %s (%v), want %s", i, got, err, want)
		}
	}
	in.Reset()
	wire.WriteFrame(&in, []byte("{"))
	if code := runEvaluator(&in, &out, &errOut); code != ExitFailure || !strings.Contains(errOut.String(), "__evaluate: bad request") {
		t.Errorf("malformed request: exit %d, stderr %q", code, errOut.String())
	}
}
