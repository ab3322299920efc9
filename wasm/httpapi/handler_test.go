package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"mime"
	"mime/multipart"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore"
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

func serve(t *testing.T, s *Server, method, target, ctype string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, bytes.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	return w
}

func errBody(t *testing.T, w *httptest.ResponseRecorder) apiError {
	t.Helper()
	var e apiError
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("error body %q: %v", w.Body.String(), err)
	}
	return e
}

func TestHealthAndCORS(t *testing.T) {
	w := serve(t, &Server{}, "GET", "/v1/health", "", nil)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"status":"ok"`) || w.Header().Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("health: %d %s", w.Code, w.Body)
	}
	w = serve(t, &Server{}, "OPTIONS", "/v1/predict", "", nil)
	if w.Code != 204 || !strings.Contains(w.Header().Get("Access-Control-Allow-Methods"), "POST") {
		t.Fatalf("preflight: %d", w.Code)
	}
}

func TestPredictFixedWallTimeFromEnv(t *testing.T) {
	s := &Server{Env: func(k string) string {
		if k == "AISIMULATE_FIXED_WALL_TIME_MS" {
			return "12.5"
		}
		return ""
	}}
	w := serve(t, s, "POST", "/v1/predict", "application/yaml", []byte(e2))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	for _, want := range []string{`"completed_requests": 6,`, `"wall_time_ms": 12.5`, `"processed_tokens_per_s": 17280.0`} {
		if !strings.Contains(w.Body.String(), want) {
			t.Errorf("body lacks %s", want)
		}
	}
}

// Without the binding the API reports the three wall-clock keys as 0.0, always (docs/web.md):
// it never measures, so every call with the same input returns the same bytes.
func TestPredictWallTimeIsZeroWithoutBinding(t *testing.T) {
	s := &Server{Env: func(string) string { return "" }}
	first := serve(t, s, "POST", "/v1/predict", "application/yaml", []byte(e2))
	if first.Code != 200 {
		t.Fatalf("%d %s", first.Code, first.Body)
	}
	for _, want := range []string{"\"wall_time_ms\": 0.0\n", `"processed_tokens_per_s": 0.0,`, `"processed_output_tokens_per_s": 0.0,`} {
		if !strings.Contains(first.Body.String(), want) {
			t.Errorf("body lacks %s", want)
		}
	}
	if again := serve(t, s, "POST", "/v1/predict", "application/yaml", []byte(e2)); again.Body.String() != first.Body.String() {
		t.Errorf("two calls with the same input differ")
	}
}

// A binding that is not a usable number is a deployment error naming the binding, not
// silently ignored.
func TestPredictBadWallTimeBindingIsAnError(t *testing.T) {
	for _, v := range []string{"fast", "NaN", "-1", "+Inf"} {
		s := &Server{Env: func(k string) string {
			if k == simcore.EnvFixedWallTimeMs {
				return v
			}
			return ""
		}}
		w := serve(t, s, "POST", "/v1/predict", "application/yaml", []byte(e2))
		if w.Code != 500 || !strings.Contains(w.Body.String(), simcore.EnvFixedWallTimeMs) || !strings.Contains(w.Body.String(), "remove it") {
			t.Errorf("%q: %d %s", v, w.Code, w.Body)
		}
	}
}

func TestPredictMultipartWithCapture(t *testing.T) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("config", "prediction.yaml")
	io.WriteString(fw, e2)
	mw.WriteField("capture_per_request", "1")
	mw.Close()
	w := serve(t, &Server{}, "POST", "/v1/predict", mw.FormDataContentType(), buf.Bytes())
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	mt, params, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if mt != "multipart/mixed" {
		t.Fatalf("content type %s", mt)
	}
	mr := multipart.NewReader(w.Body, params["boundary"])
	var names []string
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		names = append(names, p.FileName())
		if p.FileName() == "requests.jsonl" && bytes.Count(b, []byte("\n")) != 6 {
			t.Errorf("requests.jsonl lines = %d", bytes.Count(b, []byte("\n")))
		}
	}
	if strings.Join(names, ",") != "prediction.json,requests.jsonl" {
		t.Errorf("parts = %v", names)
	}
}

// sessions is a synthetic-session configuration of 30000 sessions × 10 turns.
var sessions = strings.Replace(strings.Replace(e2, "source: {type: synthetic, input_tokens: 32, output_tokens: 4}",
	"source: {type: synthetic-session, new_input_tokens_per_turn: 32, output_tokens_per_turn: 4, session: {turns: 10}}", 1),
	"requests: 6", "sessions: 30000", 1)

func TestPredictErrors(t *testing.T) {
	s := &Server{}
	cases := []struct {
		name, method, target, ctype, body string
		code                              int
		path, msg                         string
	}{
		{"bad input", "POST", "/v1/predict", "", strings.Replace(e2, "concurrency: 2", "concurrency: 0", 1), 400, "traffic.load.concurrency", "prediction.yaml: traffic.load.concurrency: "},
		{"empty", "POST", "/v1/predict", "", "", 400, "", "empty configuration"},
		{"no boundary", "POST", "/v1/predict", "multipart/form-data", "x", 400, "", "without boundary"},
		{"too many requests", "POST", "/v1/predict", "", strings.Replace(e2, "requests: 6", "requests: 200001", 1), 413, "traffic.stop.requests", "at most 200000"},
		{"sessions x turns", "POST", "/v1/predict", "", sessions, 413, "traffic.stop.sessions", "simulates 300000 requests"},
		// Bodies the old shadow schema let through: a per-load-unit stop rule, and a --set.
		{"per load unit", "POST", "/v1/predict", "", strings.Replace(e2, "requests: 6", "requests_per_load_unit: 100001", 1), 413, "traffic.stop.requests_per_load_unit", "simulates 200002 requests"},
		{"set", "POST", "/v1/predict?set=traffic.stop.requests%3D300000", "", e2, 413, "traffic.stop.requests", "simulates 300000 requests"},
		{"set load unit", "POST", "/v1/predict?set=traffic.load.concurrency%3D5000", "", strings.Replace(e2, "requests: 6", "requests_per_load_unit: 50", 1), 413, "traffic.stop.requests_per_load_unit", "simulates 250000 requests"},
		{"bad detail", "POST", "/v1/predict?detail=power", "", e2, 400, "", "detail: invalid section 'power' (choose from summary, memory, time, energy, source, all)"},
		{"config too big", "POST", "/v1/predict", "", "#" + strings.Repeat("x", MaxConfigBytes) + "\n", 413, "", "parsing limit"},
		{"body too big", "POST", "/v1/predict", "", strings.Repeat("x", MaxBodyBytes+1), 413, "", "exceeds"},
		{"get predict", "GET", "/v1/predict", "", "", 405, "", "POST"},
		{"post health", "POST", "/v1/health", "", "", 405, "", "GET"},
		{"not found", "GET", "/", "", "", 404, "", "not found"},
	}
	for _, c := range cases {
		w := serve(t, s, c.method, c.target, c.ctype, []byte(c.body))
		if w.Code != c.code {
			t.Errorf("%s: code %d, want %d (%s)", c.name, w.Code, c.code, w.Body)
			continue
		}
		e := errBody(t, w)
		if e.Path != c.path || !strings.Contains(e.Error, c.msg) {
			t.Errorf("%s: %+v, want path %q and %q", c.name, e, c.path, c.msg)
		}
	}
}

// ?detail= adds the details object to prediction.json, as --detail does in the CLI.
func TestPredictDetail(t *testing.T) {
	w := serve(t, &Server{}, "POST", "/v1/predict?detail=time&detail=summary", "", []byte(e2))
	if w.Code != 200 {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	var doc map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	d, _ := json.Marshal(doc["details"])
	if want := `{"requested_sections":["summary","time"],"schema_version":"1.0","skipped":[{"reason":"unsupported by stack","section":"summary"},{"reason":"unsupported by stack","section":"time"}]}`; string(d) != want {
		t.Errorf("details = %s, want %s", d, want)
	}
	w = serve(t, &Server{}, "POST", "/v1/predict", "", []byte(e2))
	if strings.Contains(w.Body.String(), `"details"`) {
		t.Errorf("details without ?detail=")
	}
}

func TestParseMultipart(t *testing.T) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	mw.WriteField("config", "engine: {}")
	fw, _ := mw.CreateFormFile("file", "t.jsonl")
	io.WriteString(fw, "{}\n")
	fw, _ = mw.CreateFormField("other.jsonl")
	io.WriteString(fw, "x")
	fw, _ = mw.CreateFormFile(CalibrationPart, "b.json")
	io.WriteString(fw, "{b}")
	fw, _ = mw.CreateFormFile(CalibrationPart, "a.json")
	io.WriteString(fw, "{a}")
	mw.Close()
	up, err := parseMultipart(buf.Bytes(), mw.Boundary(), "config", "the YAML")
	cfg, files, cal := up.main, up.files, up.calibrations
	if err != nil || string(cfg) != "engine: {}" || string(files["t.jsonl"]) != "{}\n" || string(files["other.jsonl"]) != "x" || len(files) != 2 {
		t.Fatalf("cfg %q files %v err %v", cfg, files, err)
	}
	// Profiles in the order sent, named by their filename.
	if len(cal) != 2 || cal[0].Name != "b.json" || string(cal[0].Data) != "{b}" || cal[1].Name != "a.json" {
		t.Errorf("calibrations %v", cal)
	}
	if _, err := parseMultipart([]byte("--b--\r\n"), "b", "config", "the YAML"); err == nil || !strings.Contains(err.Error(), "config") {
		t.Errorf("missing config: %v", err)
	}
}

// A file part is named by its whole path: traces of one name in two folders stay two files,
// and one path sent twice is an error rather than a silent replacement.
func TestParseMultipartKeepsPaths(t *testing.T) {
	body := func(names ...string) (*bytes.Buffer, string) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		mw.WriteField("config", "engine: {}")
		for _, n := range names {
			fw, _ := mw.CreateFormFile("file", n)
			io.WriteString(fw, n)
		}
		mw.Close()
		return &buf, mw.Boundary()
	}
	b, boundary := body("a/t.jsonl", "b/t.jsonl")
	up, err := parseMultipart(b.Bytes(), boundary, "config", "the YAML")
	files := up.files
	if err != nil || len(files) != 2 || string(files["a/t.jsonl"]) != "a/t.jsonl" || string(files["b/t.jsonl"]) != "b/t.jsonl" {
		t.Fatalf("files %v err %v", files, err)
	}
	b, boundary = body("a/t.jsonl", "a/t.jsonl")
	if _, err := parseMultipart(b.Bytes(), boundary, "config", "the YAML"); err == nil || !strings.Contains(err.Error(), `"a/t.jsonl"`) {
		t.Fatalf("duplicate: %v", err)
	}
}

func FuzzParseMultipart(f *testing.F) {
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"config\"\r\n\r\nengine: {}\r\n--b--\r\n"), "b")
	f.Add([]byte("--x\r\n\r\n--x--"), "x")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		up, err := parseMultipart(body, boundary, "config", "the YAML")
		if err == nil && (up.main == nil || len(up.files)+len(up.calibrations) > MaxFiles) {
			t.Fatalf("accepted without config or with %d files and %d profiles", len(up.files), len(up.calibrations))
		}
	})
}

// FuzzHandler posts arbitrary bodies (YAML, or multipart with trace files) to /v1/predict:
// every answer is 200, or a JSON error with a 4xx status; never a crash (500).
func FuzzHandler(f *testing.F) {
	f.Add([]byte(e2), "", "")
	f.Add([]byte(e2), "", "set=engine.workers.aggregated.parallelism.replicas=80000")
	f.Add([]byte(e2), "", "capture_per_request=1&set=traffic.stop.requests=3")
	f.Add([]byte(strings.Repeat("{a: ", 300)), "", "")
	f.Add([]byte("--b\r\nContent-Disposition: form-data; name=\"config\"\r\n\r\ntraffic: {source: {type: trace, format: mooncake, paths: [t]}, load: {type: concurrency, concurrency: 1}}\r\n--b\r\nContent-Disposition: form-data; name=\"t\"; filename=\"t\"\r\n\r\n{\"timestamp\": 0, \"input_length\": 4, \"output_length\": 2, \"hash_ids\": [1]}\r\n--b--\r\n"), "multipart/form-data; boundary=b", "")
	f.Fuzz(func(t *testing.T, body []byte, ctype, query string) {
		q, _ := url.ParseQuery(query)
		w := serve(t, &Server{MaxProgress: 2}, "POST", "/v1/predict?"+q.Encode(), ctype, body)
		if w.Code == 200 {
			return
		}
		e := errBody(t, w)
		if w.Code >= 500 || e.Error == "" {
			t.Fatalf("status %d: %+v", w.Code, e)
		}
	})
}

func TestWorkBudgetIs413(t *testing.T) {
	long := strings.NewReplacer("output_tokens: 4", "output_tokens: 140000", "concurrency: 2", "concurrency: 1",
		"requests: 6", "requests: 3", "blocks: 256", "blocks: 4096").Replace(e2)
	w := serve(t, &Server{MaxProgress: 1}, "POST", "/v1/predict", "", []byte(long))
	if e := errBody(t, w); w.Code != 413 || !strings.Contains(e.Error, "work budget") || e.Limit != "work" {
		t.Fatalf("%d %s", w.Code, w.Body)
	}
	if w := serve(t, &Server{}, "POST", "/v1/predict", "", []byte(long)); w.Code != 200 {
		t.Fatalf("default budget: %d %s", w.Code, w.Body)
	}
}
