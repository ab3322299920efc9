package spec

// Collection of the domains of a recommendation: where a domain may stand, the default
// domains of omitted fields, and the parallelism forms (docs/recommend.md, "Domains").

import (
	"fmt"
	"strings"
)

// routerNumericDefaults are the default domains of the router numerics in recommend.
var routerNumericDefaults = map[string][]string{
	"overlap_score_credit": {"0.0", "0.5", "1.0"},
	"prefill_load_scale":   {"0.0", "0.25", "0.5", "1.0", "2.0", "4.0", "8.0", "16.0", "32.0"},
	"temperature":          {"0.0", "0.2", "0.5", "1.0"},
}

// takeDomain validates and removes the domain at path, if the tree holds one there.
func (r *Recommendation) takeDomain(d *decoder, path string, when *Condition) bool {
	v, ok := getPath(r.Tree, path)
	if !ok || !isDomainNode(v) {
		return false
	}
	f, ok := lookupSearchField(path)
	if !ok {
		panic("spec: " + path + " is not a search field of the table (fields.go)")
	}
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
// rejects domains where none is allowed (docs/recommend.md, "Domains").
func (r *Recommendation) collectDomains(d *decoder) {
	if _, ok := r.Tree["engine"].(map[string]any); !ok {
		if _, present := r.Tree["engine"]; !present {
			d.failf("engine", "required section is missing; add engine: {model: <hf id>, hardware: <system id>, workers: {aggregated: {}}}")
		} else {
			d.failf("engine", "must be a mapping, got %s", describe(r.Tree["engine"]))
		}
		return
	}
	// engine.hardware: auto takes optimization.hardware: one system, or a domain of systems
	// [extension] whose first choice stands in the concrete tree until a candidate writes its
	// own (the default ladder reads it; simcore puts the largest there).
	if hw, ok := getPath(r.Tree, "engine.hardware"); ok && hw == "auto" {
		switch {
		case r.Optimization.HardwareChoices != nil:
			setPath(r.Tree, PathHardware, r.Optimization.HardwareChoices[0])
		case r.Optimization.Hardware == "":
			d.failf("engine.hardware", "'auto' needs optimization.hardware; add optimization: {hardware: <system id such as h200_sxm>} or {hardware: {choices: [h100_sxm, h200_sxm]}}")
			return
		default:
			setPath(r.Tree, PathHardware, r.Optimization.Hardware)
		}
	} else if r.Optimization.HardwareChoices != nil {
		d.failf("optimization.hardware", "a domain of systems needs engine.hardware: auto")
		return
	}
	r.checkPrices(d)
	if !d.ok() {
		return
	}
	// Mode and backend: default domains when omitted.
	modes := []string{}
	if !r.takeDomain(d, fieldMode.path, nil) {
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
	if !r.takeDomain(d, fieldBackend.path, nil) {
		if _, ok := getPath(r.Tree, "engine.backend"); !ok {
			r.addDefault("engine.backend", strs([]string{BackendVLLM, BackendSGLang}), nil)
		}
	}
	if r.Optimization.HardwareChoices != nil {
		r.Domains = append(r.Domains, Domain{Path: PathHardware, Kind: DomainChoices, Choices: strs(r.Optimization.HardwareChoices)})
	}
	if !d.ok() {
		return
	}
	r.collectRoles(d)
	if !d.ok() {
		return
	}
	r.collectBackendVersions(d)
	if !d.ok() {
		return
	}
	for _, f := range []*field{&fieldConcurrency, &fieldRequestsPerSecond, &fieldSessionsPerSecond, &fieldSpeedup, &fieldFraction} {
		r.takeDomain(d, f.path, nil)
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

func (r *Recommendation) collectRoles(d *decoder) {
	var roles []string
	for _, role := range []string{RoleAggregated, RolePrefill, RoleDecode} {
		for _, m := range r.Modes {
			if contains(RolesOf(m), role) && !contains(roles, role) {
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
		for _, f := range []*field{&fieldMaxBatchedTokens, &fieldMaxSequences, &fieldPrefillScheduleInterval,
			&fieldPrefillDecodeInterval, &fieldBlockSize, &fieldMemoryFraction} {
			r.takeDomain(d, base+"."+f.path, when)
		}
		if !d.ok() {
			return
		}
		// Scheduler default domains (docs/recommend.md, "Domains").
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
	if r.takeDomain(d, fieldRouterPolicy.path, nil) {
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
	// A round-robin candidate echoes prefill_load_model: {type: none} (Candidate), so a
	// concrete load model other than none cannot hold for it.
	if t, ok := getPath(r.Tree, fieldPrefillLoadModel.path); ok && !isDomainNode(t) && t != LoadModelNone && contains(policies, RouterRoundRobin) {
		d.failf(fieldPrefillLoadModel.path, "'%v' is incompatible with router.policy='round_robin', which the search includes; use type: none, a domain containing none, or policy: kv_router", t)
		return
	}
	paths := []string{fieldPrefillLoadModel.path}
	for _, f := range routerNumericFields {
		paths = append(paths, f.path)
	}
	if !searchKV {
		for _, p := range paths {
			if v, ok := getPath(r.Tree, p); ok && isDomainNode(v) {
				d.failf(p, "a domain here needs kv_router in router.policy; round_robin takes no router knobs")
				return
			}
		}
		return
	}
	if r.takeDomain(d, fieldPrefillLoadModel.path, kv) {
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
	for _, f := range routerNumericFields {
		if r.takeDomain(d, f.path, kv) {
			continue
		}
		if _, ok := getPath(r.Tree, f.path); !ok {
			r.addDefault(f.path, numbers(routerNumericDefaults[f.key()]), kv)
		}
	}
}

// rejectDomains reports the first domain node (or preset) left in the tree.
func rejectDomains(d *decoder, path string, v any) {
	switch x := v.(type) {
	case map[string]any:
		if isDomainNode(x) {
			d.failf(path, "a domain is not allowed here; searchable fields are engine.mode, engine.backend, engine.hardware: auto, "+
				"worker parallelism, scheduler, kv_cache.block_size and capacity.memory_fraction, traffic.load numerics, router knobs "+
				"and planner policy/min workers/sub-items; write a concrete value")
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

// collectBackendVersions reads engine.backend_version written as a per-backend mapping
// ({vllm: "0.24.0", sglang: current}, docs/recommend.md, "Domains"): keys are backends,
// values versions or null; Candidate writes each candidate its backend's entry (none when
// the mapping has no entry for it). One string stays in the tree for every candidate.
func (r *Recommendation) collectBackendVersions(d *decoder) {
	v, ok := getPath(r.Tree, "engine.backend_version")
	m, isMap := v.(map[string]any)
	if !ok || !isMap {
		return
	}
	backends := []string{BackendVLLM, BackendSGLang, BackendTRTLLM}
	versions := map[string]any{}
	for _, k := range sortedKeys(m) {
		p := "engine.backend_version." + k
		if !contains(backends, k) {
			d.failf(p, "a per-backend backend_version takes the keys %s; got %q", strings.Join(backends, ", "), k)
			return
		}
		if m[k] != nil {
			versions[k] = d.asString(p, m[k])
		}
	}
	if d.ok() {
		r.backendVersions = versions
		deletePath(r.Tree, "engine.backend_version")
	}
}

// checkPrices requires a price in optimization.gpu_hour_cost for every system a candidate
// can run on (engine.hardware or its choices, and the roles' own hardware).
func (r *Recommendation) checkPrices(d *decoder) {
	prices := r.Optimization.GPUHourCost
	if prices == nil {
		return
	}
	ids := append([]string(nil), r.Optimization.HardwareChoices...)
	if hw, ok := getPath(r.Tree, PathHardware); ok && r.Optimization.HardwareChoices == nil {
		if s, isStr := hw.(string); isStr {
			ids = append(ids, s)
		}
	}
	for _, role := range []string{RoleAggregated, RolePrefill, RoleDecode} {
		if hw, ok := getPath(r.Tree, WorkerPath(role, "hardware")); ok {
			if s, isStr := hw.(string); isStr {
				ids = append(ids, s)
			}
		}
	}
	for _, id := range ids {
		if _, ok := prices[id]; !ok {
			d.failf("optimization.gpu_hour_cost", "no price for %s, which candidates run on; add %s: <USD per GPU-hour>", id, id)
			return
		}
	}
}

// SizeLadderOn puts system id in the concrete tree's engine.hardware, which candidates of a
// hardware domain overwrite with their own: the default ladder sizes its shapes on it, so
// the caller passes the choice with the most memory per GPU (every shape some choice holds).
func (r *Recommendation) SizeLadderOn(id string) { setPath(r.Tree, PathHardware, id) }
