package httpapi

import (
	"errors"
	"fmt"
	"io/fs"
	"net/http"

	"aisimulate/simcore"
	"aisimulate/simcore/spec"
	"aisimulate/wasm/jsapi"
)

// recommendName names the configuration in error messages and in the evaluation requests of
// /v1/recommend (the CLI uses its --config path).
const recommendName = "recommendation.yaml"

// recommend answers POST /v1/recommend[?set=PATH=VALUE…][&outputs=all][&artifacts=1
// [&artifacts_top=N]]: a whole recommendation (simcore.Recommend) of a YAML body (or a
// multipart "config" part plus trace files and "calibration" profiles), its candidates
// evaluated here one after the other within the work limit of one call summed over all of
// them (docs/web.md, "Recommend"). 200 with recommendation.json, or with outputs=all or
// artifacts=1 a multipart/mixed body (writeParts) of recommendation.json, with outputs=all
// recommendation.csv and recommendations/NNNN.yaml, with artifacts=1 deploy/NNNN/ of the
// first N recommendations (recommend --artifacts [--artifacts-top N]); also 200 when nothing
// is feasible (the CLI's exit 1), the counts say so.
func (s *Server) recommend(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	all := false
	switch q.Get("outputs") {
	case "", "json":
	case "all":
		all = true
	default:
		fail(w, http.StatusBadRequest, "", fmt.Sprintf("outputs=%q: use outputs=all (every file) or omit it (recommendation.json)", q.Get("outputs")))
		return
	}
	artifacts := truthy(q.Get("artifacts"))
	top, err := artifactsTop(q.Get("artifacts_top"))
	if err == nil && q.Has("artifacts_top") && !artifacts {
		err = errors.New("artifacts_top without artifacts=1 would do nothing: add artifacts=1 (the deployments of the first N recommendations) or drop artifacts_top")
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "", err.Error())
		return
	}
	up, ok := s.readUpload(w, r, "config", "the YAML")
	if !ok {
		return
	}
	if len(up.main) == 0 {
		fail(w, http.StatusBadRequest, "", "empty configuration: send the recommendation YAML as the body or as a multipart part named config")
		return
	}
	if !configFits(w, up.main) {
		return
	}
	wall, err := s.fixedWallTimeMs()
	if err != nil {
		fail(w, http.StatusInternalServerError, "", err.Error())
		return
	}
	files := uploadedFS(up.files)
	meter := newWorkMeter(s.maxSteps(), files, s.evaluatorLimits)
	in := simcore.RecommendInput{
		ConfigName:        recommendName,
		ConfigYAML:        up.main,
		Sets:              q["set"],
		Files:             files,
		ModuleVersion:     simcore.Version,
		FixedWallTimeMs:   &wall,
		Calibrations:      up.calibrations,
		StrictCalibration: strictCalibration(r),
		Admit:             meter.admit,
	}
	rc, err := simcore.NewRecommender(in)
	if err != nil {
		s.failRecommend(w, err)
		return
	}
	res, err := rc.Run(meter.evaluate, nil)
	if err != nil {
		s.failRecommend(w, err)
		return
	}
	parts := []outputPart{{"recommendation.json", "application/json", string(res.JSON)}}
	if all {
		parts = append(parts, outputPart{"recommendation.csv", "text/csv", string(res.CSV)})
		for _, f := range res.Configs {
			parts = append(parts, outputPart{f.Name, "application/yaml", string(f.Data)})
		}
	}
	if artifacts {
		more, ok := deploymentParts(w, jsapi.RecommendationDeployment(res.JSON, top))
		if !ok {
			return
		}
		parts = append(parts, more...)
	}
	writeParts(w, parts, all || artifacts)
}

// SearchStepsPerTrial is what one trial of the search itself (proposal, model refit,
// scoring; a cache hit too) is charged against the work limit, in event-loop steps. Measured
// under workerd: examples/recommend-small.yaml with max_trials 320 spends about 16 ms per
// trial outside its candidates' simulations, the time of about 7,000 steps at the rate
// MaxProgressReports assumes (6.5 million steps in about 15 s), rounded up to whole progress
// chunks (docs/web.md, "Recommend").
const SearchStepsPerTrial = 2 * simcore.ProgressSteps

// ScreenStepsPerPoint is what the screened optimiser's screen is charged against the work
// limit for every point it prices, in event-loop steps. Measured under workerd: the screen
// of examples/recommend-seed.yaml prices its 11,772 points in about 1.4 s, 0.12 ms a point,
// the time of about 52 steps at the rate MaxProgressReports assumes (docs/web.md,
// "Recommend"); 64 leaves room for spaces whose points share fewer role lowerings.
const ScreenStepsPerPoint = 64

// workMeter evaluates a recommendation's candidates within one call's work limit: the
// screen's ScreenStepsPerPoint for every point it prices and every trial's
// SearchStepsPerTrial (all max_trials of them are run), both charged up front, plus the
// steps every evaluation is charged (simcore.EvaluateWithin) may not exceed limit. The count
// is of work, not time, so the same call always succeeds or always fails.
type workMeter struct {
	limit, used  int64
	trials       int
	screenPoints int
	evaluated    int
	files        fs.FS
	limits       func(maxSteps int64) simcore.EvaluatorLimits
}

// newWorkMeter is a meter of limit steps; admit charges the search up front.
func newWorkMeter(limit int64, files fs.FS, limits func(int64) simcore.EvaluatorLimits) *workMeter {
	return &workMeter{limit: limit, files: files, limits: limits}
}

// admit is simcore.RecommendInput.Admit: it charges the screen's points and the trials of the
// search before the screen runs, and refuses a recommendation whose charge alone is over the
// limit — before anything runs, so a large space is never screened unmetered.
func (m *workMeter) admit(rec *spec.Recommendation, screenPoints int) error {
	m.trials, m.screenPoints = rec.Optimizer.MaxTrials, screenPoints
	search := int64(m.trials) * SearchStepsPerTrial
	m.used = search + int64(screenPoints)*ScreenStepsPerPoint
	if m.used <= m.limit {
		return nil
	}
	if screenPoints > 0 && search <= m.limit {
		return &simcore.EvaluatorLimitError{Limit: simcore.LimitWork, Path: "optimizer.algorithm", Msg: fmt.Sprintf(
			"the screen of the space's %d points (%d steps each) and the search's %d trials × %d steps exceed the %d event-loop steps this service runs per call; narrow the space, set optimizer.algorithm to bayesian (no screen) or lower optimizer.max_trials, or run it with the CLI: `aisimulate recommend` (with --remote URL it sends the candidates to this service one at a time)",
			screenPoints, ScreenStepsPerPoint, m.trials, SearchStepsPerTrial, m.limit)}
	}
	return m.overWork()
}

// evaluate evaluates a round of simcore.Recommender.Run: the requests one after the other.
func (m *workMeter) evaluate(reqs []simcore.EvaluationRequest) ([][]byte, error) {
	out := make([][]byte, len(reqs))
	for i, req := range reqs {
		room := m.limit - m.used
		if room <= 0 {
			return nil, m.overWork()
		}
		b, steps, err := simcore.EvaluateWithin(req, m.files, m.limits(room))
		m.used += steps
		var le *simcore.EvaluatorLimitError
		if errors.As(err, &le) {
			if le.Limit == simcore.LimitWork {
				return nil, m.overWork()
			}
			return nil, &simcore.EvaluatorLimitError{Limit: le.Limit, Path: le.Path, Msg: fmt.Sprintf(
				"candidate %d: %s, a limit of this service; narrow the search (or the workload) so candidates this large are not proposed, or run the recommendation with the CLI (`aisimulate recommend`)", m.evaluated+1, le.Msg)}
		}
		if err != nil {
			return nil, err
		}
		m.evaluated++
		out[i] = b
	}
	return out, nil
}

// overWork is the 413 of a recommendation that needs more work than one call may do.
func (m *workMeter) overWork() error {
	return &simcore.EvaluatorLimitError{Limit: simcore.LimitWork, Path: "optimizer.max_trials", Msg: fmt.Sprintf(
		"the recommendation needs more than the %d event-loop steps this service runs per call (%d trials × %d steps of search, %d points × %d steps of screen, plus the simulation of every candidate; %d candidates were evaluated within it); lower optimizer.max_trials or the workload (traffic.stop), or run it with the CLI: `aisimulate recommend` (with --remote URL it sends the candidates to this service one at a time)",
		m.limit, m.trials, SearchStepsPerTrial, m.screenPoints, ScreenStepsPerPoint, m.evaluated)}
}

// failRecommend answers a failed recommendation: a limit of this service 413, a configuration
// error or a bad calibration profile 400 at its field with the CLI's message (jsapi.Classify:
// `recommendation.yaml: <path>: …`, `<profile>: <field>: …`), anything else 500.
func (s *Server) failRecommend(w http.ResponseWriter, err error) {
	var le *simcore.EvaluatorLimitError
	if errors.As(err, &le) {
		tooLarge(w, le.Limit, le.Path, le.Msg)
		return
	}
	if e := jsapi.Classify(recommendName, err); e.Kind == jsapi.KindConfig {
		fail(w, http.StatusBadRequest, e.Path, e.Message)
		return
	}
	fail(w, http.StatusInternalServerError, "", "aisimulate recommend failed: "+err.Error())
}
