package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"aisimulate/host/wire"
	"aisimulate/internal/termsafe"
)

// The remote workers' HTTP contract (docs/recommend.md, "Parallel and remote evaluation").
const (
	healthPath   = "/v1/health"
	evaluatePath = "/v1/predict?evaluate=1"
	// VersionHeader is on every response of an edge worker: the module version it runs.
	VersionHeader = "X-Aisimulate-Version"
)

// Retries of one request at one URL: attempts in all, and the wait before the second (doubled
// before each later one). After the last failed attempt the URL is dropped and the request
// goes to another URL.
const (
	remoteAttempts = 3
	remoteBackoff  = 250 * time.Millisecond
)

// Time limits: connecting, the health check, and one evaluation by default (--remote-timeout;
// an edge worker refuses more than about 6.5 million event-loop steps per call with 413, a
// few seconds of work, so two minutes means the worker or the path to it hangs).
const (
	dialTimeout            = 10 * time.Second
	healthTimeout          = 20 * time.Second
	DefaultEvaluateTimeout = 120 * time.Second
)

// Size limits of a worker's answers: an outcome is one summary (about 4 KB), a health answer
// a few fields. A longer answer is not read past the limit.
const (
	maxOutcomeBytes = 1 << 20
	maxHealthBytes  = 1 << 20
)

// remotePool sends evaluation requests to edge workers: up to concurrency requests in
// flight per URL, retries with backoff on transport errors and 5xx, requests a worker
// refuses as over its limits (413) evaluated by the local pool.
type remotePool struct {
	urls        []*remoteURL
	concurrency int
	timeout     time.Duration // one evaluation request, body included
	version     string
	client      *http.Client
	local       *localPool
	dir         string        // relative file names resolve against it
	backoff     time.Duration // remoteBackoff; tests shorten it
	fallbacks   atomic.Int64  // requests evaluated locally after a 413

	filesMu sync.Mutex
	files   map[string][]byte // file contents read once per run
}

// remoteURL is one --remote URL; dead once it failed a request remoteAttempts times, timed
// out, answered past a limit or redirected elsewhere, or once the module distrusted its
// outcomes.
type remoteURL struct {
	base       string
	dead       atomic.Bool
	distrusted atomic.Bool

	mu     sync.Mutex
	reason string // why it was dropped
}

// drop marks u dead for the rest of the run, keeping the first reason.
func (u *remoteURL) drop(reason string) {
	u.mu.Lock()
	if u.reason == "" {
		u.reason = reason
	}
	u.mu.Unlock()
	u.dead.Store(true)
}

// newRemotePool checks every URL's health and version before the sweep: an unreachable URL
// or another version is an error naming it.
func newRemotePool(s wire.Start, local *localPool, dir string) (*remotePool, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.DialContext = (&net.Dialer{Timeout: dialTimeout}).DialContext
	transport.MaxIdleConnsPerHost = max(s.RemoteConcurrency, 2)
	timeout := DefaultEvaluateTimeout
	if s.RemoteTimeoutSeconds > 0 {
		timeout = time.Duration(s.RemoteTimeoutSeconds * float64(time.Second))
	}
	client := &http.Client{Transport: transport, CheckRedirect: sameOriginRedirect}
	p := &remotePool{concurrency: max(s.RemoteConcurrency, 1), timeout: timeout, version: s.ModuleVersion, local: local, dir: dir,
		backoff: remoteBackoff, client: client, files: map[string][]byte{}}
	for _, u := range s.Remote {
		r := &remoteURL{base: strings.TrimRight(u, "/")}
		if err := p.checkHealth(r); err != nil {
			return nil, err
		}
		p.urls = append(p.urls, r)
	}
	return p, nil
}

// checkHealth asks GET {URL}/v1/health for the worker's module version.
func (p *remotePool) checkHealth(u *remoteURL) error {
	ctx, cancel := context.WithTimeout(context.Background(), healthTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.base+healthPath, nil)
	if err != nil {
		return fmt.Errorf("argument --remote: %s is not a URL: %v", u.base, err)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return fmt.Errorf("argument --remote: cannot reach %s: %v", u.base+healthPath, unwrapURLError(err))
	}
	defer resp.Body.Close()
	var health struct {
		ModuleVersion *string `json:"module_version"`
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxHealthBytes))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &health) != nil || health.ModuleVersion == nil {
		return fmt.Errorf("argument --remote: %s answered %s without a module_version; is it an aisimulate edge worker (make worker)?",
			u.base+healthPath, resp.Status)
	}
	if *health.ModuleVersion != p.version {
		return fmt.Errorf("remote %s runs aisimulate %s; this binary is %s; deploy the same build (make worker)",
			u.base, termsafe.Escape(*health.ModuleVersion), p.version)
	}
	return nil
}

// evaluate evaluates one round's requests on the live URLs and returns the outcomes in
// request order, with the URL that answered each ("" for a local instance): which URL
// answered which request does not change them. With every URL distrusted the local
// instances evaluate the round.
func (p *remotePool) evaluate(reqs []json.RawMessage, files []string) ([]json.RawMessage, []string, error) {
	bodies := make([]requestBody, len(reqs))
	for i, r := range reqs {
		b, err := p.body(r, files)
		if err != nil {
			return nil, nil, err
		}
		bodies[i] = b
	}
	q := newWorkQueue(len(reqs))
	var wg sync.WaitGroup
	live := 0
	for _, u := range p.urls {
		if u.dead.Load() {
			continue
		}
		live++
		for range p.concurrency {
			wg.Add(1)
			go func() {
				defer wg.Done()
				p.serve(u, q, reqs, bodies)
			}()
		}
	}
	if live == 0 {
		if p.everyURLDistrusted() {
			out, err := p.local.evaluateAll(reqs)
			return out, make([]string, len(reqs)), err
		}
		return nil, nil, p.allDead()
	}
	wg.Wait()
	return q.results, q.sources, q.err
}

// distrust drops the URL the module found answering wrong outcomes.
func (p *remotePool) distrust(base, reason string) {
	for _, u := range p.urls {
		if u.base == base {
			u.distrusted.Store(true)
			u.drop("distrusted: " + reason)
		}
	}
}

// everyURLDistrusted reports whether every URL was distrusted by the module (rather than
// failing): the local instances then evaluate what is left.
func (p *remotePool) everyURLDistrusted() bool {
	for _, u := range p.urls {
		if !u.distrusted.Load() {
			return false
		}
	}
	return true
}

// serve sends queued requests to u until the queue is empty, u is dropped or the round failed.
func (p *remotePool) serve(u *remoteURL, q *workQueue, reqs []json.RawMessage, bodies []requestBody) {
	for {
		i, ok := q.next(u)
		if !ok {
			return
		}
		out, over, err := p.send(u, bodies[i])
		source := u.base
		switch {
		case isRetryable(err) || isDropping(err):
			u.drop(err.Error())
			if p.everyURLDead() {
				q.fail(p.allDead())
			}
			q.requeue(i)
			return
		case err != nil:
			q.fail(err)
			return
		case over:
			out, err = p.local.evaluate(reqs[i])
			if err != nil {
				q.fail(err)
				return
			}
			p.fallbacks.Add(1)
			source = ""
		}
		q.done(i, out, source)
	}
}

// retryableError is a failure worth another attempt: a transport error, a 5xx, a cut body.
type retryableError struct{ msg string }

func (e *retryableError) Error() string { return e.msg }

// retryable formats a retryableError.
func retryable(format string, args ...any) error {
	return &retryableError{fmt.Sprintf(format, args...)}
}

// isRetryable reports whether err is a retryableError.
func isRetryable(err error) bool {
	var r *retryableError
	return errors.As(err, &r)
}

// droppingError is a failure that drops the URL at once, without another attempt: a
// request past its time limit (the worker or the path hangs), an answer past its size limit,
// a redirect to another origin. The request goes to another URL.
type droppingError struct{ msg string }

func (e *droppingError) Error() string { return e.msg }

// isDropping reports whether err is a droppingError.
func isDropping(err error) bool {
	var d *droppingError
	return errors.As(err, &d)
}

// crossOriginError is a redirect to another origin, which is never followed: it would send
// the candidates (and their trace files) to a host the user did not name.
type crossOriginError struct{ from, to string }

func (e *crossOriginError) Error() string {
	return "redirected to another origin (" + termsafe.Escape(e.to) + "); only redirects within " + e.from + " are followed"
}

// sameOriginRedirect is the client's redirect policy: follow at most 10 redirects, each to
// the origin (scheme, host and port) of the first request.
func sameOriginRedirect(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		return &crossOriginError{from: first.Scheme + "://" + first.Host, to: req.URL.Scheme + "://" + req.URL.Host}
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// send posts one request to u with retries; over reports a 413 (over the worker's limits).
// After remoteAttempts retryable failures the error is the last of them.
func (p *remotePool) send(u *remoteURL, body requestBody) (out []byte, over bool, err error) {
	wait := p.backoff
	var last error
	for attempt := 1; attempt <= remoteAttempts; attempt++ {
		if attempt > 1 {
			time.Sleep(wait)
			wait *= 2
			if u.dead.Load() { // another sender dropped u meanwhile: move on at once
				return nil, false, last
			}
		}
		out, over, err = p.post(u, body)
		if !isRetryable(err) {
			return out, over, err
		}
		last = err
	}
	return nil, false, last
}

// post makes one attempt, within p.timeout from sending the request to the answer's last
// byte, reading at most maxOutcomeBytes of the answer.
func (p *remotePool) post(u *remoteURL, body requestBody) (out []byte, over bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.base+evaluatePath, bytes.NewReader(body.data))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", body.contentType)
	resp, err := p.client.Do(req)
	var redirect *crossOriginError
	switch {
	case errors.As(err, &redirect):
		return nil, false, &droppingError{fmt.Sprintf("%s: %v", u.base, redirect)}
	case err != nil && ctx.Err() != nil:
		return nil, false, p.timedOut(u)
	case err != nil:
		return nil, false, retryable("%s: %v", u.base, unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxOutcomeBytes+1))
	switch {
	case err != nil && ctx.Err() != nil:
		return nil, false, p.timedOut(u)
	case err != nil:
		return nil, false, retryable("%s: reading the response: %v", u.base, err)
	case len(data) > maxOutcomeBytes:
		return nil, false, &droppingError{fmt.Sprintf("%s: the answer is longer than %d bytes (1 MiB), the most an outcome can be", u.base, maxOutcomeBytes)}
	}
	// A proxy's error page may lack the header; an answer of the worker never does.
	if v := resp.Header.Get(VersionHeader); v != p.version && (v != "" || resp.StatusCode == http.StatusOK) {
		return nil, false, fmt.Errorf("remote %s now runs aisimulate %s; this binary is %s; deploy the same build (make worker)", u.base, strconv.Quote(v), p.version)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
		if !json.Valid(data) {
			return nil, false, retryable("%s: the outcome is not JSON", u.base)
		}
		return data, false, nil
	case resp.StatusCode == http.StatusRequestEntityTooLarge:
		return nil, true, nil
	case resp.StatusCode >= 500:
		return nil, false, retryable("%s: %s: %s", u.base, resp.Status, errorText(data))
	}
	return nil, false, fmt.Errorf("remote %s refused an evaluation: %s: %s", u.base, resp.Status, errorText(data))
}

// timedOut is the error of a request to u past p.timeout.
func (p *remotePool) timedOut(u *remoteURL) error {
	return &droppingError{fmt.Sprintf("%s: no complete answer within %s (--remote-timeout)", u.base, p.timeout)}
}

// requestBody is a prepared POST body.
type requestBody struct {
	data        []byte
	contentType string
}

// body is the POST body of one request: the EvaluationRequest JSON, or, when the candidate
// reads files, multipart/form-data with the JSON as part "request" and one part per file
// whose name and filename are the file's name as the configuration writes it.
func (p *remotePool) body(req json.RawMessage, files []string) (requestBody, error) {
	if len(files) == 0 {
		return requestBody{data: req, contentType: "application/json"}, nil
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="request"`)
	h.Set("Content-Type", "application/json")
	w, _ := mw.CreatePart(h)
	w.Write(req)
	for _, name := range files {
		data, err := p.file(name)
		if err != nil {
			return requestBody{}, err
		}
		w, _ := mw.CreateFormFile(name, name)
		w.Write(data)
	}
	mw.Close()
	return requestBody{data: buf.Bytes(), contentType: mw.FormDataContentType()}, nil
}

// file reads a file the candidates name (relative to p.dir), once per run.
func (p *remotePool) file(name string) ([]byte, error) {
	p.filesMu.Lock()
	defer p.filesMu.Unlock()
	if b, ok := p.files[name]; ok {
		return b, nil
	}
	path := filepath.FromSlash(name)
	if !filepath.IsAbs(path) && p.dir != "" {
		path = filepath.Join(filepath.FromSlash(p.dir), path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s for the remote workers: %v", name, unwrapPathError(err))
	}
	p.files[name] = b
	return b, nil
}

// everyURLDead reports whether every URL has been dropped.
func (p *remotePool) everyURLDead() bool {
	for _, u := range p.urls {
		if !u.dead.Load() {
			return false
		}
	}
	return true
}

// allDead is the error when no URL is left: each URL with the reason it was dropped.
func (p *remotePool) allDead() error {
	var parts []string
	for _, u := range p.urls {
		u.mu.Lock()
		parts = append(parts, u.reason)
		u.mu.Unlock()
	}
	return fmt.Errorf("every remote worker failed: %s", strings.Join(parts, "; "))
}

// errorText is the "error" of a worker's JSON error body, else the body's start, with its
// control characters escaped (termsafe.Escape): a worker's text never reaches a terminal raw.
func errorText(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	s := strings.TrimSpace(string(body))
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		s = e.Error
	}
	if len(s) > 200 {
		s = strings.ToValidUTF8(s[:200], "") + "…"
	}
	return termsafe.Escape(s)
}

// unwrapURLError drops net/http's `Get "URL":` prefix (the message names the URL already).
func unwrapURLError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// unwrapPathError is the reason of an *os.PathError.
func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
