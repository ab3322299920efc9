package jsapi

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"aisimulate/simcore"
	"aisimulate/simcore/recommend"
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
}

// Recommendation is one search in progress: Next hands out the requests of the next round,
// Observe takes their outcomes aligned with the requests, Result encodes the finished search.
// The rounds are those of simcore.Recommend (optimizer.parallelism proposals at most), so the
// outputs are byte-identical to the CLI's whoever evaluates the requests.
type Recommendation struct {
	search      *recommend.Search
	rec         *spec.Recommendation
	configName  string
	budget      int64
	fixedWallMs *float64
	clock       func() float64
	t0          float64
	pending     int  // requests handed out by Next and not yet observed
	pointsSent  int  // candidates NewPoints has reported
	waiting     bool // a round was handed out and awaits Observe
	finished    bool
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
	in := simcore.RecommendInput{ConfigName: name, ConfigYAML: r.YAML, Sets: r.Sets}
	if len(r.Files) > 0 {
		in.Files = NewMemFS(r.Files)
	}
	search, rec, err := simcore.NewRecommendation(in)
	if err != nil {
		return nil, classifyRecommend(name, err)
	}
	rc = &Recommendation{search: search, rec: rec, configName: name, budget: simcore.WorkBudget(rec.Optimizer),
		fixedWallMs: r.FixedWallTimeMs, clock: r.Clock}
	if rc.clock != nil {
		rc.t0 = rc.clock()
	}
	return rc, nil
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
func (r *Recommendation) Parallelism() int { return r.rec.Optimizer.Parallelism }

// Progress is the trials done, the trial budget and the best feasible score so far (−Inf
// when none), as the CLI's --progress reports them.
func (r *Recommendation) Progress() (done, total int, best float64) {
	return r.search.Done(), r.search.Total(), r.search.Best()
}

// Next returns the evaluation requests of the next round that needs any, as the JSON of
// simcore.EvaluationRequest; rounds made only of cache hits and candidates outside the GPU
// budget are observed on the way. done is true when the search is over (then reqs is empty).
func (r *Recommendation) Next() (reqs []string, done bool, e *Error) {
	if r.waiting {
		return nil, false, failure("aisimulate recommend failed: internal error: a round was requested before the previous one was observed")
	}
	for !r.finished {
		round, err := r.search.Propose(r.rec.Optimizer.Parallelism)
		if err != nil {
			return nil, false, classifyRecommend(r.configName, err)
		}
		if len(round) == 0 {
			r.finished = true
			break
		}
		for _, p := range round {
			if p.Evaluate {
				b, err := json.Marshal(simcore.NewEvaluationRequest(r.configName, p.Candidate.Tree, r.budget))
				if err != nil {
					return nil, false, failure("aisimulate recommend failed: " + err.Error())
				}
				reqs = append(reqs, string(b))
			}
		}
		if len(reqs) > 0 {
			r.pending, r.waiting = len(reqs), true
			return reqs, false, nil
		}
		if err := r.search.Observe(nil); err != nil {
			return nil, false, failure("aisimulate recommend failed: " + err.Error())
		}
	}
	return nil, true, nil
}

// Observe takes the outcomes (EncodeOutcome JSON) of the round Next returned, aligned with
// its requests, whatever order they were computed in.
func (r *Recommendation) Observe(outcomes []string) *Error {
	if !r.waiting {
		return failure("aisimulate recommend failed: internal error: outcomes without a round")
	}
	if len(outcomes) != r.pending {
		return failure(fmt.Sprintf("aisimulate recommend failed: internal error: %d outcomes for %d evaluation requests", len(outcomes), r.pending))
	}
	decoded := make([]recommend.Outcome, len(outcomes))
	for i, b := range outcomes {
		o, err := simcore.DecodeOutcome([]byte(b))
		if err != nil {
			return failure("aisimulate recommend failed: " + err.Error())
		}
		decoded[i] = o
	}
	if err := r.search.Observe(decoded); err != nil {
		return failure("aisimulate recommend failed: " + err.Error())
	}
	r.pending, r.waiting = 0, false
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

// Result encodes the finished search (Next returned done) with the wall time measured since
// StartRecommendation (or the fixed one).
func (r *Recommendation) Result() (out *RecommendResult, e *Error) {
	if !r.finished {
		return nil, failure("aisimulate recommend failed: internal error: the search is not finished")
	}
	wall := 0.0
	if r.clock != nil {
		wall = r.clock() - r.t0
	}
	if r.fixedWallMs != nil {
		wall = *r.fixedWallMs
	}
	res, err := r.search.Result(recommend.Provenance{ModuleVersion: simcore.Version, WallTimeMs: wall, WorkBudgetSteps: r.budget})
	if err != nil {
		return nil, classifyRecommend(r.configName, err)
	}
	view, err := json.Marshal(r.view(res))
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
	v := recview.View{Target: r.rec.Optimization.Target, Objectives: res.Objectives,
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
		m := map[string]*float64{}
		for _, k := range recview.RowMetrics {
			m[k.Key] = finite(recommend.SummaryNumber(c.Summary, k.Key))
		}
		var iv *[2]float64
		if lo, hi, ok := recommend.ObjectiveInterval(c, res.Objectives, 0); ok {
			iv = &[2]float64{lo, hi}
		}
		v.Rows = append(v.Rows, recview.Row{Rank: row.Rank, CandidateID: c.ID, Score: finite(c.Score), Objectives: obj,
			Interval: iv, WithinError: within[c],
			UsedGPUs: c.UsedGPUs, Metrics: m, File: row.File, Config: string(res.Configs[i].Data), Summary: ConfigSummary(c.Tree)})
	}
	for _, c := range r.search.Candidates() {
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
		UsedGPUs: c.UsedGPUs, Rank: rank, Config: string(spec.EmitYAML(c.Tree)), Summary: ConfigSummary(c.Tree)}
	if p.Feasible {
		p.Score = finite(c.Score)
	}
	return p
}

// NewPoints are the chart points of the candidates simulated since the previous call, as
// JSON ([]recview.Point): the Recommend view draws them while the search runs.
func (r *Recommendation) NewPoints() string {
	cands := r.search.Candidates()
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

// ConfigSummary is a candidate's configuration in one line: backend, hardware, mode, each
// role's parallelism (replicas × TP, plus PP/DP/MoE splits other than 1) and the GPUs, e.g.
// "vllm · h200_sxm · aggregated · 2× TP1 · 2 GPUs".
func ConfigSummary(tree map[string]any) string {
	get := func(p string) string {
		if v, ok := spec.GetPath(tree, p); ok {
			return fmt.Sprint(v)
		}
		return ""
	}
	mode := get("engine.mode")
	if mode == "" {
		mode = spec.ModeAggregated
	}
	parts := []string{get("engine.backend"), get("engine.hardware"), mode}
	roles := []string{spec.ModeAggregated}
	if mode != spec.ModeAggregated {
		roles = []string{"prefill", "decode"}
	}
	for _, role := range roles {
		par := func(k string) string { return get(spec.WorkerPath(role, "parallelism."+k)) }
		s := par("replicas") + "× TP" + par("tensor")
		for _, k := range []struct{ key, label string }{{"pipeline", "PP"}, {"attention_data", "DP"}, {"moe_tensor", "MoE-TP"}, {"moe_expert", "EP"}} {
			if x := par(k.key); x != "" && x != "1" {
				s += " " + k.label + x
			}
		}
		if role != spec.ModeAggregated {
			s = role + " " + s
		}
		parts = append(parts, s)
	}
	parts = append(parts, fmt.Sprintf("%d GPUs", spec.UsedGPUs(tree)))
	out := parts[:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
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
