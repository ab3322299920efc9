package host

import (
	"bufio"
	"context"
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
	"time"

	"aisimulate/host/wire"
)

// runPool runs the guest's `pool PARALLELISM REQUESTS [URL…]` (testdata/guest/evaluate.go)
// with at most evaluators local instances and returns its start reply and outcomes.
func runPool(t *testing.T, evaluators int, args ...string) (wire.Reply, []map[string]any) {
	t.Helper()
	var so, se strings.Builder
	code := Run(context.Background(), guest, Config{Args: append([]string{"pool"}, args...), Stdout: &so, Stderr: &se,
		CacheDir: guestCache, Evaluators: evaluators})
	if code != 0 {
		t.Fatalf("pool %v: exit %d, stderr %q", args, code, se.String())
	}
	lines := strings.Split(strings.TrimSpace(so.String()), "\n")
	var start wire.Reply
	if err := json.Unmarshal([]byte(lines[0]), &start); err != nil {
		t.Fatalf("start reply %q: %v", lines[0], err)
	}
	var outcomes []map[string]any
	for _, l := range lines[1:] {
		var o map[string]any
		if err := json.Unmarshal([]byte(l), &o); err != nil {
			t.Fatalf("outcome %q: %v", l, err)
		}
		outcomes = append(outcomes, o)
	}
	return start, outcomes
}

// A round runs on min(parallelism, evaluators) instances of the module, started once and
// reused, and its outcomes come back in request order.
func TestLocalInstances(t *testing.T) {
	for _, c := range []struct{ evaluators, parallelism, instances int }{{4, 4, 4}, {2, 4, 2}, {8, 3, 3}} {
		start, outcomes := runPool(t, c.evaluators, fmt.Sprint(c.parallelism), "9")
		if start.Instances != c.instances || start.InProcess {
			t.Errorf("%+v: start reply %+v", c, start)
		}
		if len(outcomes) != 9 {
			t.Fatalf("%+v: %d outcomes", c, len(outcomes))
		}
		ids := map[any]bool{}
		for i, o := range outcomes {
			if got := o["request"].(map[string]any)["i"]; got != float64(i) {
				t.Errorf("%+v: outcome %d answers request %v", c, i, got)
			}
			ids[o["instance"]] = true
		}
		// Each evaluation takes 300 ms, so every instance is busy before any is reused.
		if len(ids) != c.instances {
			t.Errorf("%+v: %d distinct instances answered, want %d", c, len(ids), c.instances)
		}
	}
}

// One instance (parallelism 1 or one core) is no gain over the module itself.
func TestOneInstanceEvaluatesInProcess(t *testing.T) {
	for _, c := range [][2]int{{1, 4}, {4, 1}} {
		start, outcomes := runPool(t, c[0], fmt.Sprint(c[1]), "3")
		if !start.InProcess || start.Instances != 0 || len(outcomes) != 0 {
			t.Errorf("evaluators %d parallelism %d: %+v, %d outcomes", c[0], c[1], start, len(outcomes))
		}
	}
}

// A local pool over more requests than instances starts at most size instances, reuses them
// and places every outcome by request index. The instances are goroutines, not module
// instances, so `make test` runs this under -race at little cost.
func TestLocalPoolOfFakeInstances(t *testing.T) {
	var starts atomic.Int64
	p := newLocalPool(3, func(int) (*instance, error) { starts.Add(1); return echoInstance(), nil })
	defer p.close()
	for round := 0; round < 3; round++ {
		out, err := p.evaluateAll(requests(20))
		if err != nil {
			t.Fatal(err)
		}
		checkEchoes(t, out, "local")
	}
	if n := starts.Load(); n < 1 || n > 3 {
		t.Errorf("%d instances started, want 1 to 3", n)
	}
}

// fakeWorker is an edge worker stand-in: version on /v1/health and on every response, and
// evaluations answered by answer (nil: {"echo": <request body>}).
func fakeWorker(t *testing.T, version string, answer func(w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	var evaluations atomic.Int64
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(VersionHeader, version)
		if r.URL.Path == healthPath {
			fmt.Fprintf(w, `{"status":"ok","module_version":%q}`, version)
			return
		}
		if r.Method != http.MethodPost || r.URL.String() != evaluatePath {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.String(), http.StatusNotFound)
			return
		}
		evaluations.Add(1)
		if answer != nil {
			answer(w, r)
			return
		}
		b, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, `{"echo":%s}`, b)
	}))
	t.Cleanup(s.Close)
	return s, &evaluations
}

// testRemote is a remote pool over urls with a short backoff and a local pool of one fake
// instance answering {"local": <request>}.
func testRemote(t *testing.T, urls ...string) (*remotePool, error) {
	t.Helper()
	local := newLocalPool(1, func(int) (*instance, error) { return echoInstance(), nil })
	t.Cleanup(local.close)
	p, err := newRemotePool(wire.Start{Remote: urls, RemoteConcurrency: 2, ModuleVersion: "v1"}, local, t.TempDir())
	if p != nil {
		p.backoff = time.Millisecond
	}
	return p, err
}

// echoInstance is an instance whose evaluator is a goroutine answering {"local": <request>}.
func echoInstance() *instance {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	inst := &instance{name: "echo", stdin: inW, stdout: bufio.NewReader(outR), stderr: &syncBuffer{}, done: make(chan struct{})}
	go func() {
		defer close(inst.done)
		defer outW.Close()
		for {
			req, err := wire.ReadFrame(inR)
			if err != nil {
				return
			}
			wire.WriteFrame(outW, []byte(`{"local":`+string(req)+`}`))
		}
	}()
	return inst
}

func requests(n int) []json.RawMessage {
	var reqs []json.RawMessage
	for i := range n {
		reqs = append(reqs, json.RawMessage(fmt.Sprintf(`{"i":%d}`, i)))
	}
	return reqs
}

func checkEchoes(t *testing.T, out []json.RawMessage, kind string) {
	t.Helper()
	for i, o := range out {
		if want := fmt.Sprintf(`{"%s":{"i":%d}}`, kind, i); string(o) != want {
			t.Errorf("outcome %d = %s, want %s", i, o, want)
		}
	}
}

// Outcomes are placed by request index whichever URL answered; a URL failing with 5xx is
// retried, then dropped for the rest of the run, and its requests go to the other URL.
func TestRemoteRetriesThenDropsAURL(t *testing.T) {
	good, goodN := fakeWorker(t, "v1", nil)
	bad, badN := fakeWorker(t, "v1", func(w http.ResponseWriter, _ *http.Request) { http.Error(w, `{"error":"down"}`, http.StatusBadGateway) })
	p, err := testRemote(t, bad.URL, good.URL)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := p.evaluate(requests(10), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkEchoes(t, out, "echo")
	// Two senders on the bad URL: the first to fail 3 times dropped it, the other stopped
	// retrying then.
	bad1 := badN.Load()
	if bad1 < remoteAttempts || bad1 > 2*remoteAttempts || goodN.Load() != 10 {
		t.Errorf("bad URL got %d requests, good %d", bad1, goodN.Load())
	}
	if _, _, err := p.evaluate(requests(3), nil); err != nil || badN.Load() != bad1 {
		t.Errorf("the dropped URL was used again (%d requests): %v", badN.Load(), err)
	}
}

// When every URL is dropped the round fails naming each with its last failure.
func TestRemoteEveryURLDead(t *testing.T) {
	bad, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, `{"error":"down"}`, http.StatusServiceUnavailable)
	})
	gone, _ := fakeWorker(t, "v1", nil)
	p, err := testRemote(t, bad.URL, gone.URL)
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()
	_, _, err = p.evaluate(requests(4), nil)
	if err == nil || !strings.HasPrefix(err.Error(), "every remote worker failed: "+bad.URL+": 503 Service Unavailable: down; "+gone.URL+": ") {
		t.Fatalf("error %v", err)
	}
	if _, _, err2 := p.evaluate(requests(1), nil); err2 == nil || err2.Error() != err.Error() {
		t.Errorf("next round: %v", err2)
	}
}

// 413 (over the worker's limits) is evaluated by the local pool and counted.
func TestRemoteOverLimitsRunsLocally(t *testing.T) {
	w, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if string(b) == `{"i":1}` || string(b) == `{"i":3}` {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			io.WriteString(w, `{"error":"too much work","path":"","limit":"work"}`)
			return
		}
		fmt.Fprintf(w, `{"echo":%s}`, b)
	})
	p, err := testRemote(t, w.URL)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := p.evaluate(requests(4), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"echo":{"i":0}}`, `{"local":{"i":1}}`, `{"echo":{"i":2}}`, `{"local":{"i":3}}`}
	for i := range want {
		if string(out[i]) != want[i] {
			t.Errorf("outcome %d = %s, want %s", i, out[i], want[i])
		}
	}
	if p.fallbacks.Load() != 2 {
		t.Errorf("%d fallbacks counted", p.fallbacks.Load())
	}
}

// Any other 4xx is a failure of the sweep, not a reason to drop the URL or retry.
func TestRemoteBadRequestFails(t *testing.T) {
	w, n := fakeWorker(t, "v1", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":"malformed evaluation request: x","path":""}`)
	})
	p, _ := testRemote(t, w.URL)
	_, _, err := p.evaluate(requests(1), nil)
	if err == nil || err.Error() != "remote "+w.URL+" refused an evaluation: 400 Bad Request: malformed evaluation request: x" || n.Load() != 1 {
		t.Errorf("%d requests, error %v", n.Load(), err)
	}
}

// The health check runs before the sweep: another version, no module_version or no answer
// is an error naming the URL.
func TestRemoteHealthCheck(t *testing.T) {
	other, _ := fakeWorker(t, "v2", nil)
	_, err := testRemote(t, other.URL)
	if want := "remote " + other.URL + " runs aisimulate v2; this binary is v1; deploy the same build (make worker)"; err == nil || err.Error() != want {
		t.Errorf("version mismatch: %v\nwant %s", err, want)
	}
	notWorker := httptest.NewServer(http.NotFoundHandler())
	defer notWorker.Close()
	if _, err := testRemote(t, notWorker.URL+"/"); err == nil || !strings.Contains(err.Error(), notWorker.URL+"/v1/health answered 404 Not Found without a module_version") {
		t.Errorf("not a worker: %v", err)
	}
	notWorker.Close()
	if _, err := testRemote(t, notWorker.URL); err == nil || !strings.HasPrefix(err.Error(), "argument --remote: cannot reach "+notWorker.URL+"/v1/health: ") {
		t.Errorf("unreachable: %v", err)
	}
	// A worker redeployed mid-sweep: its answers carry another version.
	changed, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set(VersionHeader, "v3")
		io.WriteString(w, "{}")
	})
	p, err := testRemote(t, changed.URL)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.evaluate(requests(1), nil); err == nil || !strings.Contains(err.Error(), `now runs aisimulate "v3"; this binary is v1`) {
		t.Errorf("changed version: %v", err)
	}
}

// With files, the body is multipart/form-data: the request JSON as part "request" and each
// file as a part whose name and filename are the path as the configuration writes it,
// read relative to the module's working directory.
func TestRemoteMultipartFiles(t *testing.T) {
	w, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var parts []string
		for name, fhs := range r.MultipartForm.File {
			f, _ := fhs[0].Open()
			b, _ := io.ReadAll(f)
			parts = append(parts, fmt.Sprintf("%s|%s|%s", name, fhs[0].Filename, b))
		}
		b, _ := json.Marshal(map[string]any{"request": r.MultipartForm.Value["request"], "files": parts})
		w.Write(b)
	})
	p, err := testRemote(t, w.URL)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(p.dir, "traces", "t.jsonl"), []byte("{}\n"), 0o644)
	out, _, err := p.evaluate(requests(1), []string{"traces/t.jsonl"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"files":["traces/t.jsonl|t.jsonl|{}\n"],"request":["{\"i\":0}"]}`; string(out[0]) != want {
		t.Errorf("got %s\nwant %s", out[0], want)
	}
	if _, _, err := p.evaluate(requests(1), []string{"missing.jsonl"}); err == nil || err.Error() != "cannot read missing.jsonl for the remote workers: no such file or directory" {
		t.Errorf("missing file: %v", err)
	}
}
