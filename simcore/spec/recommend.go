package spec

import (
	"fmt"
	"strings"
)

// Optimization targets of optimization.target (docs/recommend.md, "optimization and optimizer").
const (
	TargetThroughput        = "throughput"
	TargetThroughputPerGPU  = "throughput_per_gpu"
	TargetThroughputPerUser = "throughput_per_user"
	TargetGoodput           = "goodput"
	TargetGoodputPerGPU     = "goodput_per_gpu"
	TargetTTFT              = "ttft"
	TargetE2ELatency        = "e2e_latency"
	TargetMinGPUs           = "min_gpus"
	// TargetCost minimises the cost per million output tokens, TargetGoodCost the cost per
	// million output tokens of requests meeting the SLA, both at optimization.gpu_hour_cost
	// [extension, docs/recommend.md "Hardware and cost"].
	TargetCost     = "cost_per_million_tokens"
	TargetGoodCost = "cost_per_million_good_tokens"
	TargetPareto   = "pareto"
)

// Targets lists every optimization.target, the default first.
var Targets = []string{TargetThroughput, TargetThroughputPerGPU, TargetThroughputPerUser, TargetGoodput,
	TargetGoodputPerGPU, TargetTTFT, TargetE2ELatency, TargetMinGPUs, TargetCost, TargetGoodCost, TargetPareto}

// Optimiser algorithms of optimizer.algorithm.
const (
	AlgorithmBayesian = "bayesian"
	AlgorithmRandom   = "random"
	// AlgorithmScreened prices every point with the steady-state screen first
	// (docs/recommend.md, "screened").
	AlgorithmScreened = "screened"
)

// Optimization is the optimization section after defaults.
type Optimization struct {
	Target   string
	Hardware string // "" when unset or a domain
	// HardwareChoices are the systems of optimization.hardware: {choices: [...]}, searched as
	// engine.hardware (nil when hardware is one id or unset) [extension].
	HardwareChoices []string
	// GPUHourCost is optimization.gpu_hour_cost: USD per GPU-hour by system id (nil when
	// unset) [extension].
	GPUHourCost map[string]float64
	StrictSLA   bool
	// MinGPUs is constraints.min_candidate_gpus (0 = unset); MaxGPUs max_candidate_gpus.
	MinGPUs int
	MaxGPUs int
	// MinGoodputRPS is constraints.min_goodput_rps (nil = unset; min_gpus target only).
	MinGoodputRPS *float64
}

// Optimizer is the optimizer section after defaults.
type Optimizer struct {
	// Algorithm is optimizer.algorithm; "" when not given: the search then screens spaces the
	// surrogate can price of at most 100,000 points and uses bayesian otherwise
	// (simcore.NewRecommender resolves it; docs/recommend.md, "screened").
	Algorithm               string
	MaxTrials               int
	Parallelism             int
	CandidateTimeoutSeconds float64
	Seed                    uint64
}

// ParallelismSpace is how one role's parallelism is searched: the default ladder (built by
// the search from the model and hardware facts), an explicit preset list, or neither (each
// knob is a concrete value or its own domain).
type ParallelismSpace struct {
	Role    string
	Ladder  bool
	Presets []Parallelism
}

// Recommendation is a validated `aisimulate recommend` configuration: the concrete part of
// the tree, the searchable fields, and the optimisation settings.
type Recommendation struct {
	// Tree is the configuration without optimization/optimizer, without domain nodes and
	// without parallelism presets; engine.hardware: auto is already replaced by
	// optimization.hardware. Candidate fills in one value per searchable field.
	Tree map[string]any
	// Domains are the searchable fields in a fixed order (mode and backend first).
	Domains []Domain
	// Parallelism lists, for every role some mode uses, how its parallelism is searched.
	Parallelism []ParallelismSpace
	// Modes are the engine modes candidates may have.
	Modes        []string
	Optimization Optimization
	Optimizer    Optimizer
	// SLA is evaluation.sla (nil when absent).
	SLA *SLA
	// Planner is the planner search when some candidate may enable the planner (nil
	// otherwise).
	Planner         *PlannerSearch
	plannerControls []plannerControl
	// backendVersions is a per-backend engine.backend_version ({vllm: …, sglang: …}),
	// written into each candidate for its backend (nil when the version is one string).
	backendVersions map[string]any
}

// LoadRecommendation parses a recommendation configuration, applies --set assignments (which
// may reach optimization and optimizer), validates every domain and the concrete rest, and
// returns the search description. Every failure is a *Error (exit code 2).
func LoadRecommendation(yamlText []byte, sets []string) (*Recommendation, error) {
	r, err := loadRecommendation(yamlText, sets)
	if err != nil {
		return nil, err
	}
	return r, nil
}

func loadRecommendation(yamlText []byte, sets []string) (*Recommendation, *Error) {
	root, err := parseRoot(yamlText, sets, true)
	if err != nil {
		return nil, err
	}
	d := &decoder{}
	r := &Recommendation{}
	if _, ok := root["optimization"]; !ok {
		return nil, &Error{Path: "optimization", Msg: "required section is missing; add optimization: {target: throughput} (targets: " + strings.Join(Targets, ", ") + ")"}
	}
	r.Optimization = decodeOptimization(d, root["optimization"])
	r.Optimizer = decodeOptimizer(d, root["optimizer"], root)
	if !d.ok() {
		return nil, d.err
	}
	rest := make(map[string]any, len(root))
	for k, v := range root {
		if k != "optimization" && k != "optimizer" {
			rest[k] = deepCopy(v)
		}
	}
	r.Tree = rest
	r.collectDomains(d)
	if !d.ok() {
		return nil, d.err
	}
	r.checkEvaluation(d)
	if !d.ok() {
		return nil, d.err
	}
	r.finishPlanner(d)
	if !d.ok() {
		return nil, d.err
	}
	r.checkTraceFormat(d)
	if !d.ok() {
		return nil, d.err
	}
	if err := r.checkConcrete(); err != nil {
		return nil, err
	}
	return r, nil
}

var optimizationShape = shape{keys: []string{"target", "hardware", "strict_sla", "constraints", "gpu_hour_cost"}}

func decodeOptimization(d *decoder, v any) Optimization {
	o := d.mapping("optimization", v, optimizationShape)
	op := Optimization{Target: o.enum("target", Targets...), MaxGPUs: int(fieldMaxCandidateGPUs.def)}
	if o.set("hardware") {
		if isDomainNode(o.m["hardware"]) {
			op.HardwareChoices = decodeHardwareChoices(d, o.p("hardware"), o.m["hardware"])
		} else {
			op.Hardware = d.asString(o.p("hardware"), o.m["hardware"])
			if op.Hardware == "auto" {
				d.failf(o.p("hardware"), "must be one concrete system id such as h200_sxm, or {choices: [h100_sxm, h200_sxm]}, not 'auto'")
			}
		}
	}
	if o.set("gpu_hour_cost") {
		op.GPUHourCost = decodeGPUHourCost(d, o.p("gpu_hour_cost"), o.m["gpu_hour_cost"])
	}
	op.StrictSLA = o.boolField(&fieldOptimizationStrictSLA)
	co := o.child("constraints", shape{keys: []string{"min_candidate_gpus", "max_candidate_gpus", "min_goodput_rps"}})
	if mn := co.optIntField(&fieldMinCandidateGPUs); mn != nil {
		op.MinGPUs = *mn
	}
	if co.set(fieldMaxCandidateGPUs.key()) {
		op.MaxGPUs = int(co.intField(&fieldMaxCandidateGPUs))
	}
	op.MinGoodputRPS = co.optFloatField(&fieldMinGoodputRPS)
	if !d.ok() {
		return op
	}
	if op.MinGPUs > op.MaxGPUs {
		d.failf(co.p("min_candidate_gpus"), "must be at most max_candidate_gpus (%d), got %d", op.MaxGPUs, op.MinGPUs)
	}
	if op.MinGoodputRPS != nil && op.Target != TargetMinGPUs {
		d.failf(co.p("min_goodput_rps"), "only applies to optimization.target: min_gpus; remove it or change the target")
	}
	return op
}

// decodeHardwareChoices reads optimization.hardware: {choices: [ids]}: non-empty, unique,
// concrete system ids (docs/recommend.md, "Hardware and cost").
func decodeHardwareChoices(d *decoder, path string, v any) []string {
	o := d.mapping(path, v, shape{keys: []string{DomainChoices}})
	raw, isList := o.m[DomainChoices].([]any)
	if !d.ok() || !isList || len(raw) == 0 {
		if d.ok() {
			d.failf(o.p(DomainChoices), "must be a non-empty list of system ids such as [h100_sxm, h200_sxm]")
		}
		return nil
	}
	var ids []string
	for i, x := range raw {
		p := fmt.Sprintf("%s[%d]", o.p(DomainChoices), i)
		id := d.asString(p, x)
		switch {
		case !d.ok():
			return nil
		case id == "" || id == "auto":
			d.failf(p, "must be a concrete system id such as h200_sxm")
		case contains(ids, id):
			d.failf(p, "%s is listed twice; list each system once", id)
		}
		ids = append(ids, id)
	}
	return ids
}

// decodeGPUHourCost reads optimization.gpu_hour_cost: a mapping of system id to USD per
// GPU-hour, each > 0.
func decodeGPUHourCost(d *decoder, path string, v any) map[string]float64 {
	m, isMap := v.(map[string]any)
	if !isMap || len(m) == 0 {
		d.failf(path, "must be a mapping of system id to USD per GPU-hour, e.g. {h100_sxm: 2.9, h200_sxm: 3.6}")
		return nil
	}
	out := map[string]float64{}
	for _, k := range sortedKeys(m) {
		out[k] = d.asFloat(join(path, k), m[k], gt(0))
	}
	return out
}

var optimizerShape = shape{keys: []string{"algorithm", "max_trials", "parallelism", "candidate_timeout_seconds", "seed"}}

func decodeOptimizer(d *decoder, v any, root map[string]any) Optimizer {
	// An absent or null section is an empty one: every field its table default.
	o := &object{d: d, path: "optimizer", m: map[string]any{}}
	if _, ok := root["optimizer"]; ok && v != nil {
		o = d.mapping("optimizer", v, optimizerShape)
	}
	return Optimizer{
		Algorithm:               o.optEnumField(&fieldOptimizerAlgorithm),
		MaxTrials:               int(o.intField(&fieldOptimizerMaxTrials)),
		Parallelism:             int(o.intField(&fieldOptimizerParallelism)),
		CandidateTimeoutSeconds: o.floatField(&fieldOptimizerCandidateTimeout),
		Seed:                    uint64(o.intField(&fieldOptimizerSeed)),
	}
}

// checkEvaluation applies the recommend rules on evaluation.sla (docs/recommend.md, "optimization and optimizer").
func (r *Recommendation) checkEvaluation(d *decoder) {
	ev := decodeEvaluation(d, r.Tree)
	if !d.ok() {
		return
	}
	r.SLA = ev.SLA
	op := r.Optimization
	complete := ev.SLA != nil && (ev.SLA.E2EMs != nil || ev.SLA.TTFTMs != nil && ev.SLA.ITLMs != nil)
	if (op.Target == TargetCost || op.Target == TargetGoodCost) && op.GPUHourCost == nil {
		d.failf("optimization.gpu_hour_cost", "optimization.target %s needs GPU prices: add optimization: {gpu_hour_cost: {<system id>: <USD per GPU-hour>}}", op.Target)
		return
	}
	if (op.Target == TargetGoodput || op.Target == TargetGoodputPerGPU || op.Target == TargetGoodCost || op.MinGoodputRPS != nil) && !complete {
		d.failf("evaluation.sla", "optimization.target %s needs a complete SLA: add evaluation: {sla: {ttft_ms: <ms>, itl_ms: <ms>}} or {sla: {e2e_ms: <ms>}}", op.Target)
		return
	}
	if op.StrictSLA && ev.SLA == nil {
		d.failf("optimization.strict_sla", "needs at least one bound in evaluation.sla (ttft_ms, itl_ms or e2e_ms)")
	}
}

// Objectives are the objectives of the target: the target itself, or for pareto
// throughput_per_gpu and throughput_per_user, plus goodput_per_gpu when the SLA measures
// goodput (docs/recommend.md, "Scoring and ranking").
func (r *Recommendation) Objectives() []string {
	if r.Optimization.Target != TargetPareto {
		return []string{r.Optimization.Target}
	}
	names := []string{TargetThroughputPerGPU, TargetThroughputPerUser}
	if r.HasCompleteSLA() {
		names = append(names, TargetGoodputPerGPU)
	}
	return names
}

// HasCompleteSLA reports whether goodput can be measured (e2e alone, or ttft with itl).
func (r *Recommendation) HasCompleteSLA() bool {
	s := r.SLA
	return s != nil && (s.E2EMs != nil || s.TTFTMs != nil && s.ITLMs != nil)
}

// checkTraceFormat applies the trace-format rules that no candidate of the search can meet
// when the search allows what the format forbids (docs/recommend.md, "Checks before the
// search"): an aggregated-only format (spec.TraceFormats) with disaggregated in the mode
// domain, and a format that forbids the planner with a planner some candidate may enable.
// They are configuration errors, as the reference makes them, instead of trials wasted as
// unsupported candidates.
func (r *Recommendation) checkTraceFormat(d *decoder) {
	if t, _ := getPath(r.Tree, "traffic.source.type"); t != SourceTrace {
		return
	}
	name := FormatMooncake
	if v, ok := getPath(r.Tree, "traffic.source.format"); ok {
		name, _ = v.(string)
	}
	f, _ := LookupTraceFormat(name)
	if f.AggregatedOnly && contains(r.Modes, ModeDisaggregated) {
		d.failf("engine.mode", "trace format '%s' requires engine.mode: aggregated, but the search includes disaggregated candidates (engine.mode defaults to both in recommend); set engine.mode: aggregated", name)
		return
	}
	if f.Planner == PlannerOff && r.Planner != nil {
		d.failf("planner.policy", "%s requires planner.policy=disabled, but the search may enable the planner (planner.policy defaults to both in recommend); set planner.policy: disabled or remove the planner section", name)
	}
}

// CheckLoadedTrace is CheckLoadedTrace for a whole search: graph is true when the trace,
// read once before the search, is an agentic dependency graph, which a format with
// PlannerOffForGraphs cannot replay under a planner some candidate may enable.
func (r *Recommendation) CheckLoadedTrace(graph bool) error {
	name, _ := getPath(r.Tree, "traffic.source.format")
	s, _ := name.(string)
	f, _ := LookupTraceFormat(s)
	if graph && f.Planner == PlannerOffForGraphs && r.Planner != nil {
		return &Error{Path: "planner.policy", Msg: "trace format \"" + f.Name + "\" with agent_context requires planner.policy=disabled, but the search may enable the planner; set planner.policy: disabled"}
	}
	return nil
}
