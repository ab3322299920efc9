// Package tests holds the end-to-end tests: they run the real native binary (bin/aisimulate,
// which runs the embedded wasip1 module under wazero) as a user would.
//
// `make test` builds the binary and passes its path in AISIMULATE_BIN. Without it (plain
// `go test ./...`), TestMain builds host/module/aisimulate.wasm and bin/aisimulate itself with
// the same commands as `make build`. The test cache keys on the binary's size and time, so
// after changing the sources run `make test` (which rebuilds first) or pass -count=1.
package tests

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

var (
	binary    string // absolute path of bin/aisimulate
	repoRoot  string // absolute path of the repository
	coreReady bool   // whether simcore.Predict runs simulations (not the temporary stub)
)

func TestMain(m *testing.M) {
	root, err := filepath.Abs("..")
	if err != nil {
		panic(err)
	}
	repoRoot = root
	binary = os.Getenv("AISIMULATE_BIN")
	if binary == "" {
		if err := build(root); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		binary = filepath.Join(root, "bin", "aisimulate")
	}
	if _, err := os.Stat(binary); err != nil {
		fmt.Fprintf(os.Stderr, "end-to-end tests need the binary: %v\n", err)
		os.Exit(1)
	}
	// Probe whether the simulation core is in (warms the compilation cache too).
	dir, _ := os.MkdirTemp("", "aisim-probe-")
	r := runIn(dir, nil, "predict", "--stack", "dynamo", "--config", filepath.Join(root, "examples", "e2.yaml"), "--format", "json")
	coreReady = r.code == 0
	if !coreReady {
		fmt.Fprintf(os.Stderr, "note: predictions fail (%d: %s); tests that need the simulation core are skipped\n", r.code, strings.TrimSpace(r.stderr))
	}
	os.RemoveAll(dir)
	os.Exit(m.Run())
}

// build runs the commands of `make build`.
func build(root string) error {
	steps := [][]string{
		{"GOOS=wasip1", "GOARCH=wasm", "go", "build", "-trimpath", "-ldflags=-s -w", "-o", "host/module/aisimulate.wasm", "./wasm/wasip1"},
		{"go", "build", "-trimpath", "-ldflags=-s -w", "-o", "bin/aisimulate", "./cmd/aisimulate"},
	}
	for _, s := range steps {
		env := os.Environ()
		for len(s) > 0 && strings.Contains(s[0], "=") {
			env = append(env, s[0])
			s = s[1:]
		}
		cmd := exec.Command(s[0], s[1:]...)
		cmd.Dir, cmd.Env = root, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %v\n%s", strings.Join(s, " "), err, out)
		}
	}
	return nil
}

// noteBinary stats the binary and reads the environment variable naming it. Done while a
// test runs (not in TestMain, before go test starts logging), it makes `go test`'s result
// cache depend on the binary's size and modification time, so a rebuilt binary re-runs
// these tests even though the test package itself did not change.
func noteBinary() {
	os.Getenv("AISIMULATE_BIN")
	os.Stat(binary)
}

type result struct {
	code           int
	stdout, stderr string
}

// runIn runs the binary in dir with extra environment entries.
func runIn(dir string, env []string, args ...string) result {
	noteBinary()
	return runCmd(exec.Command(binary, args...), dir, env)
}

// runCmd runs cmd in dir with env added to the environment.
func runCmd(cmd *exec.Cmd, dir string, env []string) result {
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return result{code, so.String(), se.String()}
}

func requireCore(t *testing.T) {
	t.Helper()
	if !coreReady {
		t.Skip("simulation core not built yet (simcore.Predict fails)")
	}
}

// workdir is a temporary working directory holding a copy of examples/e2.yaml.
func workdir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(repoRoot, "examples", "e2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "e2.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

var fixedWall = []string{"AISIMULATE_FIXED_WALL_TIME_MS=12.5"}

// e2Golden is prediction.json of docs/semantics/simulation.md E2 (docs/semantics/outputs.md §4.7), the one golden file the
// core's tests and these share.
const e2Golden = "../simcore/testdata/e2_prediction.json"

func predictArgs(extra ...string) []string {
	return append([]string{"predict", "--stack", "dynamo", "--config", "e2.yaml"}, extra...)
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

func TestHelpAndVersion(t *testing.T) {
	dir := t.TempDir()
	r := runIn(dir, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "aisimulate predict --stack dynamo --config") {
		t.Errorf("--help: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = runIn(dir, nil, "predict", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "--output-dir") || !strings.Contains(r.stdout, "Exit status") {
		t.Errorf("predict --help: %d %q", r.code, r.stdout)
	}
	r = runIn(dir, nil, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "aisimulate ") {
		t.Errorf("--version: %d %q", r.code, r.stdout)
	}
}

func TestUsageAndConfigErrorsExit2(t *testing.T) {
	dir := workdir(t)
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, "aisimulate: error: the following arguments are required: command\n"},
		{[]string{"predict"}, "error: the following arguments are required: -c/--config\n"},
		{predictArgs("--bogus"), "aisimulate: error: unrecognized arguments: --bogus\n"},
		{predictArgs("--format", "yaml"), "argument --format: invalid choice: 'yaml' (choose from 'table', 'json')\n"},
		{[]string{"predict", "--config", "e2.yaml"}, "aisimulate: error: stack 'engine' is unavailable; installed stacks: dynamo. Pass --stack dynamo.\n"},
		{[]string{"predict", "--stack", "dynamo", "--config", "missing.yaml"}, "aisimulate: error: could not read configuration missing.yaml: no such file or directory\n"},
		{predictArgs("--set", "traffic.load.concurrency=0"), "aisimulate: error: e2.yaml: traffic.load.concurrency: must be greater than 0, got 0\n"},
		{predictArgs("--set", "traffic.load.concurrency"), "aisimulate: error: e2.yaml: invalid --set 'traffic.load.concurrency'; expected PATH=YAML_VALUE"},
		{predictArgs("--set", "engine.colour=red"), "aisimulate: error: e2.yaml: engine: unknown key \"colour\""},
		{predictArgs("--online"), "aisimulate: error: e2.yaml: runner does not support execution mode 'online'\n"},
	} {
		r := runIn(dir, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.msg) || r.stdout != "" {
			t.Errorf("%q: exit %d stderr %q; want 2 with %q", c.args, r.code, r.stderr, c.msg)
		}
	}
	if exists(filepath.Join(dir, "aisimulate-output")) {
		t.Error("a failed run created the output directory")
	}
}

func TestOutputDirRefusals(t *testing.T) {
	dir := workdir(t)
	must(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	r := runIn(dir, nil, predictArgs("--output-dir", "file")...)
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: output directory file is not a directory\n") {
		t.Errorf("file as output dir: %d %q", r.code, r.stderr)
	}
	must(t, os.Mkdir(filepath.Join(dir, "out"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "out", "prediction.json"), []byte("old"), 0o644))
	r = runIn(dir, nil, predictArgs("--output-dir", "out")...)
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: output directory out is not empty; pass --overwrite to replace known AISimulate outputs\n") {
		t.Errorf("non-empty output dir: %d %q", r.code, r.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "out", "prediction.json")); got != "old" {
		t.Errorf("refused run changed prediction.json to %q", got)
	}
}

func TestE2GoldenFilesAndTable(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	r := runIn(dir, fixedWall, predictArgs()...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := readFile(t, "testdata/e2.table.txt"); r.stdout != want {
		t.Errorf("table stdout:\n%s\nwant (docs/semantics/outputs.md §7.2):\n%s", r.stdout, want)
	}
	got := readFile(t, filepath.Join(dir, "aisimulate-output", "prediction.json"))
	if want := readFile(t, e2Golden); got != want {
		t.Errorf("prediction.json:\n%s\nwant (docs/semantics/outputs.md §4.7):\n%s", got, want)
	}
	if exists(filepath.Join(dir, "aisimulate-output", "requests.jsonl")) {
		t.Error("requests.jsonl written without --capture-per-request")
	}
}

// An agentic trace through the binary: prediction.json equals the core's golden file (with the
// 13 trajectory keys) and the table shows the trajectory rows (tests/testdata).
func TestAgenticTrajectoriesGoldenAndTable(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	fixture := filepath.Join(repoRoot, "simcore", "testdata", "agentic_trajectories.jsonl")
	b, err := os.ReadFile(fixture)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "agentic_trajectories.jsonl"), b, 0o644))
	cfg := `traffic:
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
	must(t, os.WriteFile(filepath.Join(dir, "agentic.yaml"), []byte(cfg), 0o644))
	r := runIn(dir, fixedWall, "predict", "--stack", "dynamo", "--config", "agentic.yaml", "--capture-per-request")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := readFile(t, "testdata/agentic_trajectories.table.txt"); r.stdout != want {
		t.Errorf("table stdout:\n%s\nwant:\n%s", r.stdout, want)
	}
	got := readFile(t, filepath.Join(dir, "aisimulate-output", "prediction.json"))
	if want := readFile(t, "../simcore/testdata/agentic_trajectories.prediction.json"); got != want {
		t.Errorf("prediction.json differs from the core's golden file:\n%s", got)
	}
}

func TestFormatJSONEqualsPredictionSummary(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	r := runIn(dir, nil, predictArgs("--format", "json", "--output-dir", "o")...)
	if r.code != 0 || strings.Count(r.stdout, "\n") != 1 || !strings.HasSuffix(r.stdout, "}\n") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	var stdout map[string]any
	var pred struct{ Summary map[string]any }
	must(t, json.Unmarshal([]byte(r.stdout), &stdout))
	must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "o", "prediction.json"))), &pred))
	if len(stdout) < 77 || fmt.Sprint(stdout) != fmt.Sprint(pred.Summary) {
		t.Errorf("stdout summary differs from prediction.json summary:\n%v\n%v", stdout, pred.Summary)
	}
}

func TestSetOverridesConfig(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	r := runIn(dir, nil, predictArgs("--format", "json", "--output-dir", "o",
		"--set", "traffic.stop.requests=3", "--set", "traffic.stop.requests=4")...)
	var s map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.stdout), &s) != nil {
		t.Fatalf("exit %d %q %q", r.code, r.stdout, r.stderr)
	}
	if s["completed_requests"] != 4.0 || s["total_input_tokens"] != 128.0 {
		t.Errorf("--set (last wins) not applied: completed %v, input tokens %v", s["completed_requests"], s["total_input_tokens"])
	}
}

func TestCapturePerRequest(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	r := runIn(dir, nil, predictArgs("--capture-per-request", "--output-dir", "o", "--format", "json")...)
	if r.code != 0 {
		t.Fatalf("exit %d %q", r.code, r.stderr)
	}
	var pred struct {
		Coverage struct {
			PerRequestRecords int `json:"per_request_records"`
		}
		PerRequest []map[string]any `json:"per_request"`
	}
	must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "o", "prediction.json"))), &pred))
	lines := strings.Split(strings.TrimSuffix(readFile(t, filepath.Join(dir, "o", "requests.jsonl")), "\n"), "\n")
	if len(lines) != 6 || pred.Coverage.PerRequestRecords != 6 || len(pred.PerRequest) != 6 {
		t.Errorf("records: %d lines, coverage %d, per_request %d; want 6", len(lines), pred.Coverage.PerRequestRecords, len(pred.PerRequest))
	}
}

func TestOverwriteReplacesOnlyKnownOutputs(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	out := filepath.Join(dir, "o")
	must(t, os.MkdirAll(filepath.Join(out, "recommendations"), 0o755))
	files := map[string]bool{ // name → survives a run without capture
		"prediction.json": true, "requests.jsonl": false, "recommendation.json": false,
		"recommendation.csv": false, "execution-events.jsonl": false,
		"recommendations/0001.yaml": false, "recommendations/mine.yaml": true, "notes.txt": true,
	}
	for name := range files {
		must(t, os.WriteFile(filepath.Join(out, name), []byte("old"), 0o644))
	}
	r := runIn(dir, nil, predictArgs("--output-dir", "o", "--overwrite")...)
	if r.code != 0 {
		t.Fatalf("exit %d %q", r.code, r.stderr)
	}
	for name, survives := range files {
		b, err := os.ReadFile(filepath.Join(out, name))
		switch {
		case name == "prediction.json":
			if !strings.HasPrefix(string(b), "{\n  \"coverage\"") {
				t.Errorf("prediction.json not replaced: %q", b)
			}
		case survives:
			if string(b) != "old" {
				t.Errorf("%s was not preserved (%q, %v)", name, b, err)
			}
		default:
			if err == nil {
				t.Errorf("stale known output %s was not deleted", name)
			}
		}
	}
}

func TestWriteFailureExit1(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	must(t, os.MkdirAll(filepath.Join(dir, "o", "prediction.json"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "o", "requests.jsonl"), []byte("old"), 0o644))
	r := runIn(dir, nil, predictArgs("--output-dir", "o", "--overwrite")...)
	if r.code != 1 || !strings.HasPrefix(r.stderr, "aisimulate predict failed: could not write o/prediction.json") || r.stdout != "" {
		t.Errorf("exit %d stderr %q stdout %q", r.code, r.stderr, r.stdout)
	}
}

func TestRelativeOutputAndConfigPaths(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	r := runIn(filepath.Join(dir, "sub"), fixedWall, "predict", "--stack", "dynamo", "--config", "../e2.yaml", "--output-dir", "../results/run1")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "Saved full report to: ../results/run1/prediction.json\n") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if got, want := readFile(t, filepath.Join(dir, "results", "run1", "prediction.json")), readFile(t, e2Golden); got != want {
		t.Error("prediction.json via relative paths differs from the golden file")
	}
}

// interrupt starts the binary, waits until ready(stderr so far) or the delay, sends SIGINT
// and returns the exit code.
func interrupt(t *testing.T, dir string, env []string, wait time.Duration, ready string, args ...string) (int, string) {
	return signalRun(t, syscall.SIGINT, dir, env, wait, ready, args...)
}

// signalRun is interrupt with a chosen signal.
func signalRun(t *testing.T, sig syscall.Signal, dir string, env []string, wait time.Duration, ready string, args ...string) (int, string) {
	t.Helper()
	noteBinary()
	cmd := exec.Command(binary, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	se := &syncBuffer{}
	cmd.Stderr = se
	must(t, cmd.Start())
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) && (ready == "" || !strings.Contains(se.String(), ready)) {
		time.Sleep(20 * time.Millisecond)
	}
	must(t, cmd.Process.Signal(sig))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("interrupted process did not exit")
	}
	return cmd.ProcessState.ExitCode(), se.String()
}

func TestInterruptDuringStartupExit130(t *testing.T) {
	dir := workdir(t)
	// A fresh compilation cache makes start-up take seconds: interrupt it.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		env := []string{"AISIMULATE_WAZERO_CACHE=" + t.TempDir()}
		code, stderr := signalRun(t, sig, dir, env, 300*time.Millisecond, "", predictArgs("--output-dir", "o")...)
		if code != 130 || !strings.Contains(stderr, "aisimulate: interrupted") {
			t.Errorf("%v: exit %d (stderr %q), want 130", sig, code, stderr)
		}
	}
	if exists(filepath.Join(dir, "o")) {
		t.Error("interrupted run created output")
	}
}

func TestInterruptLongRunExit130(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	must(t, os.Mkdir(filepath.Join(dir, "o"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "o", "keep.txt"), []byte("keep"), 0o644))
	// One client in a closed loop: five distinct event times per request, so the progress
	// report (every 65536 event times) shows up within a second or two of simulation.
	code, stderr := interrupt(t, dir, nil, 30*time.Second, "simulating",
		predictArgs("--output-dir", "o", "--overwrite", "--progress", "--capture-per-request",
			"--set", "traffic.stop.requests=1000000", "--set", "traffic.load.concurrency=1")...)
	if !strings.Contains(stderr, "simulating") {
		t.Errorf("no progress on stderr before the interrupt: %q", stderr)
	}
	if code != 130 {
		t.Fatalf("exit %d (stderr %q), want 130", code, stderr)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "o"))
	if len(entries) != 1 || entries[0].Name() != "keep.txt" {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("interrupted run left %v in the output directory, want only keep.txt", names)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A weka corpus given as a directory is read through the host's file system (recursively,
// .json/.jsonl files only), by a relative and by an absolute path, with the same result.
func TestWekaDirectoryCorpus(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "corpus", "nested"), 0o755))
	play := func(id string, t0 float64) string {
		return `{"id": "` + id + `", "block_size": 4, "hash_id_scope": "local", "requests": [{"t": ` + strconv.FormatFloat(t0, 'f', -1, 64) +
			`, "type": "s", "model": "m", "in": 8, "out": 2, "hash_ids": [1, 2], "api_time": 0.5}]}`
	}
	must(t, os.WriteFile(filepath.Join(dir, "corpus", "a.json"), []byte(play("a", 0)), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "corpus", "nested", "b.jsonl"), []byte(play("b", 1)+"\n"+play("c", 2)+"\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "corpus", "README.md"), []byte("not a trace"), 0o644))
	cfg := "traffic:\n  source: {type: trace, format: weka, paths: [corpus]}\n  load: {type: trace_timestamps, agentic_lanes: 1}\n" +
		"engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, workers: {aggregated: {kv_cache: {capacity: {type: fixed, blocks: 64}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"
	must(t, os.WriteFile(filepath.Join(dir, "w.yaml"), []byte(cfg), 0o644))
	var outputs []string
	for _, p := range []string{"corpus", filepath.Join(dir, "corpus")} {
		r := runIn(dir, fixedWall, "predict", "--stack", "dynamo", "--config", "w.yaml", "--set", "traffic.source.paths=["+p+"]",
			"--output-dir", "out", "--overwrite", "--format", "json")
		if r.code != 0 || !strings.Contains(r.stdout, `"completed_requests":3`) {
			t.Fatalf("%s: exit %d stdout %q stderr %q", p, r.code, r.stdout, r.stderr)
		}
		outputs = append(outputs, readFile(t, filepath.Join(dir, "out", "prediction.json")))
	}
	if outputs[0] != outputs[1] {
		t.Error("relative and absolute corpus paths give different predictions")
	}
}
