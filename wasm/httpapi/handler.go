// Package httpapi is the simulator's HTTP API, as the edge target serves it (cmd/worker, a
// Cloudflare Worker in Go built by `make worker` and run locally under workerd by
// `make serve-edge`; `go run ./cmd/worker` serves the same API natively for debugging).
// API (docs/web.md):
//
//	GET  /v1/health                        → {"status":"ok","api_version":1,"module_version":…,"limits":{…}}
//	POST /v1/predict[?capture_per_request=1][&artifacts=1][&set=PATH=VALUE…][&detail=SECTIONS][&strict_calibration=1]
//	     body: YAML, or multipart/form-data with a "config" part plus trace files and
//	     "calibration" profiles              → prediction.json (or multipart/mixed with
//	                                           prediction.json and requests.jsonl)
//	POST /v1/predict?evaluate=1             body: a simcore.EvaluationRequest as JSON, or multipart/form-data
//	     with a "request" part plus trace files → the candidate's outcome (simcore.Evaluate's bytes)
//	POST /v1/recommend[?set=PATH=VALUE…][&outputs=all][&artifacts=1[&artifacts_top=N]][&strict_calibration=1]
//	     body: recommendation YAML, or multipart/form-data with a "config" part plus trace files
//	     and "calibration" profiles → recommendation.json (or multipart/mixed with
//	                                           recommendation.json, .csv and recommendations/NNNN.yaml
//	                                           with outputs=all, deploy/NNNN/ with artifacts=1)
//
// Errors are JSON {"error": message, "path": dotted config path or ""}: 400 bad input, 405
// wrong method, 413 over a limit (with "limit": "body", "work", "memory" or "requests"), 500 simulator
// failure. Responses carry permissive CORS headers and X-Aisimulate-Version (simcore.Version).
// The worker makes no outbound requests.
package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/spec"
	jsapi "aisimulate/wasm/jsapi"
)

// Limits of the edge API.
const (
	// MaxBodyBytes bounds the request body (YAML plus trace files).
	MaxBodyBytes = 16 << 20
	// MaxConfigBytes bounds the YAML text (the limit of every target, spec.MaxConfigBytes, which spec.LoadConfig enforces).
	MaxConfigBytes = spec.MaxConfigBytes
	// MaxRequests bounds the simulated requests: synthetic stop counts (sessions × turns for
	// session sources) and trace lines.
	MaxRequests = 200000
	// MaxFiles bounds the number of uploaded files.
	MaxFiles = 16
	// MaxProgressReports bounds the work of one call: simcore reports progress every simcore.ProgressSteps
	// event-loop steps, so this caps a run at about 6.5 million steps (about 15 s of CPU under
	// workerd on the development machine, inside the 30 s platform limit of wrangler.toml).
	// Counting steps, not time, keeps the limit deterministic; Workers freeze the clock while
	// code runs anyway.
	MaxProgressReports = 100 * 65536 / simcore.ProgressSteps
	// MaxMemoryBytes is the memory a call may need by simcore's estimate made before it runs
	// (KV block state, per-request state, captured records held as text): 96 MiB of the
	// 128 MB a Workers isolate may use, the rest for the module, the body and the response.
	MaxMemoryBytes = 96 << 20
	// BodyTimeout bounds the wait for the request body: a client that stalls gets 408.
	BodyTimeout = 30 * time.Second
)

// Server is the HTTP API; Env reads deployment variables (simcore.EnvFixedWallTimeMs).
type Server struct {
	// Env returns an environment/binding value ("" when unset).
	Env func(string) string
	// MaxProgress overrides MaxProgressReports when positive (tests).
	MaxProgress int
	// BodyWait overrides BodyTimeout when positive (tests).
	BodyWait time.Duration
}

// apiError is every error body. Limit names the limit of a 413: "body" (MaxBodyBytes,
// MaxConfigBytes), "work" (the event-loop steps of one call), "memory" (MaxMemoryBytes) or
// "requests" (MaxRequests), so a client can tell a call this service will not run from a bad
// one (docs/web.md, "Limits").
type apiError struct {
	Error string `json:"error"`
	Path  string `json:"path"`
	Limit string `json:"limit,omitempty"`
}

// Limit names of a 413 body (apiError.Limit). "memory" is simcore.LimitMemory: /v1/predict
// reports a run over MaxMemoryBytes as a configuration error (400) like every target, while
// an evaluation or a recommendation answers 413 "memory" (simcore.EvaluatorLimitError).
const (
	limitBody     = "body"
	limitWork     = simcore.LimitWork
	limitRequests = "requests"
)

// configFits answers 413 "body" for configuration text over MaxConfigBytes.
func configFits(w http.ResponseWriter, text []byte) bool {
	if len(text) <= MaxConfigBytes {
		return true
	}
	tooLarge(w, limitBody, "", fmt.Sprintf("configuration exceeds the %d-byte parsing limit", MaxConfigBytes))
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

func fail(w http.ResponseWriter, status int, path, msg string) {
	writeJSON(w, status, apiError{Error: msg, Path: path})
}

// tooLarge answers 413 naming the limit passed.
func tooLarge(w http.ResponseWriter, limit, path, msg string) {
	writeJSON(w, http.StatusRequestEntityTooLarge, apiError{Error: msg, Path: path, Limit: limit})
}

// VersionHeader carries simcore.Version on every response, so a client (`aisimulate
// recommend --remote`) can check that the worker runs the same core as itself.
const VersionHeader = "X-Aisimulate-Version"

func cors(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Content-Type")
	h.Set("Access-Control-Expose-Headers", "Content-Type, Content-Disposition, "+VersionHeader)
	h.Set("Access-Control-Max-Age", "86400")
	h.Set(VersionHeader, simcore.Version)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	cors(w.Header())
	defer func() {
		// Every failure is a JSON body, a crash of the handler included.
		if p := recover(); p != nil {
			fail(w, http.StatusInternalServerError, "", fmt.Sprintf("aisimulate predict failed: internal error: %v", p))
		}
	}()
	if r.Method == http.MethodOptions {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	switch r.URL.Path {
	case "/v1/health":
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			fail(w, http.StatusMethodNotAllowed, "", "use GET /v1/health")
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "api_version": 1, "module_version": simcore.Version, "limits": map[string]int{
			"max_body_bytes": MaxBodyBytes, "max_config_bytes": MaxConfigBytes, "max_requests": MaxRequests, "max_files": MaxFiles,
			"max_event_loop_steps": MaxProgressReports * simcore.ProgressSteps, "max_memory_bytes": MaxMemoryBytes,
			"search_steps_per_trial": SearchStepsPerTrial, "screen_steps_per_point": ScreenStepsPerPoint}})
	case "/v1/predict":
		if r.Method != http.MethodPost {
			fail(w, http.StatusMethodNotAllowed, "", "use POST /v1/predict with a YAML body")
			return
		}
		if truthy(r.URL.Query().Get("evaluate")) {
			s.evaluate(w, r)
			return
		}
		s.predict(w, r)
	case "/v1/recommend":
		if r.Method != http.MethodPost {
			fail(w, http.StatusMethodNotAllowed, "", "use POST /v1/recommend with a recommendation YAML body")
			return
		}
		s.recommend(w, r)
	default:
		fail(w, http.StatusNotFound, "", "not found: use POST /v1/predict, POST /v1/recommend or GET /v1/health")
	}
}

func truthy(v string) bool {
	switch strings.ToLower(v) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}

// upload is a request body: the main text (the YAML, or the evaluation request JSON) and,
// for multipart/form-data, the parts named CalibrationPart as calibration profiles (in
// order, named by their filename) and the other parts as files by name.
type upload struct {
	main         []byte
	files        map[string][]byte
	calibrations []simcore.NamedFile
}

// CalibrationPart is the multipart part name of a calibration profile (repeatable; its
// filename names the profile in messages and in prediction.json's calibration section), on
// /v1/predict, /v1/predict?evaluate=1 and /v1/recommend (docs/web.md, "Calibration").
const CalibrationPart = "calibration"

// readUpload reads the body within the body limits; mainPart names the multipart part that
// holds the main text. On failure it has answered and returns false.
func (s *Server) readUpload(w http.ResponseWriter, r *http.Request, mainPart, mainWhat string) (upload, bool) {
	wait := BodyTimeout
	if s.BodyWait > 0 {
		wait = s.BodyWait
	}
	body, err := readBody(w, r, wait)
	if errors.Is(err, errBodyTimeout) {
		fail(w, http.StatusRequestTimeout, "", err.Error())
		return upload{}, false
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			tooLarge(w, limitBody, "", fmt.Sprintf("request body exceeds %d bytes", MaxBodyBytes))
			return upload{}, false
		}
		fail(w, http.StatusBadRequest, "", "could not read request body: "+err.Error())
		return upload{}, false
	}
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		return upload{main: body}, true
	}
	up, perr := parseMultipart(body, params["boundary"], mainPart, mainWhat)
	if perr != nil {
		fail(w, http.StatusBadRequest, "", perr.Error())
		return upload{}, false
	}
	return up, true
}

// maxProgress is the work limit of one call in progress reports (MaxProgressReports).
func (s *Server) maxProgress() int {
	if s.MaxProgress > 0 {
		return s.MaxProgress
	}
	return MaxProgressReports
}

func (s *Server) predict(w http.ResponseWriter, r *http.Request) {
	up, ok := s.readUpload(w, r, "config", "the YAML")
	if !ok {
		return
	}
	q := r.URL.Query()
	req := jsapi.Request{ConfigName: "prediction.yaml", CapturePerRequest: truthy(q.Get("capture_per_request")), Sets: q["set"],
		Detail: strings.Join(q["detail"], ",")}
	if files := up.files; files != nil {
		if v, ok := files["capture_per_request"]; ok {
			req.CapturePerRequest = req.CapturePerRequest || truthy(strings.TrimSpace(string(v)))
			delete(files, "capture_per_request")
		}
		req.Files = files
	}
	req.YAML = up.main
	if len(req.YAML) == 0 {
		fail(w, http.StatusBadRequest, "", "empty configuration: send the YAML as the body or as a multipart part named config")
		return
	}
	if !configFits(w, req.YAML) {
		return
	}
	req.MemoryBudget, req.MaxRequests = MaxMemoryBytes, MaxRequests
	req.Calibrations, req.StrictCalibration = up.calibrations, strictCalibration(r)
	wall, err := s.fixedWallTimeMs()
	if err != nil {
		fail(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	req.FixedWallTimeMs = &wall
	budget := s.maxProgress()
	overWork := false
	reports := 0
	req.Check = func() error {
		reports++
		if reports > budget {
			overWork = true
			return fmt.Errorf("the simulation exceeded the edge API's work budget (%d event-loop steps); use the CLI for runs this long", budget*simcore.ProgressSteps)
		}
		return nil
	}
	res := jsapi.Run(req)
	if res.Err != nil {
		switch res.Err.Kind {
		case jsapi.KindConfig:
			fail(w, http.StatusBadRequest, res.Err.Path, res.Err.Message)
		case jsapi.KindLimit:
			limit := limitRequests
			if overWork {
				limit = limitWork
			}
			tooLarge(w, limit, res.Err.Path, res.Err.Message)
		default:
			fail(w, http.StatusInternalServerError, "", res.Err.Message)
		}
		return
	}
	parts := []outputPart{{"prediction.json", "application/json", res.PredictionJSON}}
	if req.CapturePerRequest {
		parts = append(parts, outputPart{"requests.jsonl", "application/x-ndjson", res.RequestsJSONL})
	}
	artifacts := truthy(q.Get("artifacts"))
	if artifacts {
		more, ok := deploymentParts(w, jsapi.PredictionDeployment(req.ConfigName, req.YAML, req.Sets, []byte(res.PredictionJSON)))
		if !ok {
			return
		}
		parts = append(parts, more...)
	}
	writeParts(w, parts, req.CapturePerRequest || artifacts)
}

// errBodyTimeout is the error of a body that did not arrive within BodyTimeout.
var errBodyTimeout = errors.New("the request body did not arrive in time; send it whole")

// readBody reads at most MaxBodyBytes of the body, giving up after wait.
func readBody(w http.ResponseWriter, r *http.Request, wait time.Duration) ([]byte, error) {
	type result struct {
		body []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
		done <- result{b, err}
	}()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.body, res.err
	case <-timer.C:
		r.Body.Close()
		return nil, errBodyTimeout
	}
}

// parseMultipart reads the part named mainPart (field or file; mainWhat says what it holds,
// for the error), the CalibrationPart parts as profiles named by their filename (or
// "calibration.json"), and every other part as a file named by its filename (or field
// name). Profiles count toward MaxFiles.
func parseMultipart(body []byte, boundary, mainPart, mainWhat string) (upload, error) {
	if boundary == "" {
		return upload{}, errors.New("multipart body without boundary")
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	up := upload{files: map[string][]byte{}}
	for {
		p, perr := mr.NextPart()
		if perr == io.EOF {
			break
		}
		if perr != nil {
			return upload{}, fmt.Errorf("malformed multipart body: %v", perr)
		}
		data, rerr := io.ReadAll(p)
		if rerr != nil {
			return upload{}, fmt.Errorf("malformed multipart body: %v", rerr)
		}
		name := p.FormName()
		if name == mainPart {
			up.main = data
			continue
		}
		fn := partFileName(p)
		if name == CalibrationPart {
			if fn == "" {
				fn = "calibration.json"
			}
			up.calibrations = append(up.calibrations, simcore.NamedFile{Name: fn, Data: data})
		} else {
			if fn != "" {
				name = fn
			}
			if name == "" {
				return upload{}, errors.New("multipart part without a name")
			}
			if _, dup := up.files[name]; dup {
				return upload{}, fmt.Errorf("two multipart parts name the file %q; send each file once", name)
			}
			up.files[name] = data
		}
		if len(up.files)+len(up.calibrations) > MaxFiles {
			return upload{}, fmt.Errorf("at most %d files per request", MaxFiles)
		}
	}
	if up.main == nil {
		return upload{}, fmt.Errorf("multipart body has no %q part with %s", mainPart, mainWhat)
	}
	return up, nil
}

// strictCalibration reads the strict_calibration query parameter (--strict-calibration).
func strictCalibration(r *http.Request) bool {
	return truthy(r.URL.Query().Get("strict_calibration"))
}

// partFileName is the filename parameter of a part exactly as sent: the path the
// configuration names (traces/a.jsonl). Part.FileName would keep only its last element, so
// two traces of one name in different folders would become one file.
func partFileName(p *multipart.Part) string {
	_, params, err := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
	if err != nil {
		return ""
	}
	return params["filename"]
}

// fixedWallTimeMs is the wall time the API reports: the binding's value, else 0. The API
// never measures it: Workers freeze the clock while code runs, so a measurement would be 0
// or the time of whatever I/O happened to interleave (docs/web.md, "Limits"). A binding that
// is not a finite non-negative number is a deployment error, not silently ignored.
func (s *Server) fixedWallTimeMs() (float64, error) {
	v := ""
	if s.Env != nil {
		v = s.Env(simcore.EnvFixedWallTimeMs)
	}
	if v == "" {
		return 0, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, fmt.Errorf("the deployment binding %s is %q: set it to a finite number of milliseconds >= 0 (such as 1.0) or remove it", simcore.EnvFixedWallTimeMs, v)
	}
	return f, nil
}
