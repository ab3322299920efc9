package spec

// Concrete candidates of a recommendation: the predict configuration of one point, its GPUs,
// and the up-front check of the concrete part of the configuration.

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// RolesOf are the worker roles of a mode: aggregated, or prefill and decode.
func RolesOf(mode string) []string {
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

// Candidate builds one concrete configuration tree: the concrete tree with values written at
// the given paths (whole mappings for parallelism), the roles of the candidate's mode kept and
// the others removed (engine.kv_transfer too on an aggregated candidate), its backend's
// entry of a per-backend backend_version, and when its policy is round_robin the KV-router knobs removed and the
// load model written as the reference echoes it, `prefill_load_model: {type: none}`. The
// result is a predict configuration.
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
	if r.backendVersions != nil {
		b, _ := getPath(t, "engine.backend")
		if v, ok := r.backendVersions[fmt.Sprint(b)]; ok {
			setPath(t, "engine.backend_version", v)
		}
	}
	// engine.kv_transfer belongs to the disaggregated candidates of a mode domain, as their
	// roles do (docs/recommend.md, "Domains"); with aggregated candidates only, predict's
	// rule refuses it.
	if mode == ModeAggregated && contains(r.Modes, ModeDisaggregated) {
		deletePath(t, "engine.kv_transfer")
	}
	if w, ok := getPath(t, "engine.workers"); ok {
		if wm, isMap := w.(map[string]any); isMap {
			for _, role := range []string{RoleAggregated, RolePrefill, RoleDecode} {
				if !contains(RolesOf(mode), role) {
					delete(wm, role)
				}
			}
		}
	}
	if p, ok := getPath(t, "router.policy"); ok && p == RouterRoundRobin {
		setPath(t, "router.prefill_load_model", map[string]any{"type": LoadModelNone})
		for _, k := range routerNumerics {
			deletePath(t, "router."+k)
		}
	}
	r.applyPlanner(t)
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

// ParallelismTree is the YAML mapping of a complete parallelism shape.
func ParallelismTree(p Parallelism) map[string]any {
	n := func(i int) any { return json.Number(strconv.Itoa(i)) }
	return map[string]any{"replicas": n(p.Replicas), "tensor": n(p.Tensor), "pipeline": n(p.Pipeline),
		"attention_data": n(p.AttentionData), "moe_tensor": n(p.MoeTensor), "moe_expert": n(p.MoeExpert)}
}

// UsedGPUs is Σ over the candidate's roles of replicas × tensor × pipeline × attention_data
// (docs/recommend.md, "Scoring and ranking"; MoE knobs add no GPUs); unset knobs count 1.
func UsedGPUs(tree map[string]any) int {
	mode := ModeAggregated
	if m, ok := getPath(tree, "engine.mode"); ok {
		if s, isStr := m.(string); isStr {
			mode = s
		}
	}
	total := 0
	for _, role := range RolesOf(mode) {
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
		paths, values := r.firstValues(mode)
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

// firstValues are the paths and values of the candidate of one mode with the first value of
// every domain (the explicit parallelism presets' first shapes included).
func (r *Recommendation) firstValues(mode string) (paths []string, values []any) {
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
	if r.Planner != nil {
		for _, g := range r.Planner.Groups {
			for j, k := range g.Keys {
				paths = append(paths, "planner."+k)
				values = append(values, g.Entries[0].Values[j])
			}
		}
	}
	for _, ps := range r.Parallelism {
		if ps.Ladder || len(ps.Presets) == 0 {
			continue
		}
		paths = append(paths, "engine.workers."+ps.Role+".parallelism")
		values = append(values, ParallelismTree(ps.Presets[0]))
	}
	return paths, values
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
