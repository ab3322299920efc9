package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"

	"aisimulate/simcore"
	jsapi "aisimulate/wasm/jsapi"
)

// evaluate answers POST /v1/predict?evaluate=1: one recommend candidate (a
// simcore.EvaluationRequest, as JSON or as the multipart part "request" beside trace files
// and "calibration" profiles; the request's own `calibrations` field carries them too)
// evaluated exactly as simcore.Evaluate does, its outcome bytes answered with 200 whatever
// the outcome. Only this worker's own limits are 413: a memory estimate over MaxMemoryBytes,
// or a run that would pass the worker's step limit before the candidate's budget_steps ran
// out (docs/web.md, "Evaluate").
func (s *Server) evaluate(w http.ResponseWriter, r *http.Request) {
	up, ok := s.readUpload(w, r, "request", "the evaluation request JSON")
	if !ok {
		return
	}
	req, err := decodeEvaluationRequest(up.main)
	if err != nil {
		fail(w, http.StatusBadRequest, "", err.Error())
		return
	}
	// Profiles sent as "calibration" parts follow those of the request's own field.
	req.Calibrations = append(req.Calibrations, up.calibrations...)
	outcome, _, err := simcore.EvaluateWithin(req, uploadedFS(up.files), s.evaluatorLimits(s.maxSteps()))
	if err != nil {
		s.failEvaluatorLimit(w, err, "evaluate this candidate locally (`aisimulate recommend` does when it gets this answer)")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(outcome)
}

// maxSteps is the work limit of one call in event-loop steps.
func (s *Server) maxSteps() int64 {
	return int64(s.maxProgress()) * simcore.ProgressSteps
}

// evaluatorLimits are the worker's limits on evaluations charged at most maxSteps steps.
func (s *Server) evaluatorLimits(maxSteps int64) simcore.EvaluatorLimits {
	return simcore.EvaluatorLimits{MaxSteps: maxSteps, MemoryBudget: MaxMemoryBytes}
}

// failEvaluatorLimit answers a *simcore.EvaluatorLimitError with 413 naming the limit and
// adding advice; any other error is a failure of the worker (500).
func (s *Server) failEvaluatorLimit(w http.ResponseWriter, err error, advice string) {
	var le *simcore.EvaluatorLimitError
	if !errors.As(err, &le) {
		fail(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	tooLarge(w, le.Limit, le.Path, fmt.Sprintf("%s, a limit of this service; %s", le.Msg, advice))
}

// decodeEvaluationRequest reads the request JSON strictly: one object of the known fields
// with a positive budget (simcore.WorkBudget of a valid optimizer section always is).
func decodeEvaluationRequest(b []byte) (simcore.EvaluationRequest, error) {
	var req simcore.EvaluationRequest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, fmt.Errorf("malformed evaluation request: %v; send {\"config_name\": …, \"config_yaml\": …, \"budget_steps\": …}", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, errors.New("malformed evaluation request: data after the JSON object; send one object")
	}
	if req.BudgetSteps <= 0 {
		return req, fmt.Errorf("malformed evaluation request: budget_steps is %d; it must be a positive number of event-loop steps", req.BudgetSteps)
	}
	return req, nil
}

// uploadedFS serves uploaded files by name (nil when there are none), as predict does.
func uploadedFS(files map[string][]byte) fs.FS {
	if len(files) == 0 {
		return nil
	}
	return jsapi.NewMemFS(files)
}
