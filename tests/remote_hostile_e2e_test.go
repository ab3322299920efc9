package tests

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// distrustedRemotes is recommendation.json's provenance key that only a run which distrusted
// a remote writes.
var distrustedRemotes = regexp.MustCompile(`(?s),\n    "distrusted_remotes": \[.*?\n    \]`)

// plausibleLie raises a candidate's goodput to its whole throughput: every range check
// passes (goodput ≤ throughput), the ranking changes, only recomputing proves it wrong.
func plausibleLie(b []byte) []byte {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var o map[string]any
	if dec.Decode(&o) != nil {
		return b
	}
	if s, ok := o["summary"].(map[string]any); ok {
		s["goodput_output_throughput_tok_s"] = s["output_throughput_tok_s"]
	}
	out, _ := json.Marshal(o)
	return out
}

// sameButProvenance fails unless got's files are want's, recommendation.json aside from
// the distrusted_remotes key, which it must hold naming url.
func sameButProvenance(t *testing.T, got, want map[string][]byte, url, label string) {
	t.Helper()
	j := got["recommendation.json"]
	if !bytes.Contains(j, []byte(`"distrusted_remotes": [`)) || !bytes.Contains(j, []byte(`"remote": "`+url+`"`)) {
		t.Errorf("%s: provenance does not name %s", label, url)
	}
	stripped := map[string][]byte{}
	for k, v := range got {
		stripped[k] = v
	}
	stripped["recommendation.json"] = distrustedRemotes.ReplaceAll(j, nil)
	sameTree(t, stripped, want, label)
}

// A remote that claims the right version and answers edited outcomes is caught: within every
// range (found by recomputing the written views) or outside them (found as they arrive). It
// is named on stderr and in the provenance, the result is the local one, and with
// --strict-remote the run exits 1 (the corrected result still written).
func TestRecommendRemoteLiarIsCaught(t *testing.T) {
	requireCore(t)
	localOut, local := recommendRun(t, nil, nil)
	if local.code != 0 {
		t.Fatalf("local: %d %s", local.code, local.stderr)
	}
	want := readTree(t, localOut)
	honest, honestN := evaluatingServer(t, binaryVersion(t))
	for _, c := range []struct {
		name string
		edit func([]byte) []byte
	}{
		{"within ranges", plausibleLie},
		{"completed_requests -7", func(b []byte) []byte {
			return regexp.MustCompile(`"completed_requests":\d+`).ReplaceAll(b, []byte(`"completed_requests":-7`))
		}},
		{"goodput 1e308", func(b []byte) []byte {
			return regexp.MustCompile(`"goodput_output_throughput_tok_s":[0-9.e+-]+`).ReplaceAll(b, []byte(`"goodput_output_throughput_tok_s":1e308`))
		}},
	} {
		liar, liarN := editingServer(t, binaryVersion(t), c.edit)
		out, r := recommendRun(t, nil, []string{"--remote", liar.URL, "--remote", honest.URL})
		warning := "aisimulate recommend: warning: remote " + liar.URL + " was not trusted: "
		if r.code != 0 || !strings.Contains(r.stderr, warning) || !strings.Contains(r.stderr, "; every outcome it answered was recomputed locally\n") {
			t.Errorf("%s: exit %d, stderr %q", c.name, r.code, r.stderr)
		}
		if liarN.Load() == 0 {
			t.Errorf("%s: the liar evaluated nothing", c.name)
		}
		sameButProvenance(t, readTree(t, out), want, liar.URL, c.name)

		out, r = recommendRun(t, nil, []string{"--remote", liar.URL, "--strict-remote"})
		if r.code != 1 || !strings.Contains(r.stderr, warning) ||
			!strings.Contains(r.stderr, "aisimulate recommend failed: --strict-remote: 1 remote worker(s) answered outcomes this build does not reproduce; the result, recomputed locally, is saved to: out/recommendation.json\n") {
			t.Errorf("%s --strict-remote: exit %d, stderr %q", c.name, r.code, r.stderr)
		}
		sameButProvenance(t, readTree(t, out), want, liar.URL, c.name+" --strict-remote")
	}
	if honestN.Load() == 0 {
		t.Errorf("the honest remote evaluated nothing")
	}
}

// A hung remote does not stall the sweep: its requests time out (--remote-timeout) and go
// to the healthy remote, and the result is the local one.
func TestRecommendRemoteHungWorker(t *testing.T) {
	requireCore(t)
	localOut, _ := recommendRun(t, nil, nil)
	release := make(chan struct{})
	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/health" {
			fmt.Fprintf(w, `{"status":"ok","module_version":%q}`, binaryVersion(t))
			return
		}
		select { // accept the request, never answer
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer hung.Close()
	defer close(release)
	honest, _ := evaluatingServer(t, binaryVersion(t))
	start := time.Now()
	out, r := recommendRun(t, nil, []string{"--remote", hung.URL, "--remote", honest.URL, "--remote-timeout", "1"})
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	if d := time.Since(start); d > 60*time.Second {
		t.Errorf("the sweep took %s", d)
	}
	sameTree(t, readTree(t, out), readTree(t, localOut), "hung remote")

	// Alone, the hung remote fails the sweep (exit 1) naming the limit.
	_, r = recommendRun(t, nil, []string{"--remote", hung.URL, "--remote-timeout", "0.5"})
	if want := hung.URL + ": no complete answer within 500ms (--remote-timeout)"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("alone: exit %d, stderr %q; want %q", r.code, r.stderr, want)
	}
	for _, bad := range []string{"0", "-1", "nan", "1e9", "x"} {
		_, r := recommendRun(t, nil, []string{"--remote", honest.URL, "--remote-timeout", bad})
		if r.code != 2 || !strings.Contains(r.stderr, "argument --remote-timeout: must be a number of seconds in (0, 86400], got '"+bad+"'") {
			t.Errorf("--remote-timeout %s: exit %d, stderr %q", bad, r.code, r.stderr)
		}
	}
}

// An endless answer is cut at 1 MiB (the host stays small) and a redirect to another origin
// is not followed: both drop the URL, and with no other URL the sweep fails naming why.
func TestRecommendRemoteEndlessAnswerAndRedirect(t *testing.T) {
	requireCore(t)
	version := binaryVersion(t)
	endless := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Aisimulate-Version", version)
		if r.URL.Path == "/v1/health" {
			fmt.Fprintf(w, `{"status":"ok","module_version":%q}`, version)
			return
		}
		chunk := bytes.Repeat([]byte(" "), 64<<10)
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}))
	defer endless.Close()
	out, r := recommendRun(t, nil, []string{"--remote", endless.URL})
	if want := endless.URL + ": the answer is longer than 1048576 bytes (1 MiB), the most an outcome can be"; r.code != 1 || !strings.Contains(r.stderr, want) {
		t.Errorf("endless: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "recommendation.json")); !os.IsNotExist(err) {
		t.Errorf("a failed sweep wrote its result: %v", err)
	}

	other, otherN := evaluatingServer(t, version)
	var redirected atomic.Int64
	redirecting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/health" {
			fmt.Fprintf(w, `{"status":"ok","module_version":%q}`, version)
			return
		}
		redirected.Add(1)
		http.Redirect(w, r, other.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer redirecting.Close()
	_, r = recommendRun(t, nil, []string{"--remote", redirecting.URL})
	want := redirecting.URL + ": redirected to another origin (" + other.URL + "); only redirects within " + redirecting.URL + " are followed"
	if r.code != 1 || !strings.Contains(r.stderr, want) || otherN.Load() != 0 || redirected.Load() == 0 {
		t.Errorf("redirect: exit %d, %d requests followed, stderr %q", r.code, otherN.Load(), r.stderr)
	}
}
