package spec

// The planner's search in a recommendation: the four preset sub-items (scaling_policy,
// fpm_sampling, load_sensitivity, load_predictor), their independent-knob form, the planner
// target derived from the optimisation target, and the filtering of scaling policies the
// target cannot use (docs/recommend.md, "Planner search").

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Planner preset sub-items.
const (
	PlannerScalingPolicy  = "scaling_policy"
	PlannerFPMSampling    = "fpm_sampling"
	PlannerLoadSense      = "load_sensitivity"
	PlannerLoadPredictor  = "load_predictor"
	plannerPredictorType  = "type"
	plannerScalingOffName = "disabled"
)

// plannerItem describes one sub-item: the planner knobs its entries write, in order, its
// built-in presets (name → values aligned with keys, in the notes' order), and the default
// value lists of its knobs when the preset is off.
type plannerItem struct {
	name     string
	keys     []string
	names    []string
	presets  map[string][]any
	defaults [][]any
}

// jsonNumber is the tree value of a number written as text (as the YAML parser makes it).
func jsonNumber(s string) any { return json.Number(s) }

// plannerItems are the sub-items in search order (the predictor last: it is chosen by a
// pre-sweep, not searched).
var plannerItems = []plannerItem{
	{
		name: PlannerScalingPolicy,
		keys: []string{"enable_throughput_scaling", "enable_load_scaling", "throughput_adjustment_interval_seconds", "load_adjustment_interval_seconds"},
		names: []string{plannerScalingOffName, "throughput_180_5", "throughput_600_5", "load_180_5", "load_180_10",
			"hybrid_180_5", "hybrid_600_5"},
		presets: map[string][]any{
			plannerScalingOffName: {false, false, nil, nil},
			"throughput_180_5":    {true, false, jsonNumber("180"), jsonNumber("5")},
			"throughput_600_5":    {true, false, jsonNumber("600"), jsonNumber("5")},
			"load_180_5":          {false, true, jsonNumber("180"), jsonNumber("5")},
			"load_180_10":         {false, true, jsonNumber("180"), jsonNumber("10")},
			"hybrid_180_5":        {true, true, jsonNumber("180"), jsonNumber("5")},
			"hybrid_600_5":        {true, true, jsonNumber("600"), jsonNumber("5")},
		},
		defaults: [][]any{{false, true}, {false, true}, {jsonNumber("180"), jsonNumber("600")}, {jsonNumber("5"), jsonNumber("10")}},
	},
	{
		name:  PlannerFPMSampling,
		keys:  []string{"max_num_fpm_samples", "fpm_sample_bucket_size"},
		names: []string{"small", "default", "large", "fine"},
		presets: map[string][]any{
			"small": {jsonNumber("32"), jsonNumber("4")}, "default": {jsonNumber("64"), jsonNumber("16")},
			"large": {jsonNumber("128"), jsonNumber("16")}, "fine": {jsonNumber("128"), jsonNumber("64")},
		},
		defaults: [][]any{{jsonNumber("32"), jsonNumber("64"), jsonNumber("128")}, {jsonNumber("4"), jsonNumber("16"), jsonNumber("64")}},
	},
	{
		name:  PlannerLoadSense,
		keys:  []string{"load_scaling_down_sensitivity", "load_min_observations"},
		names: []string{"aggressive", "default", "conservative"},
		presets: map[string][]any{
			"aggressive": {jsonNumber("70"), jsonNumber("3")}, "default": {jsonNumber("80"), jsonNumber("5")}, "conservative": {jsonNumber("90"), jsonNumber("8")},
		},
		defaults: [][]any{{jsonNumber("70"), jsonNumber("80"), jsonNumber("90")}, {jsonNumber("3"), jsonNumber("5"), jsonNumber("8")}},
	},
	{
		name: PlannerLoadPredictor,
		keys: []string{"load_predictor", "load_predictor_log1p", "prophet_window_size", "kalman_q_level", "kalman_q_trend", "kalman_r", "kalman_min_points"},
		names: []string{"constant_last", "arima_raw", "arima_log1p", "prophet_w20_raw", "prophet_w20_log1p",
			"prophet_w50_raw", "prophet_w50_log1p", "kalman_default_raw", "kalman_default_log1p",
			"kalman_reactive_raw", "kalman_reactive_log1p"},
		presets: map[string][]any{
			"constant_last":         predictorPreset("constant", false, "50", "1.0", "0.1", "10.0", "5"),
			"arima_raw":             predictorPreset("arima", false, "50", "1.0", "0.1", "10.0", "5"),
			"arima_log1p":           predictorPreset("arima", true, "50", "1.0", "0.1", "10.0", "5"),
			"prophet_w20_raw":       predictorPreset("prophet", false, "20", "1.0", "0.1", "10.0", "5"),
			"prophet_w20_log1p":     predictorPreset("prophet", true, "20", "1.0", "0.1", "10.0", "5"),
			"prophet_w50_raw":       predictorPreset("prophet", false, "50", "1.0", "0.1", "10.0", "5"),
			"prophet_w50_log1p":     predictorPreset("prophet", true, "50", "1.0", "0.1", "10.0", "5"),
			"kalman_default_raw":    predictorPreset("kalman", false, "50", "1.0", "0.1", "10.0", "5"),
			"kalman_default_log1p":  predictorPreset("kalman", true, "50", "1.0", "0.1", "10.0", "5"),
			"kalman_reactive_raw":   predictorPreset("kalman", false, "50", "10.0", "1.0", "5.0", "3"),
			"kalman_reactive_log1p": predictorPreset("kalman", true, "50", "10.0", "1.0", "5.0", "3"),
		},
		defaults: [][]any{{"constant", "arima", "prophet", "kalman"}, {false, true}, {jsonNumber("20"), jsonNumber("50")},
			{jsonNumber("1.0"), jsonNumber("10.0")}, {jsonNumber("0.1"), jsonNumber("1.0")}, {jsonNumber("5.0"), jsonNumber("10.0")}, {jsonNumber("3"), jsonNumber("5")}},
	},
}

func predictorPreset(family string, log1p bool, window, qLevel, qTrend, r, minPoints string) []any {
	return []any{family, log1p, jsonNumber(window), jsonNumber(qLevel), jsonNumber(qTrend), jsonNumber(r), jsonNumber(minPoints)}
}

func lookupPlannerItem(name string) *plannerItem {
	for i := range plannerItems {
		if plannerItems[i].name == name {
			return &plannerItems[i]
		}
	}
	return nil
}

// PlannerEntry is one value of a planner sub-item: a built-in preset or a complete mapping.
type PlannerEntry struct {
	// Label names the entry: the preset name, or custom_<i> for the i-th mapping.
	Label string
	// Show is how recommendation.json's candidate config shows it: the name, or the mapping.
	Show any
	// Values are the knob values, aligned with the sub-item's Keys (nil: the knob is unset).
	Values []any
}

// Throughput and Load report which scaling modes a scaling_policy entry enables.
func (e PlannerEntry) Throughput() bool { return e.Values[0] == true }

// Load reports whether a scaling_policy entry enables load scaling.
func (e PlannerEntry) Load() bool { return e.Values[1] == true }

// ThroughputInterval is a scaling_policy entry's throughput interval in seconds (0: unset).
func (e PlannerEntry) ThroughputInterval() int { return jsonInt(e.Values[2]) }

// PlannerGroup is one searched planner sub-item.
type PlannerGroup struct {
	// Item is the sub-item name; Keys the planner knobs every entry writes.
	Item    string
	Keys    []string
	Entries []PlannerEntry
	// Needs is "" for the scaling policy, else the scaling mode the chosen scaling policy
	// must enable for this sub-item to matter ("throughput" for FPM sampling, "load" for
	// the load sensitivity); the group is then searched only in such candidates.
	Needs string
}

// Scaling modes a planner group may depend on.
const (
	PlannerNeedsThroughput = "throughput"
	PlannerNeedsLoad       = "load"
)

// PlannerSearch is the planner part of a recommendation whose planner may be enabled.
type PlannerSearch struct {
	// Target is the planner.target of enabled candidates: planner.target when given, else
	// derived from optimization.target.
	Target string
	// Groups are the searched sub-items: the scaling policy first, then FPM sampling and the
	// load sensitivity when a kept scaling policy needs them.
	Groups []PlannerGroup
	// Predictors are the load-predictor candidates of the pre-sweep (keys of the
	// load_predictor sub-item); Intervals the distinct throughput intervals of the kept
	// scaling policies, ascending.
	Predictors []PlannerEntry
	Intervals  []int
	// Winners maps a throughput interval to the index of its winning predictor; the target
	// fills it (simcore: the pre-sweep over the trace) before candidates are built. A missing
	// interval takes constant_last.
	Winners map[int]int
	// PolicyWhen is the condition under which the planner is enabled (nil: always).
	PolicyWhen *Condition
}

// PredictorKeys are the planner knobs a load-predictor entry writes.
func PredictorKeys() []string { return lookupPlannerItem(PlannerLoadPredictor).keys }

// plannerTarget is the planner target the objectives imply (docs/recommend.md, "Planner
// search"): sla whenever one is a goodput objective (pareto with a complete SLA included),
// latency for the latency targets, throughput otherwise.
func plannerTarget(objectives []string) string {
	target := "throughput"
	for _, o := range objectives {
		switch o {
		case TargetGoodput, TargetGoodputPerGPU:
			return TargetSLA
		case TargetTTFT, TargetE2ELatency:
			target = "latency"
		}
	}
	return target
}

// plannerControl is one sub-item as written: whether its preset is active (default or a
// list) or off (independent knobs), and the explicit entries of a list.
type plannerControl struct {
	item     *plannerItem
	explicit bool // a list was given (not the default)
	off      bool // preset false or {}: independent knobs
	entries  []PlannerEntry
	control  map[string]any
}

// collectPlanner validates the planner section of a recommendation, removes its search
// nodes from the tree and records the planner search (finished by finishPlanner once the
// SLA is known).
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
	var policies []string
	var policyWhen *Condition
	if r.takeDomain(d, fieldPlannerPolicy.path, nil) {
		if !d.ok() {
			return
		}
		policies = domainStrings(r.Domains[len(r.Domains)-1])
		policyWhen = &Condition{Path: "planner.policy", Values: []string{PlannerEnabled}}
	} else if p, ok := m["policy"]; ok {
		policies = []string{d.asEnum(fieldPlannerPolicy.path, p, fieldPlannerPolicy.enum...)}
	} else {
		policies = []string{PlannerDisabled, PlannerEnabled}
		policyWhen = &Condition{Path: "planner.policy", Values: []string{PlannerEnabled}}
	}
	if !d.ok() {
		return
	}
	var controls []plannerControl
	for i := range plannerItems {
		c := decodePlannerControl(d, &plannerItems[i], m)
		if !d.ok() {
			return
		}
		controls = append(controls, c)
	}
	for _, it := range plannerItems {
		delete(m, it.name)
		for _, k := range it.keys {
			delete(m, k)
		}
	}
	if !contains(policies, PlannerEnabled) {
		r.Tree["planner"] = map[string]any{"policy": PlannerDisabled}
		return
	}
	if _, ok := m["policy"]; !ok && policyWhen != nil && !r.hasDomain("planner.policy") {
		r.addDefault("planner.policy", strs([]string{PlannerDisabled, PlannerEnabled}), nil)
	}
	for _, f := range []*field{&fieldMinWorkers, &fieldPrefillMinWorkers, &fieldDecodeMinWorkers} {
		r.takeDomain(d, f.path, policyWhen)
	}
	if !d.ok() {
		return
	}
	r.plannerControls = controls
	r.Planner = &PlannerSearch{PolicyWhen: policyWhen, Winners: map[int]int{}}
	if t, ok := m["target"]; ok {
		r.Planner.Target = d.asEnum(fieldPlannerTarget.path, t, fieldPlannerTarget.enum...)
		delete(m, "target")
	}
}

// domainStrings are the string choices of a choices domain.
func domainStrings(dm Domain) []string {
	var out []string
	for _, c := range dm.Choices {
		if s, ok := c.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// decodePlannerControl reads one sub-item: omitted or {preset: default} is the built-in
// list, {preset: [names or mappings]} an explicit list, {preset: false} or {preset: {}} the
// independent knobs (with load_predictor's family under load_predictor.type).
func decodePlannerControl(d *decoder, it *plannerItem, planner map[string]any) plannerControl {
	c := plannerControl{item: it}
	path := "planner." + it.name
	raw, present := planner[it.name]
	var knobs []string
	for _, k := range it.keys {
		if _, ok := planner[k]; ok && !(it.name == PlannerLoadPredictor && k == "load_predictor") {
			knobs = append(knobs, k)
		}
	}
	preset := any(PlannerDefault)
	if present {
		keys := []string{"preset"}
		if it.name == PlannerLoadPredictor {
			keys = append(keys, plannerPredictorType)
		}
		o := d.mapping(path, raw, shape{keys: keys})
		if !d.ok() {
			return c
		}
		c.control = o.m
		if p, ok := o.m["preset"]; ok {
			preset = p
		}
	}
	if it.name == PlannerLoadPredictor && !present {
		if _, ok := planner["load_predictor"]; ok {
			d.failf("planner.load_predictor", "in a recommendation load_predictor is a sub-item {preset: …}; write {preset: false, type: {choices: [...]}} to search predictor families")
			return c
		}
	}
	switch p := preset.(type) {
	case string:
		if p != PlannerDefault {
			d.failf(path+".preset", "must be default, false, {} or a list of preset names or complete mappings, got %s", describe(p))
			return c
		}
		for _, n := range it.names {
			c.entries = append(c.entries, PlannerEntry{Label: n, Show: n, Values: it.presets[n]})
		}
	case bool:
		if p {
			d.failf(path+".preset", "must be default, false, {} or a list of preset names or complete mappings, got true")
			return c
		}
		c.off = true
	case map[string]any:
		if len(p) != 0 {
			d.failf(path+".preset", "a mapping preset must be empty ({} turns the preset off); list complete mappings under preset: [...]")
			return c
		}
		c.off = true
	case []any:
		c.explicit = true
		c.entries = decodePlannerEntries(d, it, path+".preset", p)
	default:
		d.failf(path+".preset", "must be default, false, {} or a list of preset names or complete mappings, got %s", describe(p))
		return c
	}
	if !d.ok() {
		return c
	}
	if !c.off {
		if _, ok := c.control[plannerPredictorType]; ok {
			d.failf(path+"."+plannerPredictorType, "only applies with preset: false; remove it or turn the preset off")
			return c
		}
		if len(knobs) > 0 {
			d.failf(path+".preset", "cannot be combined with independent knobs %s; remove them or set %s: {preset: false}", pyList(knobs), path)
		}
		return c
	}
	c.entries = independentEntries(d, it, c.control, planner)
	return c
}

// PlannerDefault is the preset value that selects a sub-item's built-in list.
const PlannerDefault = "default"

// decodePlannerEntries reads an explicit preset list: preset names or complete mappings
// (exactly the sub-item's knobs), unique.
func decodePlannerEntries(d *decoder, it *plannerItem, path string, list []any) []PlannerEntry {
	if len(list) == 0 {
		d.failf(path, "must list at least one choice")
		return nil
	}
	var out []PlannerEntry
	seen := map[string]bool{}
	for i, e := range list {
		ep := join(path, strconv.Itoa(i))
		var entry PlannerEntry
		switch x := e.(type) {
		case string:
			vals, ok := it.presets[x]
			if !ok {
				d.failf(ep, "unknown %s preset '%s'; allowed: %s", it.name, x, pyList(it.names))
				return nil
			}
			entry = PlannerEntry{Label: x, Show: x, Values: vals}
		case map[string]any:
			var missing, unknown []string
			for _, k := range it.keys {
				if _, ok := x[k]; !ok {
					missing = append(missing, k)
				}
			}
			for _, k := range sortedKeys(x) {
				if !contains(it.keys, k) {
					unknown = append(unknown, k)
				}
			}
			if len(missing) > 0 || len(unknown) > 0 {
				d.failf(ep, "%s preset entries must cover exactly all knobs; missing=%s, unknown=%s", it.name, pyList(missing), pyList(unknown))
				return nil
			}
			vals := make([]any, len(it.keys))
			for j, k := range it.keys {
				checkPlannerKnob(d, join(ep, k), it, j, x[k])
				vals[j] = x[k]
			}
			if !d.ok() {
				return nil
			}
			entry = PlannerEntry{Label: "custom_" + strconv.Itoa(i), Show: x, Values: vals}
		default:
			d.failf(ep, "must be a preset name or a complete mapping of %s, got %s", strings.Join(it.keys, ", "), describe(e))
			return nil
		}
		key := fmt.Sprint(entry.Values)
		if seen[key] {
			d.failf(path, "choices must be unique; entry %d repeats an earlier one", i)
			return nil
		}
		seen[key] = true
		out = append(out, entry)
	}
	if it.name == PlannerScalingPolicy {
		for i, e := range out {
			checkScalingEntry(d, join(path, strconv.Itoa(i)), e)
		}
	}
	return out
}

// checkPlannerKnob validates one knob value of a sub-item (the limits of predict's planner
// section; intervals of a scaling policy may be null).
func checkPlannerKnob(d *decoder, path string, it *plannerItem, j int, v any) {
	if v == nil && it.name == PlannerScalingPolicy && j >= 2 {
		return
	}
	f := plannerKnobField(it.keys[j])
	checkFieldValue(d, path, v, f)
	if f == &fieldFPMSampleBucketSize && d.ok() {
		if n := jsonInt(v); !isPerfectSquare(n) {
			d.failf(path, "must be a perfect square (1, 4, 9, 16, 25, …), got %d", n)
		}
	}
}

// plannerKnobField is the table field (fields.go) of a planner knob a sub-item writes.
func plannerKnobField(key string) *field {
	for _, f := range fields {
		if f.path == "planner."+key {
			return f
		}
	}
	panic("spec: planner knob " + key + " is not in the field table (fields.go)")
}

// checkScalingEntry applies predict's scaling rules to an explicit scaling policy: an
// enabled mode needs its interval, and with both modes the load interval must be shorter.
func checkScalingEntry(d *decoder, path string, e PlannerEntry) {
	if !d.ok() || (!e.Throughput() && !e.Load()) {
		return
	}
	ti, li := e.ThroughputInterval(), jsonInt(e.Values[3])
	if ti == 0 || li == 0 {
		d.failf(path, "an enabled scaling policy needs both throughput_adjustment_interval_seconds and load_adjustment_interval_seconds")
		return
	}
	if e.Throughput() && e.Load() && li >= ti {
		d.failf(path, "load_adjustment_interval_seconds (%d) must be less than throughput_adjustment_interval_seconds (%d) when both scaling modes are enabled", li, ti)
	}
}

// jsonInt is an integer tree value (0 for anything else, null included).
func jsonInt(v any) int {
	n, _ := v.(json.Number)
	i, _ := strconv.Atoi(string(n))
	return i
}

// independentEntries is the product of the sub-item's knob value lists (each concrete, a
// domain, or its default list), without the combinations predict would refuse.
func independentEntries(d *decoder, it *plannerItem, control, planner map[string]any) []PlannerEntry {
	lists := make([][]any, len(it.keys))
	for j, k := range it.keys {
		path := "planner." + k
		raw, ok := planner[k]
		if it.name == PlannerLoadPredictor && k == "load_predictor" {
			path = "planner." + PlannerLoadPredictor + "." + plannerPredictorType
			raw, ok = control[plannerPredictorType]
		}
		switch {
		case !ok:
			lists[j] = it.defaults[j]
		case isDomainNode(raw):
			lists[j] = plannerKnobDomain(d, path, it, j, raw.(map[string]any))
		default:
			checkPlannerKnob(d, path, it, j, raw)
			lists[j] = []any{raw}
		}
		if !d.ok() {
			return nil
		}
	}
	var out []PlannerEntry
	idx := make([]int, len(lists))
	for {
		vals := make([]any, len(lists))
		show := map[string]any{}
		for j, i := range idx {
			vals[j] = lists[j][i]
			show[it.keys[j]] = lists[j][i]
		}
		e := PlannerEntry{Label: "custom_" + strconv.Itoa(len(out)), Show: show, Values: vals}
		if independentValid(it, e) {
			out = append(out, e)
		}
		j := len(idx) - 1
		for ; j >= 0; j-- {
			idx[j]++
			if idx[j] < len(lists[j]) {
				break
			}
			idx[j] = 0
		}
		if j < 0 {
			break
		}
	}
	if len(out) == 0 {
		d.failf("planner."+it.name, "no combination of the independent %s knobs is valid (with load scaling the load interval must be below the throughput interval; bucket sizes must be perfect squares)", it.name)
	}
	return out
}

// independentValid drops the independent combinations predict would refuse.
func independentValid(it *plannerItem, e PlannerEntry) bool {
	switch it.name {
	case PlannerScalingPolicy:
		return !e.Load() || jsonInt(e.Values[3]) < e.ThroughputInterval()
	case PlannerFPMSampling:
		return isPerfectSquare(jsonInt(e.Values[1]))
	}
	return true
}

// plannerKnobDomain expands a {choices} or stepped {range} domain of an independent knob.
func plannerKnobDomain(d *decoder, path string, it *plannerItem, j int, m map[string]any) []any {
	if raw, ok := m[DomainChoices]; ok && len(m) == 1 {
		list, isList := raw.([]any)
		if !isList || len(list) == 0 {
			d.failf(join(path, DomainChoices), "must be a non-empty list of values, got %s", describe(raw))
			return nil
		}
		seen := map[string]bool{}
		for i, v := range list {
			checkPlannerKnob(d, join(join(path, DomainChoices), strconv.Itoa(i)), it, j, v)
			if seen[describe(v)] {
				d.failf(join(path, DomainChoices), "choices must be unique; %s appears twice", describe(v))
			}
			seen[describe(v)] = true
			if !d.ok() {
				return nil
			}
		}
		return list
	}
	knob := *plannerKnobField(it.keys[j])
	if knob.kind == fieldBool || knob.kind == fieldEnum {
		d.failf(path, "a domain of this knob is {choices: [...]}")
		return nil
	}
	// A range's bounds must be positive; its values then meet the knob's own limits
	// (checkPlannerKnob below).
	knob.lims = []limit{gt(0)}
	dom := decodeDomain(d, path, m, &knob)
	if !d.ok() {
		return nil
	}
	if dom.Kind != DomainChoices {
		d.failf(join(path, DomainRange), "an independent planner knob needs a stepped linear range (step), or {choices: [...]}")
		return nil
	}
	for i, v := range dom.Choices {
		checkPlannerKnob(d, join(path, strconv.Itoa(i)), it, j, v)
	}
	return dom.Choices
}

// finishPlanner filters the scaling policies the planner target cannot use and builds the
// groups (docs/recommend.md, "Planner search"); it runs once the SLA is known.
func (r *Recommendation) finishPlanner(d *decoder) {
	ps := r.Planner
	if ps == nil {
		return
	}
	if ps.Target == "" {
		ps.Target = plannerTarget(r.Objectives())
	}
	sc := r.plannerControls[0]
	ttftITL := r.SLA != nil && r.SLA.TTFTMs != nil && r.SLA.ITLMs != nil
	var kept, dropped []PlannerEntry
	for _, e := range sc.entries {
		if e.Throughput() && (ps.Target != TargetSLA || !ttftITL) {
			dropped = append(dropped, e)
			continue
		}
		kept = append(kept, e)
	}
	if len(dropped) > 0 && sc.explicit {
		var labels []string
		for _, e := range dropped {
			labels = append(labels, e.Label)
		}
		d.failf("planner.scaling_policy.preset", "%s enable throughput scaling, which needs the planner target sla (a goodput optimization.target) and evaluation.sla.ttft_ms with itl_ms; remove them or change the target",
			pyList(labels))
		return
	}
	if len(kept) == 0 {
		d.failf("planner.scaling_policy", "every scaling policy enables throughput scaling, which needs the planner target sla (a goodput optimization.target) and evaluation.sla.ttft_ms with itl_ms; add a load-scaling policy")
		return
	}
	ps.Groups = append(ps.Groups, PlannerGroup{Item: PlannerScalingPolicy, Keys: sc.item.keys, Entries: kept})
	throughput, load := false, false
	intervals := map[int]bool{}
	for _, e := range kept {
		throughput = throughput || e.Throughput()
		load = load || e.Load()
		if e.Throughput() {
			intervals[e.ThroughputInterval()] = true
		}
	}
	if throughput {
		c := r.plannerControls[1]
		ps.Groups = append(ps.Groups, PlannerGroup{Item: c.item.name, Keys: c.item.keys, Entries: c.entries, Needs: PlannerNeedsThroughput})
		ps.Predictors = r.plannerControls[3].entries
	}
	if load {
		c := r.plannerControls[2]
		ps.Groups = append(ps.Groups, PlannerGroup{Item: c.item.name, Keys: c.item.keys, Entries: c.entries, Needs: PlannerNeedsLoad})
	}
	for i := range intervals {
		ps.Intervals = append(ps.Intervals, i)
	}
	sort.Ints(ps.Intervals)
}

// applyPlanner completes the planner section of a candidate tree whose planner search
// values are written (docs/recommend.md, "Planner search"): a disabled policy, or an enabled
// one whose scaling policy enables no mode, is {policy: disabled}; an enabled one gets the
// planner target and, with throughput scaling, the winning load predictor of its interval.
func (r *Recommendation) applyPlanner(t map[string]any) {
	ps := r.Planner
	pm, ok := t["planner"].(map[string]any)
	if ps == nil || !ok {
		return
	}
	enabled := pm["policy"] == PlannerEnabled
	if enabled {
		te, _ := pm["enable_throughput_scaling"].(bool)
		le, _ := pm["enable_load_scaling"].(bool)
		enabled = te || le
	}
	if !enabled {
		t["planner"] = map[string]any{"policy": PlannerDisabled}
		return
	}
	pm["target"] = ps.Target
	for k, v := range pm {
		if v == nil {
			delete(pm, k)
		}
	}
	if pm["enable_throughput_scaling"] != true {
		return
	}
	interval := jsonInt(pm["throughput_adjustment_interval_seconds"])
	win, ok := ps.Winners[interval]
	if !ok || win >= len(ps.Predictors) {
		win = ps.fallbackPredictor()
	}
	vals := lookupPlannerItem(PlannerLoadPredictor).presets["constant_last"]
	if win >= 0 {
		vals = ps.Predictors[win].Values
	}
	for j, k := range PredictorKeys() {
		switch {
		case j < 2:
		case vals[0] == "prophet" && k == "prophet_window_size":
		case vals[0] == "kalman" && strings.HasPrefix(k, "kalman_"):
		default:
			continue
		}
		pm[k] = vals[j]
	}
}

// SampleConfig is the prediction configuration of the recommendation's first candidate (the
// first mode, the first value of every domain), decoded: what a target reads the concrete
// parts from (the traffic source of the planner's predictor pre-sweep).
func (r *Recommendation) SampleConfig() (*Config, error) {
	paths, values := r.firstValues(r.Modes[0])
	cfg, err := decodeRoot(r.Candidate(paths, values))
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// fallbackPredictor is the load-predictor candidate an interval without a pre-sweep winner
// (no trace, an agentic graph, no window scored) uses: constant_last when it is a
// candidate, as the reference does, else the first candidate, so an explicit list without
// it — a one-entry list such as [arima_raw] above all — is honoured (docs/recommend.md,
// "Planner search"); −1 (constant_last) when there are no candidates.
func (ps *PlannerSearch) fallbackPredictor() int {
	for i, e := range ps.Predictors {
		if e.Label == "constant_last" {
			return i
		}
	}
	if len(ps.Predictors) > 0 {
		return 0
	}
	return -1
}
