package recommend

import (
	"fmt"
	"strings"

	"aisimulate/simcore/spec"
)

// parallelismLabels are the parallelism knobs a deployment summary shows when they are not 1,
// with their short names (tensor is always shown, as TPn).
var parallelismLabels = []struct{ key, label string }{
	{"pipeline", "PP"}, {"attention_data", "DP"}, {"moe_tensor", "MoE-TP"}, {"moe_expert", "EP"}}

// DeploymentSummary is a candidate's deployment in one line: mode, backend, hardware and each
// role's replicas × parallelism (TP, plus PP/DP/MoE splits other than 1, and the role's own
// hardware when it differs), e.g. "disaggregated · vllm · h200_sxm · prefill 2× TP1 ·
// decode 1× TP2 EP2". The terminal table, the browser's Recommend view and its chart
// tooltips all show this line (the browser adds the GPUs).
func DeploymentSummary(tree map[string]any) string {
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
	hardware := get("engine.hardware")
	parts := []string{mode, get("engine.backend"), hardware}
	for _, role := range spec.RolesOf(mode) {
		par := func(k string) string { return get(spec.WorkerPath(role, "parallelism."+k)) }
		s := par("replicas") + "× TP" + par("tensor")
		for _, k := range parallelismLabels {
			if x := par(k.key); x != "" && x != "1" {
				s += " " + k.label + x
			}
		}
		if h := get(spec.WorkerPath(role, "hardware")); h != "" && h != hardware {
			s += " on " + h
		}
		if role != spec.RoleAggregated {
			s = role + " " + s
		}
		parts = append(parts, s)
	}
	out := parts[:0]
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}
