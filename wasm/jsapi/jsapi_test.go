package jsapi

import (
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// e2 is the worked example E2 (docs/semantics/simulation.md) in flow style, shared by
// the targets' tests, which edit its lines: wasm/testdata/e2.yaml.
var e2 = func() string {
	b, err := os.ReadFile("../testdata/e2.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

func TestMemFSFileReads(t *testing.T) {
	// Like the CLI's file system, MemFS accepts names fs.ValidPath rejects (absolute paths
	// as written in a config), so fstest.TestFS does not apply.
	m := NewMemFS(map[string][]byte{"a.jsonl": []byte("x\n")})
	f, err := m.Open("/a.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	st, _ := f.Stat()
	if err != nil || string(b) != "x\n" || st.Name() != "a.jsonl" || st.Size() != 2 || st.Mode() != 0o444 {
		t.Errorf("read %q, %v, stat %v", b, err, st)
	}
}

func TestMemFSResolvesByCleanPathThenUniqueBaseName(t *testing.T) {
	m := NewMemFS(map[string][]byte{"trace.jsonl": []byte("t"), "x/dup.jsonl": []byte("1"), "y/dup.jsonl": []byte("2")})
	for name, want := range map[string]string{"trace.jsonl": "t", "./trace.jsonl": "t", "/data/traces/trace.jsonl": "t", "x/dup.jsonl": "1", "y/dup.jsonl": "2"} {
		b, err := fs.ReadFile(m, name)
		if err != nil || string(b) != want {
			t.Errorf("ReadFile(%q) = %q, %v; want %q", name, b, err, want)
		}
	}
	if _, err := m.Open("z/dup.jsonl"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ambiguous base name: err = %v, want ErrNotExist", err)
	}
	if _, err := m.Open("missing.jsonl"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: err = %v", err)
	}
	st, err := m.Stat("/somewhere/trace.jsonl")
	if err != nil || st.Size() != 1 || st.IsDir() {
		t.Errorf("Stat = %v, %v", st, err)
	}
	ents, err := fs.ReadDir(m, ".")
	if err != nil || len(ents) != 3 || ents[2].Name() != "trace.jsonl" {
		t.Errorf("ReadDir = %v, %v", ents, err)
	}
}

func TestClassify(t *testing.T) {
	e := Classify("c.yaml", &spec.Error{Path: "engine.model", Msg: "missing"})
	if *e != (Error{Kind: KindConfig, Path: "engine.model", Msg: "missing", Message: "c.yaml: engine.model: missing"}) {
		t.Errorf("config error = %+v", *e)
	}
	e = Classify("c.yaml", errors.New("boom"))
	if e.Kind != KindFailed || e.Message != "aisimulate predict failed: boom" || e.Path != "" {
		t.Errorf("failure = %+v", *e)
	}
}

func TestRunE2MatchesTheWorkedExample(t *testing.T) {
	wall := 12.5
	res := Run(Request{YAML: []byte(e2), FixedWallTimeMs: &wall, CapturePerRequest: true})
	if res.Err != nil {
		t.Fatal(res.Err.Message)
	}
	for _, want := range []string{`"completed_requests": 6,`, `"duration_ms": 15.0,`, `"wall_time_ms": 12.5`, `"per_request_records": 6`} {
		if !strings.Contains(res.PredictionJSON, want) {
			t.Errorf("prediction.json lacks %s", want)
		}
	}
	if n := strings.Count(res.RequestsJSONL, "\n"); n != 6 {
		t.Errorf("requests.jsonl has %d lines, want 6", n)
	}
	if !strings.HasPrefix(res.SummaryJSON, `{"completed_requests":6,`) {
		t.Errorf("summary = %.60s", res.SummaryJSON)
	}
}

func TestRunReportsConfigErrorsWithPath(t *testing.T) {
	res := Run(Request{ConfigName: "x.yaml", YAML: []byte(strings.Replace(e2, "concurrency: 2", "concurrency: 0", 1))})
	if res.Err == nil || res.Err.Kind != KindConfig || res.Err.Path != "traffic.load.concurrency" {
		t.Fatalf("err = %+v", res.Err)
	}
	if !strings.HasPrefix(res.Err.Message, "x.yaml: traffic.load.concurrency: ") {
		t.Errorf("message = %q", res.Err.Message)
	}
}

func TestRunReadsUploadedTraces(t *testing.T) {
	trace, err := os.ReadFile("../../web/testdata/identity/small_trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("../../web/testdata/identity/05-trace-mooncake.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := Run(Request{YAML: cfg, Files: map[string][]byte{"uploads/small_trace.jsonl": trace}})
	if res.Err != nil {
		t.Fatal(res.Err.Message)
	}
	if !strings.Contains(res.PredictionJSON, `"completed_requests": 40,`) {
		t.Error("trace run did not complete 40 requests")
	}
	res = Run(Request{YAML: cfg})
	if res.Err == nil || res.Err.Kind != KindConfig {
		t.Fatalf("missing trace: err = %+v", res.Err)
	}
}

func TestCheckAbortsThroughProgress(t *testing.T) {
	// The limit hook turns a Check error raised inside a Progress call into KindLimit.
	calls := 0
	long := strings.NewReplacer("output_tokens: 4", "output_tokens: 140000", "concurrency: 2", "concurrency: 1",
		"requests: 6", "requests: 1", "blocks: 256", "blocks: 4096").Replace(e2)
	r := Request{YAML: []byte(long), Check: func() error { calls++; return errors.New("cpu budget exhausted") }}
	res := Run(r)
	if calls == 0 {
		t.Fatal("simcore.Predict reported no progress over 140 000 passes; the limit hook cannot fire")
	}
	if res.Err == nil || res.Err.Kind != KindLimit || res.Err.Message != "cpu budget exhausted" {
		t.Fatalf("err = %+v", res.Err)
	}
}

// Detail takes a --detail value; the details object is in prediction.json and StdoutJSON, and
// a bad section is bad input naming the allowed ones.
func TestRunDetail(t *testing.T) {
	res := Run(Request{YAML: []byte(e2), Detail: "all"})
	if res.Err != nil {
		t.Fatal(res.Err.Message)
	}
	want := `"requested_sections": [
      "summary",
      "memory",
      "time",
      "energy",
      "source"
    ],`
	if !strings.Contains(res.PredictionJSON, want) || !strings.HasPrefix(res.StdoutJSON, `{"details":{"requested_sections":["summary","memory","time","energy","source"],`) {
		t.Errorf("details missing:\n%s\n%s", res.PredictionJSON, res.StdoutJSON)
	}
	if plain := Run(Request{YAML: []byte(e2)}); strings.Contains(plain.PredictionJSON, `"details"`) || plain.StdoutJSON != plain.SummaryJSON {
		t.Errorf("details without Detail")
	}
	res = Run(Request{YAML: []byte(e2), Detail: "memory,power"})
	if res.Err == nil || res.Err.Kind != KindConfig || res.Err.Message != "detail: invalid section 'power' (choose from summary, memory, time, energy, source, all)" {
		t.Errorf("bad section: %+v", res.Err)
	}
}

// The docs embed's sentence is the module's (report.SaturationSentence, docs/semantics/outputs.md
// §3.4): E2's closed loop keeps up.
func TestRunSaturationText(t *testing.T) {
	res := Run(Request{YAML: []byte(e2)})
	if res.Err != nil {
		t.Fatal(res.Err.Message)
	}
	if want := "Keeping up: offered 500 req/s, served 400 req/s; the queue was steady at the last arrival (0 waiting)."; res.SaturationText != want {
		t.Errorf("SaturationText = %q, want %q", res.SaturationText, want)
	}
}

// The browser app's deployment line and SLA cards come from the module's overview, with the
// catalog id a model alias resolved to.
func TestRunOverviewJSON(t *testing.T) {
	yaml := strings.Replace(e2, "model: meta-llama/Meta-Llama-3.1-8B", "model: someorg/Llama-3.1-8B-Instruct-FP8", 1) +
		"evaluation: {sla: {e2e_ms: 5}}\n"
	res := Run(Request{YAML: []byte(yaml)})
	if res.Err != nil {
		t.Fatal(res.Err.Message)
	}
	var ov report.Overview
	if err := json.Unmarshal([]byte(res.OverviewJSON), &ov); err != nil {
		t.Fatal(err)
	}
	if got := ov.Deployment.ModelText(); got != "meta-llama/Meta-Llama-3.1-8B (given as someorg/Llama-3.1-8B-Instruct-FP8)" {
		t.Errorf("model %q", got)
	}
	if len(ov.Attainment) != 1 || ov.Attainment[0].Share() != "100.0%" || ov.Deployment.GPUs() != 1 {
		t.Errorf("overview %+v", ov)
	}
}

// A local model directory named in any form (relative, `..`, absolute) finds the uploaded
// config.json, in the browser and at the edge as in the CLI (docs/config.md, "File paths"):
// the tiny model's 2048-position context rejects the second request's 3000-token prompt.
func TestRunReadsUploadedModelDirectoryAnyPathForm(t *testing.T) {
	model, err := os.ReadFile("../../simcore/catalog/testdata/tiny-model/config.json")
	if err != nil {
		t.Fatal(err)
	}
	trace := []byte(`{"timestamp": 0, "input_length": 1000, "output_length": 4, "hash_ids": [1, 2]}
{"timestamp": 10, "input_length": 3000, "output_length": 4, "hash_ids": [1, 2, 3, 4, 5, 6]}
`)
	for _, form := range []struct{ model, trace string }{
		{"tiny", "traces/m.jsonl"}, {"../models/tiny", "../traces/m.jsonl"}, {"/data/models/tiny", "/data/traces/m.jsonl"},
	} {
		cfg := strings.NewReplacer("meta-llama/Meta-Llama-3.1-8B", form.model,
			"source: {type: synthetic, input_tokens: 32, output_tokens: 4}", "source: {type: trace, format: mooncake, paths: ["+form.trace+"]}",
			"  stop: {requests: 6}\n", "").Replace(e2)
		for _, files := range []map[string][]byte{
			{"config.json": model, "m.jsonl": trace},                // a file picker's base names
			{form.model + "/config.json": model, form.trace: trace}, // names as the configuration writes them (--remote)
		} {
			res := Run(Request{YAML: []byte(cfg), Files: files})
			if res.Err != nil {
				t.Fatalf("%s: %s", form.model, res.Err.Message)
			}
			if !strings.Contains(res.PredictionJSON, `"completed_requests": 1,`) || !strings.Contains(res.PredictionJSON, `"num_requests": 2,`) {
				t.Errorf("%s with uploads %v: not the tiny model on the two-request trace", form.model, files)
			}
		}
	}
}
