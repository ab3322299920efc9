package spec

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// recYAML is a small valid recommendation: the default mode/backend/ladder/scheduler domains.
const recYAML = `
traffic:
  source: {type: synthetic, input_tokens: 128, output_tokens: 8}
  load: {type: concurrency, concurrency: 4}
  stop: {requests: 8}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers: {aggregated: {}, prefill: {}, decode: {}}
optimization: {target: throughput}
`

// aggRecYAML searches an aggregated deployment only.
const aggRecYAML = `
engine:
  mode: aggregated
  backend: vllm
  model: m
  hardware: h200_sxm
  workers: {aggregated: {scheduler: {max_batched_tokens: 8192, max_sequences: 256}}}
optimization: {}
`

func loadRec(t *testing.T, text string, sets ...string) *Recommendation {
	t.Helper()
	r, err := LoadRecommendation([]byte(text), sets)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return r
}

// Each rejection names its exact path and reason.
func TestRecommendationRejections(t *testing.T) {
	cases := []struct {
		name, yaml string
		sets       []string
		path, msg  string
	}{
		{"no optimization", aggYAML, nil, "optimization", "required section is missing; add optimization: {target: throughput} (targets: throughput, throughput_per_gpu, throughput_per_user, goodput, goodput_per_gpu, ttft, e2e_latency, min_gpus, cost_per_million_tokens, cost_per_million_good_tokens, pareto)"},
		{"bad target", aggRecYAML, []string{"optimization.target=fastest"}, "optimization.target", "must be one of throughput, throughput_per_gpu, throughput_per_user, goodput, goodput_per_gpu, ttft, e2e_latency, min_gpus, cost_per_million_tokens, cost_per_million_good_tokens, pareto; got string \"fastest\""},
		{"auto hardware without optimization.hardware", aggRecYAML, []string{"engine.hardware=auto"}, "engine.hardware", "'auto' needs optimization.hardware; add optimization: {hardware: <system id such as h200_sxm>} or {hardware: {choices: [h100_sxm, h200_sxm]}}"},
		{"optimization.hardware auto", aggRecYAML, []string{"optimization.hardware=auto"}, "optimization.hardware", "must be one concrete system id such as h200_sxm, or {choices: [h100_sxm, h200_sxm]}, not 'auto'"},
		{"hardware choices without auto", aggRecYAML, []string{"optimization.hardware={choices: [h100_sxm]}"}, "optimization.hardware", "a domain of systems needs engine.hardware: auto"},
		{"hardware choices listed twice", aggRecYAML, []string{"engine.hardware=auto", "optimization.hardware={choices: [h100_sxm, h100_sxm]}"}, "optimization.hardware.choices[1]", "h100_sxm is listed twice; list each system once"},
		{"hardware choices empty", aggRecYAML, []string{"engine.hardware=auto", "optimization.hardware={choices: []}"}, "optimization.hardware.choices", "must be a non-empty list of system ids such as [h100_sxm, h200_sxm]"},
		{"cost target without prices", aggRecYAML, []string{"optimization.target=cost_per_million_tokens"}, "optimization.gpu_hour_cost", "optimization.target cost_per_million_tokens needs GPU prices: add optimization: {gpu_hour_cost: {<system id>: <USD per GPU-hour>}}"},
		{"price missing", aggRecYAML, []string{"engine.hardware=auto", "optimization.hardware={choices: [h100_sxm, h200_sxm]}", "optimization.gpu_hour_cost={h100_sxm: 2.9}"}, "optimization.gpu_hour_cost", "no price for h200_sxm, which candidates run on; add h200_sxm: <USD per GPU-hour>"},
		{"price not positive", aggRecYAML, []string{"optimization.gpu_hour_cost={h200_sxm: 0}"}, "optimization.gpu_hour_cost.h200_sxm", "must be greater than 0, got 0"},
		{"good cost without a complete SLA", aggRecYAML, []string{"optimization.target=cost_per_million_good_tokens", "optimization.gpu_hour_cost={h200_sxm: 3}"}, "evaluation.sla", "optimization.target cost_per_million_good_tokens needs a complete SLA: add evaluation: {sla: {ttft_ms: <ms>, itl_ms: <ms>}} or {sla: {e2e_ms: <ms>}}"},
		{"min above max", aggRecYAML, []string{"optimization.constraints={min_candidate_gpus: 9, max_candidate_gpus: 8}"}, "optimization.constraints.min_candidate_gpus", "must be at most max_candidate_gpus (8), got 9"},
		{"min_goodput_rps needs min_gpus", aggRecYAML, []string{"optimization.constraints={min_goodput_rps: 1.0}"}, "optimization.constraints.min_goodput_rps", "only applies to optimization.target: min_gpus; remove it or change the target"},
		{"goodput needs complete SLA", aggRecYAML, []string{"optimization.target=goodput"}, "evaluation.sla", "optimization.target goodput needs a complete SLA: add evaluation: {sla: {ttft_ms: <ms>, itl_ms: <ms>}} or {sla: {e2e_ms: <ms>}}"},
		{"strict_sla needs a bound", aggRecYAML, []string{"optimization.strict_sla=true"}, "optimization.strict_sla", "needs at least one bound in evaluation.sla (ttft_ms, itl_ms or e2e_ms)"},
		{"optimizer algorithm", aggRecYAML, []string{"optimizer.algorithm=grid"}, "optimizer.algorithm", "must be one of screened, bayesian, random; got string \"grid\""},
		{"optimizer max_trials", aggRecYAML, []string{"optimizer.max_trials=0"}, "optimizer.max_trials", "must be greater than 0, got 0"},
		{"optimizer unknown key", aggRecYAML, []string{"optimizer.budget=3"}, "optimizer", "unknown key \"budget\"; allowed keys: algorithm, candidate_timeout_seconds, max_trials, parallelism, seed"},
		{"domain on model", aggRecYAML, []string{"engine.model={choices: [a, b]}"}, "engine.model", "a domain is not allowed here; searchable fields are engine.mode, engine.backend, engine.hardware: auto, worker parallelism, scheduler, kv_cache.block_size and capacity.memory_fraction, traffic.load numerics, router knobs and planner policy/min workers/sub-items; write a concrete value"},
		{"domain on stop", aggRecYAML, []string{"traffic={source: {type: synthetic}, load: {type: concurrency}, stop: {requests: {choices: [1, 2]}}}"}, "traffic.stop.requests", "a domain is not allowed here; searchable fields are engine.mode, engine.backend, engine.hardware: auto, worker parallelism, scheduler, kv_cache.block_size and capacity.memory_fraction, traffic.load numerics, router knobs and planner policy/min workers/sub-items; write a concrete value"},
		{"domain with two kinds", aggRecYAML, []string{"engine.backend={choices: [vllm], range: {min: 1, max: 2}}"}, "engine.backend", "a domain is exactly one of {choices: [...]} or {range: {min, max, step, scale}}, got keys ['choices', 'range']"},
		{"bare list", aggRecYAML, []string{"engine.backend=[vllm, sglang]"}, "engine.backend", "must be one of vllm, sglang, trtllm; got a list"},
		{"empty choices", aggRecYAML, []string{"engine.backend={choices: []}"}, "engine.backend.choices", "must list at least one value"},
		{"duplicate choices", aggRecYAML, []string{"engine.backend={choices: [vllm, vllm]}"}, "engine.backend.choices", "choices must be unique; string \"vllm\" appears twice"},
		{"bad choice", aggRecYAML, []string{"engine.backend={choices: [vllm, tgi]}"}, "engine.backend.choices.1", "must be one of vllm, sglang, trtllm; got string \"tgi\""},
		{"int choice", aggRecYAML, []string{"engine.workers.aggregated.scheduler.max_sequences={choices: [8, 2.0]}"}, "engine.workers.aggregated.scheduler.max_sequences.choices.1", "must be an integer, got 2.0"},
		{"range on enum", aggRecYAML, []string{"engine.backend={range: {min: 1, max: 2}}"}, "engine.backend.range", "a range needs a numeric field; use {choices: [vllm, sglang, trtllm]}"},
		{"range min > max", aggRecYAML, []string{"engine.workers.aggregated.kv_cache.capacity.memory_fraction={range: {min: 0.9, max: 0.5}}"}, "engine.workers.aggregated.kv_cache.capacity.memory_fraction.range.max", "must be at least min (0.9), got 0.5"},
		{"range above the field limit", aggRecYAML, []string{"engine.workers.aggregated.kv_cache.capacity.memory_fraction={range: {min: 0.5, max: 1.5}}"}, "engine.workers.aggregated.kv_cache.capacity.memory_fraction.range.max", "must be at most 1, got 1.5"},
		{"int linear range needs step", aggRecYAML, []string{"engine.workers.aggregated.scheduler.max_sequences={range: {min: 8, max: 64}}"}, "engine.workers.aggregated.scheduler.max_sequences.range", "an integer field's linear range requires a step (for example step: 1)"},
		{"log range rejects step", aggRecYAML, []string{"engine.workers.aggregated.scheduler.max_sequences={range: {min: 8, max: 64, step: 8, scale: log}}"}, "engine.workers.aggregated.scheduler.max_sequences.range.step", "a log-scale range takes no step; remove it or use scale: linear"},
		{"log range min > 0", aggRecYAML, []string{"router={policy: kv_router, temperature: {range: {min: 0.0, max: 1.0, scale: log}}}"}, "router.temperature.range.min", "must be greater than 0 for a log-scale range, got 0.0"},
		{"load range min > 0", aggRecYAML, []string{"traffic={source: {type: synthetic-session, session: {turns: 2}}, load: {type: poisson, sessions_per_second: {range: {min: 0, max: 2}}}, stop: {sessions: 4}}"}, "traffic.load.sessions_per_second.range.min", "must be greater than 0, got 0"},
		{"range missing max", aggRecYAML, []string{"traffic.load={type: concurrency, concurrency: {range: {min: 1, step: 1}}}"}, "traffic.load.concurrency.range", "missing required key \"max\""},
		{"zero step", aggRecYAML, []string{"traffic.load={type: concurrency, concurrency: {range: {min: 1, max: 4, step: 0}}}"}, "traffic.load.concurrency.range.step", "must be greater than 0, got 0"},
		{"preset entry incomplete", aggRecYAML, []string{"engine.workers.aggregated.parallelism={preset: [{tensor: 2, replicas: 1, speed: 3}]}"}, "engine.workers.aggregated.parallelism.preset.0", "parallelism preset entries must cover exactly all knobs; missing=['pipeline', 'attention_data', 'moe_tensor', 'moe_expert'], unknown=['speed']"},
		{"preset with knobs", aggRecYAML, []string{"engine.workers.aggregated.parallelism={preset: default, tensor: {choices: [1, 2]}}"}, "engine.workers.aggregated.parallelism.preset", "an active preset cannot be combined with independent knobs ['tensor']; set preset: false to search the knobs"},
		{"preset true", aggRecYAML, []string{"engine.workers.aggregated.parallelism={preset: true}"}, "engine.workers.aggregated.parallelism.preset", "must be default, false, {} or a list of complete parallelism mappings, got true"},
		{"preset elsewhere", aggRecYAML, []string{"engine.workers.aggregated.scheduler={preset: default}"}, "engine.workers.aggregated.scheduler.preset", "presets are only allowed in engine.workers.<role>.parallelism"},
		{"missing role for a mode", aggRecYAML, []string{"engine.mode={choices: [aggregated, disaggregated]}"}, "engine.workers", "candidates of mode disaggregated need workers.prefill; add prefill: {} to search its defaults"},
		{"unused role", aggRecYAML, []string{"engine.workers.decode={}"}, "engine.workers.decode", "no candidate mode (aggregated) uses the decode role; remove it or add its mode to engine.mode"},
		{"router knob domain with round_robin", aggRecYAML, []string{"router={policy: round_robin, temperature: {choices: [0.0, 1.0]}}"}, "router.temperature", "a domain here needs kv_router in router.policy; round_robin takes no router knobs"},
		{"router load model without none", aggRecYAML, []string{"router={policy: {choices: [round_robin, kv_router]}, prefill_load_model: {type: {choices: [aic]}}}"}, "router.prefill_load_model.type.choices", "must contain 'none' when router.policy may be round_robin"},
		{"concrete aic load model with round_robin allowed", aggRecYAML, []string{"router={policy: {choices: [round_robin, kv_router]}, prefill_load_model: {type: aic}}"}, "router.prefill_load_model.type", "'aic' is incompatible with router.policy='round_robin', which the search includes; use type: none, a domain containing none, or policy: kv_router"},
		{"concrete aic load model with round_robin", aggRecYAML, []string{"router={policy: round_robin, prefill_load_model: {type: aic}}"}, "router.prefill_load_model.type", "'aic' is incompatible with router.policy='round_robin', which the search includes; use type: none, a domain containing none, or policy: kv_router"},
		{"aggregated-only trace with a disaggregated mode", recYAML, []string{"traffic={source: {type: trace, format: mooncake-delta, paths: [t.jsonl]}, load: {type: concurrency, concurrency: 2}}"}, "engine.mode", "trace format 'mooncake-delta' requires engine.mode: aggregated, but the search includes disaggregated candidates (engine.mode defaults to both in recommend); set engine.mode: aggregated"},
		{"agentic trace with a mode domain", recYAML, []string{"traffic={source: {type: trace, format: agentic_mooncake, paths: [t.jsonl]}, load: {type: trace_timestamps}}", "engine.mode={choices: [disaggregated, aggregated]}"}, "engine.mode", "trace format 'agentic_mooncake' requires engine.mode: aggregated, but the search includes disaggregated candidates (engine.mode defaults to both in recommend); set engine.mode: aggregated"},
		{"planner-free trace with a searchable planner", aggRecYAML, []string{"traffic={source: {type: trace, format: mooncake-delta, paths: [t.jsonl]}, load: {type: concurrency, concurrency: 2}}", "planner={policy: {choices: [disabled, enabled]}, scaling_policy: {preset: [load_180_5]}}"}, "planner.policy", "mooncake-delta requires planner.policy=disabled, but the search may enable the planner (planner.policy defaults to both in recommend); set planner.policy: disabled or remove the planner section"},
		{"throughput scaling without a goodput target", aggRecYAML, []string{"planner={policy: enabled, scaling_policy: {preset: [load_180_5, throughput_180_5]}}"}, "planner.scaling_policy.preset", "['throughput_180_5'] enable throughput scaling, which needs the planner target sla (a goodput optimization.target) and evaluation.sla.ttft_ms with itl_ms; remove them or change the target"},
		{"throughput scaling with an e2e SLA", aggRecYAML, []string{"optimization.target=goodput", "evaluation={sla: {e2e_ms: 100}}", "planner={scaling_policy: {preset: [hybrid_600_5]}}"}, "planner.scaling_policy.preset", "['hybrid_600_5'] enable throughput scaling, which needs the planner target sla (a goodput optimization.target) and evaluation.sla.ttft_ms with itl_ms; remove them or change the target"},
		{"only throughput policies", aggRecYAML, []string{"planner={policy: enabled, scaling_policy: {preset: false}, enable_throughput_scaling: true, enable_load_scaling: false}"}, "planner.scaling_policy", "every scaling policy enables throughput scaling, which needs the planner target sla (a goodput optimization.target) and evaluation.sla.ttft_ms with itl_ms; add a load-scaling policy"},
		{"unknown preset name", aggRecYAML, []string{"planner={policy: enabled, fpm_sampling: {preset: [small, huge]}}"}, "planner.fpm_sampling.preset.1", "unknown fpm_sampling preset 'huge'; allowed: ['small', 'default', 'large', 'fine']"},
		{"incomplete preset mapping", aggRecYAML, []string{"planner={policy: enabled, load_sensitivity: {preset: [{load_scaling_down_sensitivity: 70, x: 1}]}}"}, "planner.load_sensitivity.preset.0", "load_sensitivity preset entries must cover exactly all knobs; missing=['load_min_observations'], unknown=['x']"},
		{"knob with an active preset", aggRecYAML, []string{"planner={policy: enabled, enable_load_scaling: true, max_num_fpm_samples: 32}"}, "planner.scaling_policy.preset", "cannot be combined with independent knobs ['enable_load_scaling']; remove them or set planner.scaling_policy: {preset: false}"},
		{"preset true", aggRecYAML, []string{"planner={policy: enabled, load_sensitivity: {preset: true}}"}, "planner.load_sensitivity.preset", "must be default, false, {} or a list of preset names or complete mappings, got true"},
		{"predictor type with a preset", aggRecYAML, []string{"planner={policy: enabled, load_predictor: {preset: default, type: {choices: [arima]}}}"}, "planner.load_predictor.type", "only applies with preset: false; remove it or turn the preset off"},
		{"bad custom scaling mapping", aggRecYAML, []string{"planner={policy: enabled, scaling_policy: {preset: [{enable_throughput_scaling: true, enable_load_scaling: true, throughput_adjustment_interval_seconds: 5, load_adjustment_interval_seconds: 5}]}}"}, "planner.scaling_policy.preset.0", "load_adjustment_interval_seconds (5) must be less than throughput_adjustment_interval_seconds (5) when both scaling modes are enabled"},
		{"bucket not a square", aggRecYAML, []string{"planner={policy: enabled, fpm_sampling: {preset: [{max_num_fpm_samples: 32, fpm_sample_bucket_size: 5}]}}"}, "planner.fpm_sampling.preset.0.fpm_sample_bucket_size", "must be a perfect square (1, 4, 9, 16, 25, …), got 5"},
		{"backend_version key", aggRecYAML, []string{"engine.backend_version={vllm: current, tgi: 1.0}"}, "engine.backend_version.tgi", `a per-backend backend_version takes the keys vllm, sglang, trtllm; got "tgi"`},
		{"backend_version value", aggRecYAML, []string{"engine.backend_version={vllm: [1]}"}, "engine.backend_version.vllm", "must be a string, got a list"},
		{"kv_capacity_fraction range at 0", aggRecYAML, []string{"traffic={source: {type: synthetic}, load: {type: kv_capacity_fraction, fraction: {range: {min: 0, max: 1}}}, stop: {requests: 4}}"}, "traffic.load.fraction.range.min", "must be greater than 0, got 0"},
		{"concrete part still validated", aggRecYAML, []string{"traffic={source: {type: synthetic}, load: {type: concurrency, concurrency: {choices: [1, 2]}}, stop: {requests: 0}}"}, "traffic.stop.requests", "must be greater than 0, got 0"},
		{"set crosses a non-mapping", aggRecYAML, []string{"optimization.target=ttft", "optimization.target.x=1"}, "", "--set path 'optimization.target.x' crosses a non-mapping value (target is string \"ttft\"); replace that value as a whole instead"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadRecommendation([]byte(c.yaml), c.sets)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("got %v, want %s: %s", err, c.path, c.msg)
			}
			if se.Path != c.path || se.Msg != c.msg {
				t.Errorf("got\n  %s: %s\nwant\n  %s: %s", se.Path, se.Msg, c.path, c.msg)
			}
		})
	}
}

func domainPaths(r *Recommendation) []string {
	var out []string
	for _, d := range r.Domains {
		out = append(out, d.Path)
	}
	return out
}

// Omitted fields get the default domains of the notes, conditional on the mode.
func TestRecommendationDefaultDomains(t *testing.T) {
	r := loadRec(t, recYAML)
	want := []string{"engine.mode", "engine.backend",
		"engine.workers.aggregated.scheduler.max_batched_tokens", "engine.workers.aggregated.scheduler.max_sequences",
		"engine.workers.prefill.scheduler.max_batched_tokens", "engine.workers.prefill.scheduler.max_sequences",
		"engine.workers.decode.scheduler.max_batched_tokens", "engine.workers.decode.scheduler.max_sequences"}
	if got := domainPaths(r); !reflect.DeepEqual(got, want) {
		t.Fatalf("domains %v\nwant %v", got, want)
	}
	if !reflect.DeepEqual(r.Modes, []string{ModeAggregated, ModeDisaggregated}) {
		t.Errorf("modes %v", r.Modes)
	}
	ps := r.Domains[5].Choices // prefill max_sequences
	if len(ps) != 9 || ps[0] != json.Number("1") || ps[8] != json.Number("256") {
		t.Errorf("prefill max_sequences %v", ps)
	}
	if d := r.Domains[6]; len(d.Choices) != 1 || d.When.Values[0] != ModeDisaggregated {
		t.Errorf("decode max_batched_tokens %+v", d)
	}
	for _, ps := range r.Parallelism {
		if !ps.Ladder {
			t.Errorf("%s: not the default ladder", ps.Role)
		}
	}
	// A router section adds the router domains, conditional on kv_router.
	r = loadRec(t, aggRecYAML, "router={}")
	if got := domainPaths(r); !reflect.DeepEqual(got, []string{"router.policy", "router.prefill_load_model.type",
		"router.overlap_score_credit", "router.prefill_load_scale", "router.temperature"}) {
		t.Errorf("router domains %v", got)
	}
	if c := r.Domains[3].Choices; len(c) != 9 || c[1] != json.Number("0.25") {
		t.Errorf("prefill_load_scale %v", c)
	}
}

// Rules that count workers are left to the candidates when the parallelism is searched:
// kv_router with the default ladder loads (single-replica candidates end unsupported).
func TestRecommendationDefersWorkerRules(t *testing.T) {
	loadRec(t, recYAML, "router={policy: kv_router}")
	_, err := LoadRecommendation([]byte(aggRecYAML), []string{"router={policy: kv_router}", "engine.workers.aggregated.parallelism={replicas: 1}"})
	if err == nil || !strings.HasPrefix(err.Error(), "router.policy: kv_router requires more than one routable worker") {
		t.Errorf("concrete single worker with kv_router: %v", err)
	}
}

// A stepped range expands with exact decimal arithmetic, inclusive of max when it lands.
func TestSteppedRange(t *testing.T) {
	r := loadRec(t, aggRecYAML, "engine.workers.aggregated.kv_cache.capacity.memory_fraction={range: {min: 0.1, max: 0.5, step: 0.1}}",
		"traffic.load={type: concurrency, concurrency: {range: {min: 2, max: 9, step: 3}}}")
	got := map[string][]any{}
	for _, d := range r.Domains {
		got[d.Path] = d.Choices
	}
	want := map[string][]any{
		"engine.workers.aggregated.kv_cache.capacity.memory_fraction": {json.Number("0.1"), json.Number("0.2"), json.Number("0.3"), json.Number("0.4"), json.Number("0.5")},
		"traffic.load.concurrency":                                    {json.Number("2"), json.Number("5"), json.Number("8")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
	// An unstepped float range stays continuous; a log integer range too.
	r = loadRec(t, aggRecYAML, "engine.workers.aggregated.scheduler.max_sequences={range: {min: 8, max: 512, scale: log}}")
	d := r.Domains[0]
	if d.Kind != DomainRange || d.Min != 8 || d.Max != 512 || d.Scale != ScaleLog || !d.Int {
		t.Errorf("log range %+v", d)
	}
	if v := NumberValue(22.6, true); v != json.Number("23") {
		t.Errorf("integer materialisation %v", v)
	}
}

// Parallelism: omitted and preset: default are the ladder, a list is kept, preset: false
// searches knob domains.
func TestRecommendationParallelism(t *testing.T) {
	r := loadRec(t, aggRecYAML, "engine.workers.aggregated.parallelism={preset: default}")
	if !r.Parallelism[0].Ladder {
		t.Error("preset: default is not the ladder")
	}
	r = loadRec(t, aggRecYAML, "engine.workers.aggregated.parallelism={preset: [{replicas: 2, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}")
	if ps := r.Parallelism[0]; ps.Ladder || !reflect.DeepEqual(ps.Presets, []Parallelism{{2, 1, 1, 1, 1, 1}}) {
		t.Errorf("preset list %+v", ps)
	}
	r = loadRec(t, aggRecYAML, "engine.workers.aggregated.parallelism={preset: false, replicas: 2, tensor: {choices: [1, 2, 4]}}")
	if ps := r.Parallelism[0]; ps.Ladder || ps.Presets != nil {
		t.Errorf("knob mode %+v", ps)
	}
	if got := domainPaths(r); !reflect.DeepEqual(got, []string{"engine.workers.aggregated.parallelism.tensor"}) {
		t.Errorf("knob domains %v", got)
	}
	if v, _ := getPath(r.Tree, "engine.workers.aggregated.parallelism"); !reflect.DeepEqual(v, map[string]any{"replicas": json.Number("2")}) {
		t.Errorf("concrete knobs %v", v)
	}
}

// Candidate keeps the roles of its mode and drops round-robin router knobs; hardware auto
// takes optimization.hardware; --set reaches optimization.
func TestRecommendationCandidate(t *testing.T) {
	// engine.kv_transfer with a mode domain: the disaggregated candidates keep it, the
	// aggregated ones drop it; with aggregated candidates only it stays predict's error.
	kv := loadRec(t, recYAML, "engine.kv_transfer={bandwidth_gb_per_second: 50}")
	if _, ok := getPath(kv.Candidate([]string{"engine.mode"}, []any{ModeDisaggregated}), "engine.kv_transfer"); !ok {
		t.Error("a disaggregated candidate lost engine.kv_transfer")
	}
	if v, ok := getPath(kv.Candidate([]string{"engine.mode"}, []any{ModeAggregated}), "engine.kv_transfer"); ok {
		t.Errorf("an aggregated candidate kept engine.kv_transfer %v", v)
	}
	// A per-backend backend_version gives each candidate its backend's entry (none when
	// the mapping has none); aliases are versions like any other.
	bv := loadRec(t, recYAML, "engine.backend_version={vllm: current, sglang: 0.5.14}")
	for b, want := range map[string]any{BackendVLLM: "current", BackendSGLang: "0.5.14", BackendTRTLLM: nil} {
		v, ok := getPath(bv.Candidate([]string{"engine.backend"}, []any{b}), "engine.backend_version")
		if want == nil && ok || want != nil && v != want {
			t.Errorf("%s: backend_version %v (present %v), want %v", b, v, ok, want)
		}
	}
	if _, err := LoadRecommendation([]byte(aggRecYAML), []string{"engine.kv_transfer={bandwidth_gb_per_second: 50}"}); err == nil || !strings.Contains(err.Error(), "aggregated mode rejects kv_transfer") {
		t.Errorf("kv_transfer with aggregated candidates only: %v", err)
	}

	r := loadRec(t, recYAML, "engine.hardware=auto", "optimization.hardware=b200_sxm", "optimization.target=pareto",
		"router={policy: {choices: [round_robin, kv_router]}, temperature: 0.5}")
	if r.Optimization.Target != TargetPareto {
		t.Errorf("target %q", r.Optimization.Target)
	}
	c := r.Candidate([]string{"engine.mode", "router.policy"}, []any{ModeDisaggregated, RouterRoundRobin})
	if hw, _ := getPath(c, "engine.hardware"); hw != "b200_sxm" {
		t.Errorf("hardware %v", hw)
	}
	w, _ := getPath(c, "engine.workers")
	if _, agg := w.(map[string]any)[RoleAggregated]; agg {
		t.Error("disaggregated candidate kept the aggregated role")
	}
	// The reference's echo of a round-robin router names its load model (none).
	if router, _ := getPath(c, "router"); !reflect.DeepEqual(router, map[string]any{"policy": RouterRoundRobin, "prefill_load_model": map[string]any{"type": LoadModelNone}}) {
		t.Errorf("round_robin router %v", router)
	}
	c = r.Candidate([]string{"router.policy"}, []any{RouterKV})
	if v, _ := getPath(c, "router.temperature"); v != json.Number("0.5") {
		t.Errorf("kv_router keeps its knobs: %v", v)
	}
	if UsedGPUs(r.Candidate([]string{"engine.mode", "engine.workers.prefill.parallelism", "engine.workers.decode.parallelism"},
		[]any{ModeDisaggregated, ParallelismTree(Parallelism{2, 2, 1, 1, 1, 1}), ParallelismTree(Parallelism{1, 4, 1, 1, 1, 1})})) != 8 {
		t.Error("used_gpus of 2×TP2 + TP4")
	}
}

// EmitYAML reads back to the same tree (the re-predict guarantee rests on it).
func TestEmitYAMLRoundTrip(t *testing.T) {
	trees := []string{seedYAML, slaYAML, traceYAML, sessionYAML,
		`a: {b: "yes", c: "1.5", d: "", e: "x: y", f: [1, 2.5, 1.0e-05, -3], g: [], h: {}, i: null, j: true, k: [{x: 1, y: [a]}, "on"], l: "#c", m: 1e+300}`,
	}
	for _, text := range trees {
		tree, err := parseYAML([]byte(text))
		if err != nil {
			t.Fatal(err)
		}
		out := EmitYAML(tree.(map[string]any))
		back, err := parseYAML(out)
		if err != nil {
			t.Fatalf("emitted YAML does not parse: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(back, tree) {
			t.Errorf("round trip changed the tree:\n%v\n%v\n%s", tree, back, out)
		}
	}
}

// Planner sub-items: the scaling policies the target allows, the groups they need, their
// conditions, and the concrete planner section of a candidate.
func TestRecommendationPlannerSearch(t *testing.T) {
	sla := []string{"optimization.target=goodput", "evaluation={sla: {ttft_ms: 500, itl_ms: 50}}"}
	// A throughput target keeps the default policies without throughput scaling and searches
	// only the load sensitivity.
	r := loadRec(t, aggRecYAML, "planner={}")
	ps := r.Planner
	if ps == nil || ps.Target != "throughput" || ps.PolicyWhen == nil {
		t.Fatalf("planner search %+v", ps)
	}
	var items, labels []string
	for _, g := range ps.Groups {
		items = append(items, g.Item+"/"+g.Needs)
	}
	for _, e := range ps.Groups[0].Entries {
		labels = append(labels, e.Label)
	}
	if !reflect.DeepEqual(items, []string{"scaling_policy/", "load_sensitivity/load"}) ||
		!reflect.DeepEqual(labels, []string{"disabled", "load_180_5", "load_180_10"}) || ps.Intervals != nil {
		t.Errorf("groups %v, scaling %v, intervals %v", items, labels, ps.Intervals)
	}
	if got := domainPaths(r); got[len(got)-1] != "planner.policy" {
		t.Errorf("planner.policy is not a default domain: %v", got)
	}
	// A goodput target with TTFT and ITL bounds keeps every policy and adds FPM sampling and
	// the predictor pre-sweep over the throughput intervals.
	r = loadRec(t, aggRecYAML, append(sla, "planner={policy: enabled}")...)
	ps = r.Planner
	if ps.Target != TargetSLA || len(ps.Groups) != 3 || len(ps.Groups[0].Entries) != 7 || ps.Groups[1].Item != PlannerFPMSampling ||
		len(ps.Predictors) != 11 || !reflect.DeepEqual(ps.Intervals, []int{180, 600}) || ps.PolicyWhen != nil {
		t.Fatalf("goodput planner search %+v", ps)
	}
	// A candidate: hybrid_600_5 with the "fine" FPM sampling and the "aggressive" sensitivity;
	// the predictor of interval 600 is its winner (kalman_reactive_log1p).
	ps.Winners[600] = 10
	tree := r.Candidate([]string{"planner.enable_throughput_scaling", "planner.enable_load_scaling",
		"planner.throughput_adjustment_interval_seconds", "planner.load_adjustment_interval_seconds",
		"planner.max_num_fpm_samples", "planner.fpm_sample_bucket_size",
		"planner.load_scaling_down_sensitivity", "planner.load_min_observations"},
		[]any{true, true, json.Number("600"), json.Number("5"), json.Number("128"), json.Number("64"), json.Number("70"), json.Number("3")})
	got, _ := json.Marshal(tree["planner"])
	want := `{"enable_load_scaling":true,"enable_throughput_scaling":true,"fpm_sample_bucket_size":64,"kalman_min_points":3,"kalman_q_level":10.0,"kalman_q_trend":1.0,"kalman_r":5.0,"load_adjustment_interval_seconds":5,"load_min_observations":3,"load_predictor":"kalman","load_predictor_log1p":true,"load_scaling_down_sensitivity":70,"max_num_fpm_samples":128,"policy":"enabled","target":"sla","throughput_adjustment_interval_seconds":600}`
	if string(got) != want {
		t.Errorf("planner\n%s\nwant\n%s", got, want)
	}
	if _, err := decodeRoot(tree); err != nil {
		t.Errorf("the candidate is not a valid prediction: %v", err)
	}
	// The disabled scaling policy under an enabled planner is a disabled planner; so is an
	// interval without a winner left to constant_last.
	tree = r.Candidate([]string{"planner.enable_throughput_scaling", "planner.enable_load_scaling",
		"planner.throughput_adjustment_interval_seconds", "planner.load_adjustment_interval_seconds"}, []any{false, false, nil, nil})
	if got, _ := json.Marshal(tree["planner"]); string(got) != `{"policy":"disabled"}` {
		t.Errorf("disabled scaling policy: %s", got)
	}
	tree = r.Candidate([]string{"planner.enable_throughput_scaling", "planner.enable_load_scaling",
		"planner.throughput_adjustment_interval_seconds", "planner.load_adjustment_interval_seconds",
		"planner.max_num_fpm_samples", "planner.fpm_sample_bucket_size"},
		[]any{true, false, json.Number("180"), json.Number("5"), json.Number("64"), json.Number("16")})
	if p := tree["planner"].(map[string]any); p["load_predictor"] != "constant" || p["load_predictor_log1p"] != false || p["kalman_r"] != nil {
		t.Errorf("constant_last: %v", p)
	}
	// Pareto with a complete SLA has a goodput objective, so its planner target is sla and the
	// throughput-scaling policies stay; without the SLA it is throughput.
	r = loadRec(t, aggRecYAML, "optimization.target=pareto", "evaluation={sla: {ttft_ms: 500, itl_ms: 50}}", "planner={policy: enabled}")
	if ps := r.Planner; ps.Target != TargetSLA || len(ps.Groups[0].Entries) != 7 {
		t.Errorf("pareto with an SLA: target %q, %d scaling policies", ps.Target, len(ps.Groups[0].Entries))
	}
	if r = loadRec(t, aggRecYAML, "optimization.target=pareto", "planner={policy: enabled}"); r.Planner.Target != "throughput" {
		t.Errorf("pareto without an SLA: target %q", r.Planner.Target)
	}
	// An explicit list without constant_last, a one-entry list above all, is honoured when no
	// pre-sweep winner exists (no trace): its first entry, not constant_last.
	r = loadRec(t, aggRecYAML, append(sla, "planner={policy: enabled, scaling_policy: {preset: [throughput_180_5]}, load_predictor: {preset: [arima_raw]}}")...)
	tree = r.Candidate([]string{"planner.enable_throughput_scaling", "planner.enable_load_scaling",
		"planner.throughput_adjustment_interval_seconds", "planner.load_adjustment_interval_seconds",
		"planner.max_num_fpm_samples", "planner.fpm_sample_bucket_size"},
		[]any{true, false, json.Number("180"), json.Number("5"), json.Number("64"), json.Number("16")})
	if p := tree["planner"].(map[string]any); p["load_predictor"] != "arima" || p["load_predictor_log1p"] != false {
		t.Errorf("[arima_raw] without a trace: %v", p)
	}
	// Independent knobs: their product without the invalid combinations.
	r = loadRec(t, aggRecYAML, append(sla, "planner={policy: enabled, scaling_policy: {preset: false}, enable_throughput_scaling: false, enable_load_scaling: true, load_adjustment_interval_seconds: {choices: [5, 200]}}")...)
	var shows []string
	for _, e := range r.Planner.Groups[0].Entries {
		b, _ := json.Marshal(e.Show)
		shows = append(shows, string(b))
	}
	if want := []string{
		`{"enable_load_scaling":true,"enable_throughput_scaling":false,"load_adjustment_interval_seconds":5,"throughput_adjustment_interval_seconds":180}`,
		`{"enable_load_scaling":true,"enable_throughput_scaling":false,"load_adjustment_interval_seconds":5,"throughput_adjustment_interval_seconds":600}`,
		`{"enable_load_scaling":true,"enable_throughput_scaling":false,"load_adjustment_interval_seconds":200,"throughput_adjustment_interval_seconds":600}`,
	}; !reflect.DeepEqual(shows, want) {
		t.Errorf("independent scaling policies\n%v\nwant\n%v", shows, want)
	}
	// A planner that can only be disabled is concrete.
	r = loadRec(t, aggRecYAML, "planner={policy: disabled, scaling_policy: {preset: [load_180_5]}}")
	if r.Planner != nil || !reflect.DeepEqual(r.Tree["planner"], map[string]any{"policy": "disabled"}) {
		t.Errorf("disabled planner: %+v %v", r.Planner, r.Tree["planner"])
	}
}
