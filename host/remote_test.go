package host

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A hung worker's requests time out and go to the other URL while it keeps answering: the
// round completes, the hung URL is dropped at once (no retries), and every outcome names the
// URL that answered it.
func TestRemoteHungWorkerIsDroppedAndItsRequestsRequeued(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hung, hungN := fakeWorker(t, "v1", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	good, goodN := fakeWorker(t, "v1", nil)
	p, err := testRemote(t, hung.URL, good.URL)
	if err != nil {
		t.Fatal(err)
	}
	p.timeout = 200 * time.Millisecond
	start := time.Now()
	out, sources, err := p.evaluate(requests(8), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkEchoes(t, out, "echo")
	for i, s := range sources {
		if s != good.URL {
			t.Errorf("outcome %d answered by %q", i, s)
		}
	}
	if hungN.Load() > 2 || goodN.Load() != 8 {
		t.Errorf("hung URL got %d requests (2 senders, no retries), good %d", hungN.Load(), goodN.Load())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the round took %s", d)
	}
	if !p.urls[0].dead.Load() || !strings.Contains(p.urls[0].reason, "no complete answer within 200ms (--remote-timeout)") {
		t.Errorf("hung URL: dead %v, reason %q", p.urls[0].dead.Load(), p.urls[0].reason)
	}
}

// A slow-loris answer (a byte at a time, never ending) is bounded by the same time limit.
func TestRemoteSlowBodyTimesOut(t *testing.T) {
	slow, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"status":`)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
				io.WriteString(w, " ")
				w.(http.Flusher).Flush()
			}
		}
	})
	p, err := testRemote(t, slow.URL)
	if err != nil {
		t.Fatal(err)
	}
	p.timeout = 300 * time.Millisecond
	_, _, err = p.evaluate(requests(1), nil)
	if err == nil || !strings.Contains(err.Error(), slow.URL+": no complete answer within 300ms") {
		t.Errorf("error %v", err)
	}
}

// An endless answer is read to 1 MiB and no further: the URL is dropped.
func TestRemoteEndlessAnswerIsCut(t *testing.T) {
	endless, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(" ", 64<<10))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	good, _ := fakeWorker(t, "v1", nil)
	p, err := testRemote(t, endless.URL, good.URL)
	if err != nil {
		t.Fatal(err)
	}
	out, _, err := p.evaluate(requests(3), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkEchoes(t, out, "echo")
	if want := "the answer is longer than 1048576 bytes (1 MiB)"; !strings.Contains(p.urls[0].reason, want) {
		t.Errorf("reason %q, want %q", p.urls[0].reason, want)
	}
}

// A redirect to another origin is never followed (the candidates would go to a host the user
// did not name); one within the origin is.
func TestRemoteCrossOriginRedirect(t *testing.T) {
	elsewhere, elsewhereN := fakeWorker(t, "v1", nil)
	var self string
	var hits *atomic.Int64
	redirecting, hits := fakeWorker(t, "v1", func(w http.ResponseWriter, r *http.Request) {
		// Within the origin first, then away.
		to := elsewhere.URL
		if hits.Load() == 1 {
			to = self
		}
		http.Redirect(w, r, to+evaluatePath, http.StatusTemporaryRedirect)
	})
	self = redirecting.URL
	p, err := testRemote(t, redirecting.URL)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = p.evaluate(requests(1), nil)
	want := fmt.Sprintf("%s: redirected to another origin (%s); only redirects within %s are followed", redirecting.URL, elsewhere.URL, redirecting.URL)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v\nwant it to contain %s", err, want)
	}
	if elsewhereN.Load() != 0 || hits.Load() != 2 {
		t.Errorf("%d requests reached the other origin, %d the named one (want 0, 2)", elsewhereN.Load(), hits.Load())
	}
}

// A worker's error text is printed with its control characters escaped.
func TestRemoteErrorTextEscaped(t *testing.T) {
	w, _ := fakeWorker(t, "v1", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, "\x1b]0;PWN\a oops")
	})
	p, _ := testRemote(t, w.URL)
	_, _, err := p.evaluate(requests(1), nil)
	if err == nil || !strings.HasSuffix(err.Error(), `: \x1b]0;PWN\a oops`) {
		t.Errorf("error %q", err)
	}
}

// A distrusted URL gets nothing more; with every URL distrusted the local instances
// evaluate, and the outcomes name no remote.
func TestRemoteDistrust(t *testing.T) {
	a, aN := fakeWorker(t, "v1", nil)
	p, err := testRemote(t, a.URL)
	if err != nil {
		t.Fatal(err)
	}
	p.distrust(a.URL, "its outcome differs")
	out, sources, err := p.evaluate(requests(2), nil)
	if err != nil {
		t.Fatal(err)
	}
	checkEchoes(t, out, "local")
	if aN.Load() != 0 || sources[0] != "" || sources[1] != "" {
		t.Errorf("%d requests to the distrusted URL; sources %q", aN.Load(), sources)
	}
}
