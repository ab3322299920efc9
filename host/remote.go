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
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"aisimulate/host/wire"
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

// Time limits: connecting, the health check, and one evaluation (a candidate's work budget
// is bounded by optimizer.candidate_timeout_seconds, 600 s by default, on the worker too).
const (
	dialTimeout     = 10 * time.Second
	healthTimeout   = 20 * time.Second
	evaluateTimeout = 15 * time.Minute
)

// remotePool sends evaluation requests to edge workers: up to concurrency requests in
// flight per URL, retries with backoff on transport errors and 5xx, requests a worker
// refuses as over its limits (413) evaluated by the local pool.
type remotePool struct {
	urls        []*remoteURL
	concurrency int
	version     string
	client      *http.Client
	local       *localPool
	dir         string        // relative file names resolve against it
	backoff     time.Duration // remoteBackoff; tests shorten it
	fallbacks   atomic.Int64  // requests evaluated locally after a 413

	filesMu sync.Mutex
	files   map[string][]byte // file contents read once per run
}

// remoteURL is one --remote URL; dead once it failed a request remoteAttempts times.
type remoteURL struct {
	base string
	dead atomic.Bool

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
	p := &remotePool{concurrency: max(s.RemoteConcurrency, 1), version: s.ModuleVersion, local: local, dir: dir,
		backoff: remoteBackoff, client: &http.Client{Transport: transport}, files: map[string][]byte{}}
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
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusOK || json.Unmarshal(body, &health) != nil || health.ModuleVersion == nil {
		return fmt.Errorf("argument --remote: %s answered %s without a module_version; is it an aisimulate edge worker (make worker)?",
			u.base+healthPath, resp.Status)
	}
	if *health.ModuleVersion != p.version {
		return fmt.Errorf("remote %s runs aisimulate %s; this binary is %s; deploy the same build (make worker)",
			u.base, *health.ModuleVersion, p.version)
	}
	return nil
}

// evaluate evaluates one round's requests on the live URLs and returns the outcomes in
// request order: which URL answered which request does not change them.
func (p *remotePool) evaluate(reqs []json.RawMessage, files []string) ([]json.RawMessage, error) {
	bodies := make([]requestBody, len(reqs))
	for i, r := range reqs {
		b, err := p.body(r, files)
		if err != nil {
			return nil, err
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
		return nil, p.allDead()
	}
	wg.Wait()
	return q.results, q.err
}

// serve sends queued requests to u until the queue is empty, u is dropped or the round failed.
func (p *remotePool) serve(u *remoteURL, q *workQueue, reqs []json.RawMessage, bodies []requestBody) {
	for {
		i, ok := q.next(u)
		if !ok {
			return
		}
		out, over, err := p.send(u, bodies[i])
		switch {
		case isRetryable(err):
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
		}
		q.done(i, out)
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

// post makes one attempt.
func (p *remotePool) post(u *remoteURL, body requestBody) (out []byte, over bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), evaluateTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u.base+evaluatePath, bytes.NewReader(body.data))
	if err != nil {
		return nil, false, err
	}
	req.Header.Set("Content-Type", body.contentType)
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, false, retryable("%s: %v", u.base, unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, false, retryable("%s: reading the response: %v", u.base, err)
	}
	// A proxy's error page may lack the header; an answer of the worker never does.
	if v := resp.Header.Get(VersionHeader); v != p.version && (v != "" || resp.StatusCode == http.StatusOK) {
		return nil, false, fmt.Errorf("remote %s now runs aisimulate %q; this binary is %s; deploy the same build (make worker)", u.base, v, p.version)
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
	return fmt.Errorf("every remote worker failed after %d attempts: %s", remoteAttempts, strings.Join(parts, "; "))
}

// errorText is the "error" of a worker's JSON error body, else the body's start.
func errorText(body []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error != "" {
		return e.Error
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
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
