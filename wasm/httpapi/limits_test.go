package httpapi

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// Inputs that would exhaust the worker's memory or the parser's stack are refused with a
// JSON body naming the field, before anything is simulated.
func TestEdgeRefusals(t *testing.T) {
	for _, c := range []struct {
		target, body string
		status       int
		path, msg    string
	}{
		{"/v1/predict", strings.Repeat("{a: ", 5000) + "1" + strings.Repeat("}", 5000), 400, "", "nests collections more than 100 levels deep"},
		{"/v1/predict?set=engine.workers.aggregated.parallelism.replicas=80000", e2, 400, "engine.workers.aggregated.parallelism.replicas", "MiB a run may use"},
		// A pool that can preempt is charged at its capacity: 257 running requests of
		// 1,000,004 tokens (15,627 blocks of 64) outgrow 4,000,000 blocks.
		{"/v1/predict?set=engine.workers.aggregated.kv_cache.capacity.blocks=4000000&set=traffic.source.input_tokens=1000000&set=engine.context_length=2000000&set=traffic.load.concurrency=257&set=traffic.stop.requests=257&set=engine.workers.aggregated.scheduler.max_sequences=257", e2, 400, "engine.workers.aggregated.kv_cache.capacity", "KV blocks per rank fit"},
		{"/v1/predict?capture_per_request=1&set=traffic.stop.requests=200000", e2, 400, "traffic.stop.requests", "per-request record"},
		{"/v1/predict?set=traffic.stop.requests=200001", e2, 413, "traffic.stop.requests", "at most 200000 requests"},
	} {
		w := serve(t, &Server{}, "POST", c.target, "application/yaml", []byte(c.body))
		e := errBody(t, w)
		if wantLimit := map[int]string{413: "requests"}[c.status]; w.Code != c.status || e.Path != c.path || !strings.Contains(e.Error, c.msg) || e.Limit != wantLimit {
			t.Errorf("%.80s: %d %+v; want %d %s …%s…", c.target, w.Code, e, c.status, c.path, c.msg)
		}
	}
}

// A trace is counted after expansion: one applied_compute_agentic row of many turns is
// more requests than the API allows although it is one line.
func TestEdgeCountsExpandedTrace(t *testing.T) {
	zeros := strings.TrimSuffix(strings.Repeat("0,", 1000), ",")
	row := `{"num_turns": 1000, "input_prompt_length": 3, "assistant_response_length": [` + zeros + `], "tool_call_output_length": [` + zeros + `], "tool_call_latency": [` + zeros + `], "final_assistant_response_length": 1}` + "\n"
	cfg := strings.Replace(e2, "  source: {type: synthetic, input_tokens: 32, output_tokens: 4}\n", "  source: {type: trace, format: applied_compute_agentic, paths: [t.jsonl]}\n", 1)
	cfg = strings.Replace(cfg, "  stop: {requests: 6}\n", "", 1)
	body, ctype := multipartBody(t, cfg, map[string]string{"t.jsonl": strings.Repeat(row, 201)})
	w := serve(t, &Server{}, "POST", "/v1/predict", ctype, body)
	// Counted while reading: the row that passes the limit is named (the 200th row brings
	// the count to 200,200), and the rows after it are never read.
	if e := errBody(t, w); w.Code != 413 || e.Path != "traffic.source.paths" || !strings.Contains(e.Error, "t.jsonl:200: the traces hold more than 200000 requests") {
		t.Errorf("got %d %+v", w.Code, e)
	}
}

// A body that stalls is answered 408 with a JSON error.
func TestEdgeBodyTimeout(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	req := httptest.NewRequest("POST", "/v1/predict", pr)
	w := httptest.NewRecorder()
	start := time.Now()
	(&Server{BodyWait: 50 * time.Millisecond}).ServeHTTP(w, req)
	if e := errBody(t, w); w.Code != 408 || !strings.Contains(e.Error, "did not arrive in time") || time.Since(start) > 5*time.Second {
		t.Errorf("got %d %+v", w.Code, e)
	}
}

// multipartBody is a form with the config part and files.
func multipartBody(t *testing.T, cfg string, files map[string]string) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("config", "prediction.yaml")
	io.WriteString(fw, cfg)
	for name, text := range files {
		fw, _ := mw.CreateFormFile(name, name)
		io.WriteString(fw, text)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}
