package jsapi

import (
	"encoding/json"
	"fmt"
	"math"

	"aisimulate/simcore"
	"aisimulate/simcore/recommend"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
	"aisimulate/wasm/jsapi/recview"
)

// RecommendRequest starts a recommendation driven round by round from JavaScript (the
// browser's coordinator worker): the search runs here, the candidate evaluations run wherever
// the caller sends the rounds' requests (a pool of Web Workers calling Evaluate).
type RecommendRequest struct {
	// ConfigName names the configuration in error messages and in evaluation requests
	// ("" → "recommendation.yaml"); the CLI uses the --config path.
	ConfigName string
	// YAML is the recommendation configuration text.
	YAML []byte
	// Sets are --set PATH=YAML_VALUE assignments (optimization and optimizer included).
	Sets []string
	// Files are uploaded files (traces, local model directories) by name.
	Files map[string][]byte
	// FixedWallTimeMs replaces the measured wall time of provenance.wall_time_ms (test hook).
	FixedWallTimeMs *float64
	// Clock is a monotonic millisecond clock (performance.now in JS), nil = no clock.
	Clock func() float64
	// Calibrations are calibration profiles in order (recommend --calibration FILE …);
	// StrictCalibration is --strict-calibration (docs/recommend.md, "Calibration").
	Calibrations      []simcore.NamedFile
	StrictCalibration bool
}

// Recommendation is one search in progress, driven from JavaScript: a thin driver of
// simcore.Recommender that carries the requests and outcomes as JSON strings and reports the
// chart points of the candidates simulated since the previous round.
type Recommendation struct {
	rc         *simcore.Recommender
	configName string
	pointsSent int // candidates NewPoints has reported
}

// StartRecommendation validates the configuration and builds the search; a configuration
// error is KindConfig with the CLI's `<file>: <path>: <reason>` message.
func StartRecommendation(r RecommendRequest) (rc *Recommendation, e *Error) {
	name := r.ConfigName
	if name == "" {
		name = "recommendation.yaml"
	}
	defer func() {
		if p := recover(); p != nil {
			rc, e = nil, failure(fmt.Sprintf("aisimulate recommend failed: internal error: %v", p))
		}
	}()
	in := simcore.RecommendInput{ConfigName: name, ConfigYAML: r.YAML, Sets: r.Sets, ModuleVersion: simcore.Version,
		Clock: r.Clock, FixedWallTimeMs: r.FixedWallTimeMs, Calibrations: r.Calibrations, StrictCalibration: r.StrictCalibration}
	if len(r.Files) > 0 {
		in.Files = NewMemFS(r.Files)
	}
	stepper, err := simcore.NewRecommender(in)
	if err != nil {
		return nil, classifyRecommend(name, err)
	}
	return &Recommendation{rc: stepper, configName: name}, nil
}

// classifyRecommend is Classify with recommend's failure prefix.
func classifyRecommend(name string, err error) *Error {
	e := Classify(name, err)
	if e.Kind == KindFailed {
		e.Message = "aisimulate recommend failed: " + err.Error()
		e.Msg = e.Message
	}
	return e
}

func failure(msg string) *Error { return &Error{Kind: KindFailed, Msg: msg, Message: msg} }

// Parallelism is optimizer.parallelism: how many candidates a round holds at most, the cap of
// the caller's evaluation pool.
func (r *Recommendation) Parallelism() int { return r.rc.Parallelism() }

// Progress is the trials done, the trial budget and the best feasible score so far (−Inf
// when none), as the CLI's --progress reports them.
func (r *Recommendation) Progress() (done, total int, best float64) { return r.rc.Progress() }

// Next returns the evaluation requests of the next round that needs any, as the JSON of
// simcore.EvaluationRequest (simcore.Recommender.Next). done is true when the search is over
// (then reqs is empty).
func (r *Recommendation) Next() (reqs []string, done bool, e *Error) {
	round, done, err := r.rc.Next()
	if err != nil {
		return nil, false, classifyRecommend(r.configName, err)
	}
	for _, q := range round {
		b, err := json.Marshal(q)
		if err != nil {
			return nil, false, failure("aisimulate recommend failed: " + err.Error())
		}
		reqs = append(reqs, string(b))
	}
	return reqs, done, nil
}

// Observe takes the outcomes (EncodeOutcome JSON) of the round Next returned, aligned with
// its requests, whatever order they were computed in.
func (r *Recommendation) Observe(outcomes []string) *Error {
	raw := make([][]byte, len(outcomes))
	for i, o := range outcomes {
		raw[i] = []byte(o)
	}
	if err := r.rc.Observe(raw); err != nil {
		return failure("aisimulate recommend failed: " + err.Error())
	}
	return nil
}

// RecommendResult is a finished recommendation: the CLI's output files and what the
// Recommend view draws.
type RecommendResult struct {
	// JSON is recommendation.json, CSV recommendation.csv.
	JSON, CSV string
	// Configs are recommendations/NNNN.yaml in rank order.
	Configs []recommend.File
	// Feasible counts the feasible candidates (0 is the CLI's exit status 1).
	Feasible int
	// View is the JSON of a recview.View.
	View string
}

// Result encodes the finished search (Next returned done), with the wall time measured since
// the first round (or the fixed one).
func (r *Recommendation) Result() (out *RecommendResult, e *Error) {
	res, err := r.rc.Result()
	if err != nil {
		return nil, classifyRecommend(r.configName, err)
	}
	v := r.view(res)
	var doc struct {
		Provenance struct {
			Calibration *recview.Calibration `json:"calibration"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal(res.JSON, &doc); err != nil {
		return nil, failure("aisimulate recommend failed: " + err.Error())
	}
	v.Calibration = doc.Provenance.Calibration
	view, err := json.Marshal(v)
	if err != nil {
		return nil, failure("aisimulate recommend failed: " + err.Error())
	}
	return &RecommendResult{JSON: string(res.JSON), CSV: string(res.CSV), Configs: res.Configs, Feasible: res.Feasible, View: string(view)}, nil
}

func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

func (r *Recommendation) view(res *recommend.Result) recview.View {
	v := recview.View{Target: r.rc.Recommendation().Optimization.Target, Objectives: res.Objectives,
		XKey: chartXKey, YKey: chartYKey, Rows: []recview.Row{}, Points: []recview.Point{}}
	rank := map[*recommend.Candidate]int{}
	within := map[*recommend.Candidate]bool{}
	for _, c := range res.WithinError {
		within[c] = true
	}
	if len(res.Objectives) > 0 {
		v.WithinError = recommend.WithinErrorText(res.Rows, res.WithinError, res.Objectives[0])
	}
	for i, row := range res.Rows {
		c := row.Candidate
		rank[c] = row.Rank
		obj := map[string]*float64{}
		for j, n := range res.Objectives {
			obj[n] = finite(c.Objectives[j])
		}
		m, bands := map[string]*float64{}, map[string]*[2]float64{}
		for _, k := range recview.RowMetrics {
			m[k.Key] = finite(recommend.SummaryNumber(c.Summary, k.Key))
			if lo, hi, ok := report.IntervalOf(c.Intervals, k.Key); ok {
				bands[k.Key] = &[2]float64{lo, hi}
			}
		}
		var iv *[2]float64
		if lo, hi, ok := recommend.ObjectiveInterval(c, res.Objectives, 0); ok {
			iv = &[2]float64{lo, hi}
		}
		vr := recview.Row{Rank: row.Rank, CandidateID: c.ID, Score: finite(c.Score), Objectives: obj,
			Interval: iv, WithinError: within[c], Calibrated: c.Intervals[report.KeyIntervalSource] == report.IntervalSourceCalibration,
			UsedGPUs: c.UsedGPUs, Metrics: m, Bands: bands, File: row.File, Config: string(res.Configs[i].Data), Summary: recommend.DeploymentSummary(c.Tree)}
		if c.Cost != nil {
			vr.CostPerHour, vr.CostPerMTok = finite(c.Cost.USDPerHour), finite(c.Cost.USDPerMTok)
		}
		v.Rows = append(v.Rows, vr)
	}
	for _, c := range r.rc.Search().Candidates() {
		if c.Summary != nil {
			v.Points = append(v.Points, pointOf(c, rank[c]))
		}
	}
	return v
}

// The chart's axes: the objectives of recommend's Pareto view (docs/recommend.md).
const (
	chartXKey = spec.TargetThroughputPerGPU
	chartYKey = spec.TargetThroughputPerUser
)

// pointOf is a simulated candidate's chart point (rank 0: not a row, or not ranked yet).
func pointOf(c *recommend.Candidate, rank int) recview.Point {
	p := recview.Point{CandidateID: c.ID, Status: c.Status, Feasible: c.Status == recommend.StatusFeasible,
		X:        finite(recommend.ObjectiveValue(chartXKey, c.Summary, c.UsedGPUs)),
		Y:        finite(recommend.ObjectiveValue(chartYKey, c.Summary, c.UsedGPUs)),
		UsedGPUs: c.UsedGPUs, Rank: rank, Config: string(spec.EmitYAML(c.Tree)), Summary: recommend.DeploymentSummary(c.Tree)}
	if p.Feasible {
		p.Score = finite(c.Score)
	}
	return p
}

// NewPoints are the chart points of the candidates simulated since the previous call, as
// JSON ([]recview.Point): the Recommend view draws them while the search runs.
func (r *Recommendation) NewPoints() string {
	cands := r.rc.Search().Candidates()
	pts := []recview.Point{}
	for _, c := range cands[r.pointsSent:] {
		if c.Summary != nil {
			pts = append(pts, pointOf(c, 0))
		}
	}
	r.pointsSent = len(cands)
	b, err := json.Marshal(pts)
	if err != nil {
		return "[]"
	}
	return string(b)
}

// EvaluateJSON evaluates one request (the JSON of simcore.EvaluationRequest) and returns the
// outcome's canonical JSON (simcore.EncodeOutcome); a malformed request is a failed outcome,
// so a pool worker always answers.
func EvaluateJSON(requestJSON string, files map[string][]byte) (out string) {
	defer func() {
		if p := recover(); p != nil {
			out = string(simcore.EncodeOutcome(recommend.Outcome{Status: recommend.StatusFailed, Reason: fmt.Sprintf("internal error: %v", p)}))
		}
	}()
	var req simcore.EvaluationRequest
	if err := json.Unmarshal([]byte(requestJSON), &req); err != nil {
		return string(simcore.EncodeOutcome(recommend.Outcome{Status: recommend.StatusFailed, Reason: "malformed evaluation request: " + err.Error()}))
	}
	var fsys *MemFS
	if len(files) > 0 {
		fsys = NewMemFS(files)
	}
	if fsys == nil {
		return string(simcore.Evaluate(req, nil))
	}
	return string(simcore.Evaluate(req, fsys))
}
