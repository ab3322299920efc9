package spec

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Optimization targets of optimization.target (aisimulate-cli.md §2.9).
const (
	TargetThroughput        = "throughput"
	TargetThroughputPerGPU  = "throughput_per_gpu"
	TargetThroughputPerUser = "throughput_per_user"
	TargetGoodput           = "goodput"
	TargetGoodputPerGPU     = "goodput_per_gpu"
	TargetTTFT              = "ttft"
	TargetE2ELatency        = "e2e_latency"
	TargetMinGPUs           = "min_gpus"
	TargetPareto            = "pareto"
)

// Targets lists every optimization.target, the default first.
var Targets = []string{TargetThroughput, TargetThroughputPerGPU, TargetThroughputPerUser, TargetGoodput,
	TargetGoodputPerGPU, TargetTTFT, TargetE2ELatency, TargetMinGPUs, TargetPareto}

// Optimiser algorithms of optimizer.algorithm.
const (
	AlgorithmBayesian = "bayesian"
	AlgorithmRandom   = "random"
)

// Optimization is the optimization section after defaults.
type Optimization struct {
	Target    string
	Hardware  string // "" when unset
	StrictSLA bool
	// MinGPUs is constraints.min_candidate_gpus (0 = unset); MaxGPUs max_candidate_gpus.
	MinGPUs int
	MaxGPUs int
	// MinGoodputRPS is constraints.min_goodput_rps (nil = unset; min_gpus target only).
	MinGoodputRPS *float64
}

// Optimizer is the optimizer section after defaults.
type Optimizer struct {
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
}

// routerNumericDefaults are the default domains of the router numerics in recommend.
var routerNumericDefaults = map[string][]string{
	"overlap_score_credit": {"0.0", "0.5", "1.0"},
	"prefill_load_scale":   {"0.0", "0.25", "0.5", "1.0", "2.0", "4.0", "8.0", "16.0", "32.0"},
	"temperature":          {"0.0", "0.2", "0.5", "1.0"},
}

// plannerPresetItems are the planner sub-items AISimulate searches through presets.
var plannerPresetItems = []string{"scaling_policy", "fpm_sampling", "load_sensitivity", "load_predictor"}

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
	tree, perr := parseYAML(yamlText)
	if perr != nil {
		return nil, &Error{Msg: "malformed YAML: " + yamlErrText(perr)}
	}
	root, isMap := tree.(map[string]any)
	if !isMap {
		got := describe(tree)
		if tree == nil {
			got = "an empty document"
		}
		return nil, &Error{Msg: fmt.Sprintf("configuration must contain one YAML mapping (with engine and optimization sections), got %s", got)}
	}
	for _, s := range sets {
		if err := setValue(root, s, true); err != nil {
			return nil, err
		}
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
	if err := r.checkConcrete(); err != nil {
		return nil, err
	}
	return r, nil
}

var optimizationShape = shape{keys: []string{"target", "hardware", "strict_sla", "constraints"}}

func decodeOptimization(d *decoder, v any) Optimization {
	o := d.mapping("optimization", v, optimizationShape)
	op := Optimization{Target: o.enum("target", Targets...), MaxGPUs: 32}
	if o.set("hardware") {
		op.Hardware = d.asString(o.p("hardware"), o.m["hardware"])
		if op.Hardware == "auto" {
			d.failf(o.p("hardware"), "must be one concrete system id such as h200_sxm, not 'auto'")
		}
	}
	op.StrictSLA = o.bool("strict_sla", false)
	co := o.child("constraints", shape{keys: []string{"min_candidate_gpus", "max_candidate_gpus", "min_goodput_rps"}})
	if mn := co.optInt("min_candidate_gpus", gt(0)); mn != nil {
		op.MinGPUs = *mn
	}
	if co.set("max_candidate_gpus") {
		op.MaxGPUs = int(co.int("max_candidate_gpus", 32, gt(0)))
	}
	op.MinGoodputRPS = co.optFloat("min_goodput_rps", gt(0))
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

var optimizerShape = shape{keys: []string{"algorithm", "max_trials", "parallelism", "candidate_timeout_seconds", "seed"}}

func decodeOptimizer(d *decoder, v any, root map[string]any) Optimizer {
	op := Optimizer{Algorithm: AlgorithmBayesian, MaxTrials: 320, Parallelism: 16, CandidateTimeoutSeconds: 600, Seed: 42}
	if _, ok := root["optimizer"]; !ok || v == nil {
		return op
	}
	o := d.mapping("optimizer", v, optimizerShape)
	op.Algorithm = o.enum("algorithm", AlgorithmBayesian, AlgorithmRandom)
	op.MaxTrials = int(o.int("max_trials", 320, gt(0), le(1_000_000)))
	op.Parallelism = int(o.int("parallelism", 16, gt(0)))
	op.CandidateTimeoutSeconds = o.float("candidate_timeout_seconds", 600, gt(0))
	op.Seed = uint64(o.int("seed", 42, ge(0)))
	return op
}

// getPath returns the value at a dotted path of a tree, and whether it is present.
func getPath(tree map[string]any, path string) (any, bool) {
	cur := any(tree)
	for _, seg := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// setPath writes value at a dotted path, creating missing intermediate mappings.
func setPath(tree map[string]any, path string, value any) {
	segs := strings.Split(path, ".")
	cur := tree
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[s] = next
		}
		cur = next
	}
	cur[segs[len(segs)-1]] = value
}

// deletePath removes the value at a dotted path (no-op when absent).
func deletePath(tree map[string]any, path string) {
	segs := strings.Split(path, ".")
	cur := tree
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
	delete(cur, segs[len(segs)-1])
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func numbers(texts []string) []any {
	out := make([]any, len(texts))
	for i, t := range texts {
		out[i] = json.Number(t)
	}
	return out
}

func strs(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// takeDomain validates and removes the domain at path, if the tree holds one there.
func (r *Recommendation) takeDomain(d *decoder, path string, when *Condition) bool {
	v, ok := getPath(r.Tree, path)
	if !ok || !isDomainNode(v) {
		return false
	}
	f, _ := lookupSearchField(path)
	dom := decodeDomain(d, path, v, f)
	dom.When = when
	if d.ok() {
		r.Domains = append(r.Domains, dom)
		deletePath(r.Tree, path)
	}
	return true
}

// addDefault adds a schema-supplied domain for an omitted field.
func (r *Recommendation) addDefault(path string, values []any, when *Condition) {
	r.Domains = append(r.Domains, Domain{Path: path, Kind: DomainChoices, Choices: values, When: when, Default: true})
}

// collectDomains finds every domain, supplies the default domains of omitted fields, and
// rejects domains where none is allowed (aisimulate-cli.md §2.8).
func (r *Recommendation) collectDomains(d *decoder) {
	if _, ok := r.Tree["engine"].(map[string]any); !ok {
		if _, present := r.Tree["engine"]; !present {
			d.failf("engine", "required section is missing; add engine: {model: <hf id>, hardware: <system id>, workers: {aggregated: {}}}")
		} else {
			d.failf("engine", "must be a mapping, got %s", describe(r.Tree["engine"]))
		}
		return
	}
	// engine.hardware: auto takes optimization.hardware.
	if hw, ok := getPath(r.Tree, "engine.hardware"); ok && hw == "auto" {
		if r.Optimization.Hardware == "" {
			d.failf("engine.hardware", "'auto' needs optimization.hardware; add optimization: {hardware: <system id such as h200_sxm>}")
			return
		}
		setPath(r.Tree, "engine.hardware", r.Optimization.Hardware)
	}
	// Mode and backend: default domains when omitted.
	modes := []string{}
	if !r.takeDomain(d, "engine.mode", nil) {
		if v, ok := getPath(r.Tree, "engine.mode"); ok {
			if s, isStr := v.(string); isStr {
				modes = append(modes, s)
			}
		} else {
			r.addDefault("engine.mode", strs([]string{ModeAggregated, ModeDisaggregated}), nil)
		}
	}
	if !d.ok() {
		return
	}
	for _, dm := range r.Domains {
		if dm.Path == "engine.mode" {
			for _, c := range dm.Choices {
				modes = append(modes, c.(string))
			}
		}
	}
	if len(modes) == 0 {
		modes = []string{ModeAggregated}
	}
	r.Modes = modes
	if !r.takeDomain(d, "engine.backend", nil) {
		if _, ok := getPath(r.Tree, "engine.backend"); !ok {
			r.addDefault("engine.backend", strs([]string{BackendVLLM, BackendSGLang}), nil)
		}
	}
	if !d.ok() {
		return
	}
	r.collectRoles(d)
	if !d.ok() {
		return
	}
	for _, p := range []string{"traffic.load.concurrency", "traffic.load.requests_per_second", "traffic.load.sessions_per_second", "traffic.load.speedup"} {
		r.takeDomain(d, p, nil)
	}
	if t, ok := getPath(r.Tree, "traffic.load.type"); ok && t == "kv_capacity_fraction" {
		d.failf("traffic.load.type", "kv_capacity_fraction loads are not supported by this simulator; use concurrency, poisson or constant_rate")
		return
	}
	if !d.ok() {
		return
	}
	r.collectRouter(d)
	if !d.ok() {
		return
	}
	r.collectPlanner(d)
	if !d.ok() {
		return
	}
	// Any domain left is somewhere no domain is allowed.
	rejectDomains(d, "", r.Tree)
}

// rolesOf are the worker roles of a mode.
func rolesOf(mode string) []string {
	if mode == ModeDisaggregated {
		return []string{RolePrefill, RoleDecode}
	}
	return []string{RoleAggregated}
}

// modeOf is the engine mode a worker role belongs to.
func modeOf(role string) string {
	if role == RoleAggregated {
		return ModeAggregated
	}
	return ModeDisaggregated
}

func (r *Recommendation) collectRoles(d *decoder) {
	var roles []string
	for _, role := range []string{RoleAggregated, RolePrefill, RoleDecode} {
		for _, m := range r.Modes {
			if contains(rolesOf(m), role) && !contains(roles, role) {
				roles = append(roles, role)
			}
		}
	}
	workers, _ := getPath(r.Tree, "engine.workers")
	wm, isMap := workers.(map[string]any)
	if workers != nil && !isMap {
		d.failf("engine.workers", "must be a mapping, got %s", describe(workers))
		return
	}
	for _, k := range sortedKeys(wm) {
		if !contains(roles, k) && (k == RoleAggregated || k == RolePrefill || k == RoleDecode) {
			d.failf("engine.workers."+k, "no candidate mode (%s) uses the %s role; remove it or add its mode to engine.mode", strings.Join(r.Modes, ", "), k)
			return
		}
	}
	for _, role := range roles {
		base := "engine.workers." + role
		if _, ok := wm[role]; !ok {
			d.failf("engine.workers", "candidates of mode %s need workers.%s; add %s: {} to search its defaults", modeOf(role), role, role)
			return
		}
		if wm[role] == nil {
			wm[role] = map[string]any{}
		}
		if _, ok := wm[role].(map[string]any); !ok {
			d.failf(base, "must be a mapping, got %s", describe(wm[role]))
			return
		}
		when := &Condition{Path: "engine.mode", Values: []string{modeOf(role)}}
		r.collectParallelism(d, role, when)
		if !d.ok() {
			return
		}
		for _, rel := range []string{"scheduler.max_batched_tokens", "scheduler.max_sequences", "scheduler.prefill_schedule_interval",
			"scheduler.prefill_decode_interval", "kv_cache.block_size", "kv_cache.capacity.memory_fraction"} {
			r.takeDomain(d, base+"."+rel, when)
		}
		if !d.ok() {
			return
		}
		// Scheduler default domains (aisimulate-cli.md §2.8).
		if _, ok := getPath(r.Tree, base+".scheduler.max_batched_tokens"); !ok && !r.hasDomain(base+".scheduler.max_batched_tokens") {
			mbt := []string{"8192", "16384", "32768"}
			if role == RoleDecode {
				mbt = []string{"8192"}
			}
			r.addDefault(base+".scheduler.max_batched_tokens", numbers(mbt), when)
		}
		if _, ok := getPath(r.Tree, base+".scheduler.max_sequences"); !ok && !r.hasDomain(base+".scheduler.max_sequences") {
			ms := []string{"256", "512", "1024"}
			if role == RolePrefill {
				ms = []string{"1", "2", "4", "8", "16", "32", "64", "128", "256"}
			}
			r.addDefault(base+".scheduler.max_sequences", numbers(ms), when)
		}
	}
}

func (r *Recommendation) hasDomain(path string) bool {
	for _, dm := range r.Domains {
		if dm.Path == path {
			return true
		}
	}
	return false
}

// parallelismKnobs are the six keys of a complete parallelism mapping (a preset entry).
var parallelismKnobs = parallelismShape.keys

// collectParallelism reads engine.workers.<role>.parallelism: omitted or {preset: default}
// is the default ladder, {preset: [complete mappings]} an explicit list, {preset: false} or
// {preset: {}} (or knobs without a preset key) per-knob values and domains.
func (r *Recommendation) collectParallelism(d *decoder, role string, when *Condition) {
	base := "engine.workers." + role + ".parallelism"
	v, present := getPath(r.Tree, base)
	ps := ParallelismSpace{Role: role}
	if !present || v == nil {
		ps.Ladder = true
		deletePath(r.Tree, base)
		r.Parallelism = append(r.Parallelism, ps)
		return
	}
	m, isMap := v.(map[string]any)
	if !isMap {
		d.failf(base, "must be a mapping, got %s", describe(v))
		return
	}
	preset, hasPreset := m["preset"]
	active := hasPreset
	if hasPreset {
		switch p := preset.(type) {
		case bool:
			if p {
				d.failf(base+".preset", "must be default, false, {} or a list of complete parallelism mappings, got true")
				return
			}
			active = false
		case map[string]any:
			if len(p) > 0 {
				d.failf(base+".preset", "must be default, false, {} or a list of complete parallelism mappings, got a non-empty mapping")
				return
			}
			active = false
		case string:
			if p != "default" {
				d.failf(base+".preset", "must be default, false, {} or a list of complete parallelism mappings, got %s", describe(p))
				return
			}
			ps.Ladder = true
		case []any:
			if len(p) == 0 {
				d.failf(base+".preset", "must list at least one parallelism mapping")
				return
			}
			for i, e := range p {
				ep := fmt.Sprintf("%s.preset.%d", base, i)
				em, ok := e.(map[string]any)
				if !ok {
					d.failf(ep, "must be a mapping of %s, got %s", strings.Join(parallelismKnobs, ", "), describe(e))
					return
				}
				var missing, unknown []string
				for _, k := range parallelismKnobs {
					if _, ok := em[k]; !ok {
						missing = append(missing, k)
					}
				}
				for _, k := range sortedKeys(em) {
					if !contains(parallelismKnobs, k) {
						unknown = append(unknown, k)
					}
				}
				if len(missing) > 0 || len(unknown) > 0 {
					d.failf(ep, "parallelism preset entries must cover exactly all knobs; missing=%s, unknown=%s", pyList(missing), pyList(unknown))
					return
				}
				vals := make([]int, len(parallelismKnobs))
				for j, k := range parallelismKnobs {
					vals[j] = int(d.asInt(ep+"."+k, em[k], gt(0)))
				}
				if !d.ok() {
					return
				}
				ps.Presets = append(ps.Presets, Parallelism{Replicas: vals[0], Tensor: vals[1], Pipeline: vals[2],
					AttentionData: vals[3], MoeTensor: vals[4], MoeExpert: vals[5]})
			}
		default:
			d.failf(base+".preset", "must be default, false, {} or a list of complete parallelism mappings, got %s", describe(preset))
			return
		}
	}
	if active {
		var knobs []string
		for _, k := range sortedKeys(m) {
			if k != "preset" {
				knobs = append(knobs, k)
			}
		}
		if len(knobs) > 0 {
			d.failf(base+".preset", "an active preset cannot be combined with independent knobs %s; set preset: false to search the knobs", pyList(knobs))
			return
		}
		deletePath(r.Tree, base)
		r.Parallelism = append(r.Parallelism, ps)
		return
	}
	delete(m, "preset")
	for _, k := range parallelismKnobs {
		r.takeDomain(d, base+"."+k, when)
	}
	r.Parallelism = append(r.Parallelism, ps)
}

func (r *Recommendation) collectRouter(d *decoder) {
	v, present := r.Tree["router"]
	if !present {
		return
	}
	if _, ok := v.(map[string]any); !ok {
		d.failf("router", "adapter section 'router' must be a mapping, got %s", describe(v))
		return
	}
	kv := &Condition{Path: "router.policy", Values: []string{RouterKV}}
	policies := []string{}
	if r.takeDomain(d, "router.policy", nil) {
		if !d.ok() {
			return
		}
		for _, c := range r.Domains[len(r.Domains)-1].Choices {
			policies = append(policies, c.(string))
		}
	} else if p, ok := getPath(r.Tree, "router.policy"); ok {
		if s, isStr := p.(string); isStr {
			policies = append(policies, s)
		}
	} else {
		policies = []string{RouterRoundRobin, RouterKV}
		r.addDefault("router.policy", strs(policies), nil)
	}
	searchKV := contains(policies, RouterKV)
	paths := append([]string{"router.prefill_load_model.type"}, prefixAll("router.", routerNumerics)...)
	if !searchKV {
		for _, p := range paths {
			if v, ok := getPath(r.Tree, p); ok && isDomainNode(v) {
				d.failf(p, "a domain here needs kv_router in router.policy; round_robin takes no router knobs")
				return
			}
		}
		return
	}
	if r.takeDomain(d, "router.prefill_load_model.type", kv) {
		if !d.ok() {
			return
		}
		if contains(policies, RouterRoundRobin) && !containsAny(r.Domains[len(r.Domains)-1].Choices, LoadModelNone) {
			d.failf("router.prefill_load_model.type.choices", "must contain 'none' when router.policy may be round_robin")
			return
		}
	} else if _, ok := getPath(r.Tree, "router.prefill_load_model"); !ok {
		r.addDefault("router.prefill_load_model.type", strs([]string{LoadModelNone, LoadModelAIC}), kv)
	}
	for _, k := range routerNumerics {
		p := "router." + k
		if r.takeDomain(d, p, kv) {
			continue
		}
		if _, ok := getPath(r.Tree, p); !ok {
			r.addDefault(p, numbers(routerNumericDefaults[k]), kv)
		}
	}
}

func prefixAll(prefix string, names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

func containsAny(list []any, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (r *Recommendation) collectPlanner(d *decoder) {
	v, present := r.Tree["planner"]
	if !present {
		return
	}
	m, ok := v.(map[string]any)
	if !ok {
		d.failf("planner", "adapter section 'planner' must be a mapping, got %s", describe(v))
		return
	}
	for _, k := range plannerPresetItems {
		if _, ok := m[k]; ok {
			d.failf("planner."+k, "planner preset sub-items are not supported by this simulator's recommend; write the planner knobs concretely (domains are allowed on policy, min_workers, prefill_min_workers and decode_min_workers)")
			return
		}
	}
	for _, k := range []string{"policy", "min_workers", "prefill_min_workers", "decode_min_workers"} {
		r.takeDomain(d, "planner."+k, nil)
	}
}

// rejectDomains reports the first domain node (or preset) left in the tree.
func rejectDomains(d *decoder, path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		if isDomainNode(x) {
			d.failf(path, "a domain is not allowed here; searchable fields are engine.mode, engine.backend, engine.hardware: auto, "+
				"worker parallelism, scheduler, kv_cache.block_size and capacity.memory_fraction, traffic.load numerics, router knobs "+
				"and planner policy/min workers; write a concrete value")
			return
		}
		if _, ok := x["preset"]; ok {
			d.failf(join(path, "preset"), "presets are only allowed in engine.workers.<role>.parallelism")
			return
		}
		for _, k := range sortedKeys(x) {
			rejectDomains(d, join(path, k), x[k])
			if !d.ok() {
				return
			}
		}
	}
}

// checkEvaluation applies the recommend rules on evaluation.sla (aisimulate-cli.md §2.6, §2.9).
func (r *Recommendation) checkEvaluation(d *decoder) {
	ev := decodeEvaluation(d, r.Tree)
	if !d.ok() {
		return
	}
	r.SLA = ev.SLA
	op := r.Optimization
	complete := ev.SLA != nil && (ev.SLA.E2EMs != nil || ev.SLA.TTFTMs != nil && ev.SLA.ITLMs != nil)
	if (op.Target == TargetGoodput || op.Target == TargetGoodputPerGPU || op.MinGoodputRPS != nil) && !complete {
		d.failf("evaluation.sla", "optimization.target %s needs a complete SLA: add evaluation: {sla: {ttft_ms: <ms>, itl_ms: <ms>}} or {sla: {e2e_ms: <ms>}}", op.Target)
		return
	}
	if op.StrictSLA && ev.SLA == nil {
		d.failf("optimization.strict_sla", "needs at least one bound in evaluation.sla (ttft_ms, itl_ms or e2e_ms)")
	}
}

// HasCompleteSLA reports whether goodput can be measured (e2e alone, or ttft with itl).
func (r *Recommendation) HasCompleteSLA() bool {
	s := r.SLA
	return s != nil && (s.E2EMs != nil || s.TTFTMs != nil && s.ITLMs != nil)
}

// Candidate builds one concrete configuration tree: the concrete tree with values written at
// the given paths (whole mappings for parallelism), the roles of the candidate's mode kept and
// the others removed, and the router knobs removed when its policy is round_robin. The result
// is a predict configuration.
func (r *Recommendation) Candidate(paths []string, values []any) map[string]any {
	t := deepCopy(r.Tree).(map[string]any)
	for i, p := range paths {
		setPath(t, p, deepCopy(values[i]))
	}
	mode := ModeAggregated
	if m, ok := getPath(t, "engine.mode"); ok {
		if s, isStr := m.(string); isStr {
			mode = s
		}
	}
	if w, ok := getPath(t, "engine.workers"); ok {
		if wm, isMap := w.(map[string]any); isMap {
			for _, role := range []string{RoleAggregated, RolePrefill, RoleDecode} {
				if !contains(rolesOf(mode), role) {
					delete(wm, role)
				}
			}
		}
	}
	if p, ok := getPath(t, "router.policy"); ok && p == RouterRoundRobin {
		deletePath(t, "router.prefill_load_model")
		for _, k := range routerNumerics {
			deletePath(t, "router."+k)
		}
	}
	return t
}

// When reports whether a condition holds in a concrete candidate tree (a nil condition
// always holds; an absent engine.mode is aggregated).
func When(c *Condition, tree map[string]any) bool {
	if c == nil {
		return true
	}
	v, ok := getPath(tree, c.Path)
	if !ok && c.Path == "engine.mode" {
		v = ModeAggregated
	}
	s, _ := v.(string)
	return contains(c.Values, s)
}

// GetPath returns the value at a dotted path of a configuration tree.
func GetPath(tree map[string]any, path string) (any, bool) { return getPath(tree, path) }

// ParallelismTree is the YAML mapping of a complete parallelism shape.
func ParallelismTree(p Parallelism) map[string]any {
	n := func(i int) any { return json.Number(strconv.Itoa(i)) }
	return map[string]any{"replicas": n(p.Replicas), "tensor": n(p.Tensor), "pipeline": n(p.Pipeline),
		"attention_data": n(p.AttentionData), "moe_tensor": n(p.MoeTensor), "moe_expert": n(p.MoeExpert)}
}

// UsedGPUs is Σ over the candidate's roles of replicas × tensor × pipeline × attention_data
// (aisimulate-cli.md §5.1 step 6; MoE knobs add no GPUs); unset knobs count 1.
func UsedGPUs(tree map[string]any) int {
	mode := ModeAggregated
	if m, ok := getPath(tree, "engine.mode"); ok {
		if s, isStr := m.(string); isStr {
			mode = s
		}
	}
	total := 0
	for _, role := range rolesOf(mode) {
		g := 1
		for _, k := range []string{"replicas", "tensor", "pipeline", "attention_data"} {
			if v, ok := getPath(tree, "engine.workers."+role+".parallelism."+k); ok {
				if n, isNum := v.(json.Number); isNum {
					if i, err := strconv.Atoi(string(n)); err == nil {
						g *= i
					}
				}
			}
		}
		total += g
	}
	return total
}

// checkConcrete validates what is not searched: one candidate per mode, with the first value
// of every domain, goes through predict's loader; an error at a searched path is left to the
// candidates (it may hold for some values only).
func (r *Recommendation) checkConcrete() *Error {
	for _, mode := range r.Modes {
		var paths []string
		var values []any
		paths = append(paths, "engine.mode")
		values = append(values, mode)
		for _, dm := range r.Domains {
			if dm.Path == "engine.mode" {
				continue
			}
			paths = append(paths, dm.Path)
			if dm.Kind == DomainChoices {
				values = append(values, dm.Choices[0])
			} else {
				values = append(values, NumberValue(dm.Min, dm.Int))
			}
		}
		for _, ps := range r.Parallelism {
			if ps.Ladder || len(ps.Presets) == 0 {
				continue
			}
			paths = append(paths, "engine.workers."+ps.Role+".parallelism")
			values = append(values, ParallelismTree(ps.Presets[0]))
		}
		cand := r.Candidate(paths, values)
		if _, err := decodeRoot(cand); err != nil {
			searched := false
			for _, p := range paths {
				if err.Path == p || strings.HasPrefix(err.Path, p+".") || strings.HasPrefix(p, err.Path+".") || err.Path == "" {
					searched = true
				}
			}
			if strings.HasPrefix(err.Path, "engine.workers.") || err.Path == "router" || err.Path == "planner" {
				searched = searched || r.anySearchedBelow(err.Path)
			}
			// Router and planner rules count workers (kv_router needs two, the planner's GPU
			// budget): with a searched parallelism they are the candidates' to decide.
			if strings.HasPrefix(err.Path, "router") || strings.HasPrefix(err.Path, "planner") {
				searched = searched || r.anySearchedBelow("engine.workers")
			}
			if !searched {
				return err
			}
		}
	}
	return nil
}

func (r *Recommendation) anySearchedBelow(path string) bool {
	for _, dm := range r.Domains {
		if strings.HasPrefix(dm.Path, path+".") {
			return true
		}
	}
	for _, ps := range r.Parallelism {
		if (ps.Ladder || len(ps.Presets) > 0) && strings.HasPrefix("engine.workers."+ps.Role+".parallelism", path) {
			return true
		}
	}
	return false
}
