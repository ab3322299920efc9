package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"aisimulate/simcore"
	"aisimulate/wasm/jsapi"
)

// evaluatingServer stands in for the edge worker's evaluation endpoint (the workerd tests in
// web/test/remote.test.mjs run the real one): GET /v1/health names version, POST
// /v1/predict?evaluate=1 answers simcore.Evaluate's bytes for a JSON or multipart request.
func evaluatingServer(t *testing.T, version string) (*httptest.Server, *atomic.Int64) {
	return editingServer(t, version, nil)
}

// editingServer is evaluatingServer answering edit(outcome) instead of the outcome (edit nil:
// the outcome itself).
func editingServer(t *testing.T, version string, edit func([]byte) []byte) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Aisimulate-Version", version)
		if r.URL.Path == "/v1/health" {
			fmt.Fprintf(w, `{"status":"ok","module_version":%q}`, version)
			return
		}
		n.Add(1)
		files := map[string][]byte{}
		var body []byte
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
			mr, err := r.MultipartReader()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			for {
				part, err := mr.NextPart()
				if err == io.EOF {
					break
				}
				b, _ := io.ReadAll(part)
				if part.FormName() == "request" {
					body = b
				} else {
					files[part.FormName()] = b
				}
			}
		} else {
			body, _ = io.ReadAll(r.Body)
		}
		var req simcore.EvaluationRequest
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		// The worker's file system of uploaded parts (wasm/httpapi).
		out := simcore.Evaluate(req, jsapi.NewMemFS(files))
		if edit != nil {
			out = edit(out)
		}
		w.Write(out)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

// binaryVersion is what `aisimulate --version` prints after the program name.
func binaryVersion(t *testing.T) string {
	r := runIn(repoRoot, nil, "--version")
	return strings.TrimSpace(strings.TrimPrefix(r.stdout, "aisimulate "))
}

// --remote gives the local run's bytes, for a synthetic workload and for a trace workload
// whose trace travels as a multipart part named as the configuration names it.
func TestRecommendRemoteSameBytes(t *testing.T) {
	requireCore(t)
	a, na := evaluatingServer(t, binaryVersion(t))
	b, nb := evaluatingServer(t, binaryVersion(t))
	remote := []string{"--remote", a.URL, "--remote", b.URL}
	localOut, local := recommendRun(t, nil, nil)
	remoteOut, r := recommendRun(t, nil, remote)
	if local.code != 0 || r.code != 0 || r.stderr != local.stderr { // the search's warnings, if any
		t.Fatalf("local %d %q; remote %d %q", local.code, local.stderr, r.code, r.stderr)
	}
	sameTree(t, readTree(t, remoteOut), readTree(t, localOut), "--remote")
	if na.Load() == 0 || nb.Load() == 0 {
		t.Errorf("requests per URL: %d, %d", na.Load(), nb.Load())
	}

	dir := t.TempDir()
	trace, err := os.ReadFile(filepath.Join(repoRoot, "web", "testdata", "identity", "small_trace.jsonl"))
	must(t, err)
	must(t, os.MkdirAll(filepath.Join(dir, "traces"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "traces", "small.jsonl"), trace, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(`traffic:
  source: {type: trace, format: mooncake, paths: [./traces/small.jsonl]}
  load: {type: trace_timestamps, speedup: {choices: [1.0, 4.0]}}
engine:
  model: Qwen/Qwen3-8B
  hardware: h200_sxm
  mode: aggregated
  backend: {choices: [vllm, sglang]}
  workers:
    aggregated:
      parallelism: {replicas: {choices: [1, 2]}}
      kv_cache: {capacity: {type: fixed, blocks: 20000}}
      timing: {type: polynomial}
optimization: {target: throughput, constraints: {max_candidate_gpus: 2}}
optimizer: {max_trials: 8, parallelism: 4, seed: 3}
`), 0o644))
	args := []string{"recommend", "--stack", "dynamo", "--config", "r.yaml", "--output-dir"}
	env := []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}
	lt := runIn(dir, env, append(args, "local")...)
	rt := runIn(dir, env, append(args, "remote", "--remote", a.URL)...)
	if lt.code != 0 || rt.code != 0 || rt.stderr != lt.stderr {
		t.Fatalf("trace: local %d %q; remote %d %q", lt.code, lt.stderr, rt.code, rt.stderr)
	}
	sameTree(t, readTree(t, filepath.Join(dir, "remote")), readTree(t, filepath.Join(dir, "local")), "trace --remote")
	raw, err := os.ReadFile(filepath.Join(dir, "local", "recommendation.json"))
	must(t, err)
	if !bytes.Contains(raw, []byte(`"feasible": 8`)) && !bytes.Contains(raw, []byte(`"status": "feasible"`)) {
		t.Errorf("the trace recommendation simulated nothing:\n%.800s", raw)
	}
}

// sameTree fails unless got holds exactly want's files with the same bytes.
func sameTree(t *testing.T, got, want map[string][]byte, label string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d files, want %d", label, len(got), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(got[name], b) {
			t.Errorf("%s: %s differs from the local run", label, name)
		}
	}
}

// A --remote URL of another version is refused before anything runs (exit 2).
func TestRecommendRemoteVersionMismatch(t *testing.T) {
	requireCore(t)
	s, n := evaluatingServer(t, "0000000-other")
	out, r := recommendRun(t, nil, []string{"--remote", s.URL})
	want := fmt.Sprintf("remote %s runs aisimulate 0000000-other; this binary is %s; deploy the same build (make worker)\n", s.URL, binaryVersion(t))
	if r.code != 2 || !strings.HasSuffix(r.stderr, want) || n.Load() != 0 {
		t.Errorf("exit %d, %d evaluations, stderr %q; want suffix %q", r.code, n.Load(), r.stderr, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output directory written: %v", err)
	}
}
