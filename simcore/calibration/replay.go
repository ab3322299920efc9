package calibration

import (
	"encoding/json"
	"fmt"
	"strconv"

	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// MaxReplayRequests bounds the requests one measurement's replay simulates (a benchmark of
// more requests is replayed with this many: the means settle long before).
const MaxReplayRequests = 20_000

// replayRequestsPerSlot is how many requests a closed loop replays per concurrency slot when
// the measurement does not record its request count (the measured-runs CSV): ten waves, as
// the accuracy harness replays the CSV (docs/timing.md, "Fit").
const replayRequestsPerSlot = 10

// ReplayRequests is the number of requests the replay of m simulates: the measured count
// when recorded, else ten per concurrency slot (an open loop without a count: 1000), at
// most MaxReplayRequests and at least the concurrency.
func ReplayRequests(m *measure.Measurement) int {
	n := m.Requests
	if n == 0 {
		n = replayRequestsPerSlot * m.Concurrency
		if m.Concurrency == 0 {
			n = 1000
		}
	}
	return min(max(n, m.Concurrency), MaxReplayRequests)
}

// The replay's stopping rule (replay.StopRule, docs/calibration.md, "Stopping a replay
// early"): a warm-up window of one wave (the concurrency), then windows of
// min(concurrency, StopWindowMax) completions, at least StopMinWindows windows in all (the
// warm-up, then two to compare), settled when two consecutive windows' mean TTFT and TPOT
// agree within StopTolerance.
const (
	StopMinWindows = 3
	StopTolerance  = 0.01
	StopWindowMax  = 1024
)

// Traffic is the traffic section that replays m's workload (docs/calibration.md,
// "Replaying a measurement"): synthetic requests of its mean ISL and OSL (with its client's
// length draw, the lengths the draw is around: m.DrawLengths), its closed-loop concurrency or
// Poisson rate, and ReplayRequests of them.
func Traffic(m *measure.Measurement) map[string]any {
	load := map[string]any{"type": spec.LoadConcurrency, "concurrency": integer(m.Concurrency)}
	if m.Concurrency == 0 {
		load = map[string]any{"type": spec.LoadPoisson, "requests_per_second": json.Number(strconv.FormatFloat(m.RequestRate, 'g', -1, 64))}
	}
	isl, osl := m.DrawLengths()
	source := map[string]any{"type": spec.SourceSynthetic, "input_tokens": integer(isl), "output_tokens": integer(osl)}
	if !m.Lengths.Constant() {
		source["lengths"] = m.Lengths.Tree()
	}
	return map[string]any{
		"source": source,
		"load":   load,
		"stop":   map[string]any{"requests": integer(ReplayRequests(m))},
	}
}

// TrafficSets are the --set assignments that give a deployment configuration m's workload.
func TrafficSets(m *measure.Measurement) []string {
	t := Traffic(m)
	var out []string
	for _, k := range []string{"source", "load", "stop"} {
		out = append(out, "traffic."+k+"="+flow(t[k].(map[string]any)))
	}
	return out
}

// flow writes a mapping of the traffic section as YAML flow text, its keys in the order
// trafficKeys lists them (a nested mapping, the source's lengths, likewise).
func flow(m map[string]any) string {
	s := "{"
	for _, k := range trafficKeys {
		if v, ok := m[k]; ok {
			if len(s) > 1 {
				s += ", "
			}
			if sub, ok := v.(map[string]any); ok {
				v = flow(sub)
			}
			s += fmt.Sprintf("%s: %v", k, v)
		}
	}
	return s + "}"
}

// trafficKeys are the keys Traffic writes, those of the lengths mapping among them.
var trafficKeys = []string{"type", "input_tokens", "output_tokens", "lengths", "distribution", "min_ratio", "max_ratio",
	"input_stddev_ratio", "output_stddev_ratio", "concurrency", "requests_per_second", "requests"}

// RowConfig is the prediction configuration of a measured-runs CSV row: the deployment as
// the row records it (sizes it leaves empty are 1; a disaggregated row without worker counts
// gets one worker per role), default timing and capacity, prefix caching off, room for
// every request in flight and the measuring recipe's SGLang receive interval
// (RecipeRecvInterval), under the row's workload (Traffic). Changing its
// traffic.load.concurrency predicts the same deployment at another load.
func RowConfig(m *measure.Measurement) map[string]any {
	r := m.Row
	engine := map[string]any{"model": r.Model, "hardware": r.System, "backend": r.Backend}
	if r.BackendVersion != "" {
		engine["backend_version"] = r.BackendVersion
	}
	if r.GemmQuant != "" {
		engine["gemm_quant_mode"] = r.GemmQuant
	}
	if r.MoEQuant != "" {
		engine["moe_quant_mode"] = r.MoEQuant
	}
	workers := map[string]any{}
	role := func(name string, ro measure.Role) {
		p := ro.Par
		n := max(ro.Workers, 1)
		dp := max(p.AttentionData, 1)
		scheduler := map[string]any{"max_sequences": integer(max(256, (r.Concurrency+dp*n-1)/(dp*n)))}
		if k := RecipeRecvInterval(m); k > 0 {
			scheduler["recv_interval"] = integer(k)
		}
		workers[name] = map[string]any{
			"parallelism": map[string]any{"replicas": integer(n), "tensor": integer(max(p.Tensor, 1)), "pipeline": integer(max(p.Pipeline, 1)),
				"attention_data": integer(dp), "moe_tensor": integer(max(p.MoeTensor, 1)), "moe_expert": integer(max(p.MoeExpert, 1))},
			"scheduler": scheduler,
			"kv_cache":  map[string]any{"prefix_caching": false},
		}
	}
	if r.Mode == measure.ModeDisagg {
		engine["mode"] = spec.ModeDisaggregated
		role(spec.RolePrefill, r.Prefill)
		role(spec.RoleDecode, r.Decode)
	} else {
		engine["mode"] = spec.ModeAggregated
		role(spec.RoleAggregated, r.Agg)
	}
	engine["workers"] = workers
	return map[string]any{"engine": engine, "traffic": Traffic(m)}
}

// integer is a whole number as a configuration tree holds it (spec.EmitYAML).
func integer(n int) json.Number { return json.Number(strconv.Itoa(n)) }
