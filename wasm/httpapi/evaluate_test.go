package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"

	"aisimulate/simcore"
	jsapi "aisimulate/wasm/jsapi"
)

// long is e2 made to run for hundreds of thousands of event-loop steps.
var long = strings.NewReplacer("output_tokens: 4", "output_tokens: 140000", "concurrency: 2", "concurrency: 1",
	"requests: 6", "requests: 3", "blocks: 256", "blocks: 4096").Replace(e2)

func evalJSON(t *testing.T, req simcore.EvaluationRequest) []byte {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// postEvaluate posts req as JSON and returns the answer.
func postEvaluate(t *testing.T, s *Server, req simcore.EvaluationRequest) *httptest.ResponseRecorder {
	t.Helper()
	return serve(t, s, "POST", "/v1/predict?evaluate=1", "application/json", evalJSON(t, req))
}

// Every outcome (success, unsupported, timed out) is 200 with exactly simcore.Evaluate's
// bytes; the worker's step limit above the candidate's budget changes nothing.
func TestEvaluateAnswersSimcoreEvaluateBytes(t *testing.T) {
	for _, c := range []struct {
		name   string
		req    simcore.EvaluationRequest
		status string
	}{
		{"success", simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: e2, BudgetSteps: 1 << 40}, `"status":""`},
		{"unsupported", simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: strings.Replace(e2, "h200_sxm", "no_such_gpu", 1), BudgetSteps: 1 << 40}, `"status":"unsupported"`},
		{"memory beyond every evaluator", simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: strings.Replace(e2, "requests: 6", "requests: 10000000000", 1), BudgetSteps: 1 << 40}, `"status":"unsupported"`},
		{"timed out within the worker's limit", simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: long, BudgetSteps: 2 * simcore.ProgressSteps}, `"status":"timed_out"`},
	} {
		w := postEvaluate(t, &Server{}, c.req)
		want := simcore.Evaluate(c.req, nil)
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" || !bytes.Equal(w.Body.Bytes(), want) {
			t.Errorf("%s: %d %q\nwant 200 %q", c.name, w.Code, w.Body, want)
		}
		if !strings.Contains(w.Body.String(), c.status) {
			t.Errorf("%s: outcome %s lacks %s", c.name, w.Body, c.status)
		}
	}
}

// Multipart: the "request" part plus trace files named as the configuration names them.
func TestEvaluateMultipartWithTrace(t *testing.T) {
	cfg := strings.Replace(e2, "  source: {type: synthetic, input_tokens: 32, output_tokens: 4}\n",
		"  source: {type: trace, format: mooncake, paths: [traces/t.jsonl]}\n", 1)
	cfg = strings.Replace(cfg, "  stop: {requests: 6}\n", "", 1)
	trace := "{\"timestamp\": 0, \"input_length\": 40, \"output_length\": 3, \"hash_ids\": [1]}\n{\"timestamp\": 5, \"input_length\": 70, \"output_length\": 2, \"hash_ids\": [1, 2]}\n"
	req := simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: cfg, BudgetSteps: 1 << 30}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormField("request")
	fw.Write(evalJSON(t, req))
	fw, _ = mw.CreateFormFile("traces/t.jsonl", "traces/t.jsonl")
	io.WriteString(fw, trace)
	mw.Close()
	w := serve(t, &Server{}, "POST", "/v1/predict?evaluate=1", mw.FormDataContentType(), buf.Bytes())
	want := simcore.Evaluate(req, jsapi.NewMemFS(map[string][]byte{"traces/t.jsonl": []byte(trace)}))
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want) || !strings.Contains(w.Body.String(), `"completed_requests":2`) {
		t.Fatalf("%d %s\nwant %s", w.Code, w.Body, want)
	}
	// Without the "request" part the call is malformed.
	buf.Reset()
	mw = multipart.NewWriter(&buf)
	mw.WriteField("config", e2)
	mw.Close()
	w = serve(t, &Server{}, "POST", "/v1/predict?evaluate=1", mw.FormDataContentType(), buf.Bytes())
	if e := errBody(t, w); w.Code != 400 || !strings.Contains(e.Error, `"request" part`) {
		t.Fatalf("%d %+v", w.Code, e)
	}
}

// A budget above the worker's step limit is no error by itself: a run that fits is
// answered; one that would pass the worker's limit first is 413 "work", never a timed_out
// outcome the candidate's own budget would not give.
func TestEvaluateWorkerStepLimit(t *testing.T) {
	s := &Server{MaxProgress: 2}
	short := simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: e2, BudgetSteps: 1 << 40}
	if w := postEvaluate(t, s, short); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), simcore.Evaluate(short, nil)) {
		t.Fatalf("short run: %d %s", w.Code, w.Body)
	}
	req := simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: long, BudgetSteps: 1 << 40}
	w := postEvaluate(t, s, req)
	e := errBody(t, w)
	if w.Code != 413 || e.Limit != "work" || !strings.Contains(e.Error, "8192 event-loop steps") || !strings.Contains(e.Error, "locally") {
		t.Fatalf("%d %+v", w.Code, e)
	}
	// The candidate's budget below the worker's limit: its own timeout, an outcome.
	req.BudgetSteps = simcore.ProgressSteps
	if w := postEvaluate(t, s, req); w.Code != 200 || !bytes.Equal(w.Body.Bytes(), simcore.Evaluate(req, nil)) || !strings.Contains(w.Body.String(), "timed_out") {
		t.Fatalf("own budget: %d %s", w.Code, w.Body)
	}
}

// A candidate whose memory estimate passes the worker's budget but fits the CLI's is 413
// "memory" naming the field (the CLI evaluates it); the CLI reports it supported.
func TestEvaluateWorkerMemoryLimit(t *testing.T) {
	// 40,000 replicas: 40,000 ranks × 4 KiB of scheduler state, 156 MiB.
	req := simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: strings.Replace(e2, "blocks: 256}}", "blocks: 256}}\n      parallelism: {replicas: 40000}", 1), BudgetSteps: 1 << 40}
	w := postEvaluate(t, &Server{}, req)
	e := errBody(t, w)
	if w.Code != 413 || e.Limit != "memory" || e.Path != "engine.workers.aggregated.parallelism.replicas" || !strings.Contains(e.Error, "96.0 MiB") {
		t.Fatalf("%d %+v", w.Code, e)
	}
	if out := simcore.Evaluate(req, nil); !bytes.Contains(out, []byte(`"status":""`)) {
		t.Fatalf("the CLI's evaluation: %s", out)
	}
}

func TestEvaluateMalformedRequests(t *testing.T) {
	for _, c := range []struct{ body, msg string }{
		{`{"config_name": "c.yaml", "config_yaml": 3}`, "malformed evaluation request"},
		{`{"config_name": "c.yaml", "config_yaml": "", "budget_steps": 5, "extra": 1}`, "unknown field"},
		{`{"config_name": "c.yaml", "config_yaml": "x: 1", "budget_steps": 0}`, "budget_steps is 0"},
		{`{"config_name": "c.yaml", "config_yaml": "x: 1", "budget_steps": 5} {}`, "data after"},
		{``, "malformed evaluation request"},
		{e2, "malformed evaluation request"},
	} {
		w := serve(t, &Server{}, "POST", "/v1/predict?evaluate=1", "application/json", []byte(c.body))
		if e := errBody(t, w); w.Code != 400 || !strings.Contains(e.Error, c.msg) || e.Limit != "" {
			t.Errorf("%.40q: %d %+v", c.body, w.Code, e)
		}
	}
	w := serve(t, &Server{}, "POST", "/v1/predict?evaluate=1", "application/json", bytes.Repeat([]byte(" "), MaxBodyBytes+1))
	if e := errBody(t, w); w.Code != 413 || e.Limit != "body" {
		t.Errorf("body limit: %d %+v", w.Code, e)
	}
}

// FuzzEvaluate posts arbitrary evaluation requests: every answer is 200 with
// simcore.Evaluate's bytes, 400, or 413 naming a limit; never a crash.
func FuzzEvaluate(f *testing.F) {
	f.Add(`{"config_name": "c.yaml", "config_yaml": "engine: {}", "budget_steps": 100000}`)
	f.Add(string(must(json.Marshal(simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: e2, BudgetSteps: 1 << 20}))))
	f.Fuzz(func(t *testing.T, body string) {
		w := serve(t, &Server{MaxProgress: 2}, "POST", "/v1/predict?evaluate=1", "application/json", []byte(body))
		switch w.Code {
		case 200:
			req, err := decodeEvaluationRequest([]byte(body))
			if err != nil || !bytes.Equal(w.Body.Bytes(), simcore.Evaluate(req, nil)) {
				t.Fatalf("200 %s differs from simcore.Evaluate", w.Body)
			}
		case 400:
		case 413:
			if e := errBody(t, w); e.Limit == "" {
				t.Fatalf("413 without limit: %+v", e)
			}
		default:
			t.Fatalf("status %d: %s", w.Code, w.Body)
		}
	})
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// Every response names the module version, errors and preflights included, and exposes it
// to pages on other origins; /v1/health reports it too.
func TestVersionOnEveryResponse(t *testing.T) {
	old := simcore.Version
	simcore.Version = "v9.9.9-test"
	defer func() { simcore.Version = old }()
	for _, c := range []struct{ method, target, body string }{
		{"GET", "/v1/health", ""}, {"OPTIONS", "/v1/predict", ""}, {"GET", "/nowhere", ""},
		{"POST", "/v1/predict", "x: ["}, {"POST", "/v1/predict?evaluate=1", "{"}, {"POST", "/v1/predict", e2},
	} {
		w := serve(t, &Server{}, c.method, c.target, "", []byte(c.body))
		if got := w.Header().Get("X-Aisimulate-Version"); got != "v9.9.9-test" {
			t.Errorf("%s %s (%d): version header %q", c.method, c.target, w.Code, got)
		}
		if !strings.Contains(w.Header().Get("Access-Control-Expose-Headers"), "X-Aisimulate-Version") {
			t.Errorf("%s %s: version header not exposed", c.method, c.target)
		}
	}
	w := serve(t, &Server{}, "GET", "/v1/health", "", nil)
	var h struct {
		ModuleVersion string `json:"module_version"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &h); err != nil || h.ModuleVersion != "v9.9.9-test" {
		t.Fatalf("health %s: %v", w.Body, err)
	}
}
