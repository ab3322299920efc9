package spec

import (
	"errors"
	"strings"
	"testing"
)

// seedYAML is the example configuration of the brief (a good case).
const seedYAML = `
traffic:
  source: {type: synthetic, input_tokens: 1024, output_tokens: 128}
  load: {type: concurrency, concurrency: 8}
  stop: {requests: 100}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: vllm
  workers:
    aggregated:
      parallelism: {replicas: 1, tensor: 1}
`

// aggYAML is the smallest valid configuration (default traffic).
const aggYAML = "engine: {model: m, hardware: h200_sxm, workers: {aggregated: {}}}\n"

// disaggYAML is the smallest valid disaggregated configuration.
const disaggYAML = "engine: {model: m, hardware: h200_sxm, mode: disaggregated, workers: {prefill: {}, decode: {}}}\n"

// traceYAML is a valid mooncake trace configuration.
const traceYAML = aggYAML + "traffic: {source: {type: trace, paths: [t.jsonl]}, load: {type: trace_timestamps}}\n"

// sessionYAML is a valid synthetic-session configuration.
const sessionYAML = aggYAML + "traffic: {source: {type: synthetic-session, session: {turns: 3}}, load: {type: concurrency}, stop: {sessions: 5}}\n"

// slaYAML has an SLA pair, for planner throughput scaling.
const slaYAML = seedYAML + "evaluation: {sla: {ttft_ms: 500, itl_ms: 50}}\n"

type ruleCase struct {
	name string
	yaml string
	sets []string
	// path and frag describe the expected error; both empty means the config is valid.
	path string
	frag string
}

func mustLoad(t *testing.T, yamlText string, sets ...string) *Config {
	t.Helper()
	cfg, err := LoadConfig([]byte(yamlText), sets)
	if err != nil {
		t.Fatalf("unexpected error: %v", err)
	}
	return cfg
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := LoadConfig([]byte(c.yaml), c.sets)
			if c.path == "" && c.frag == "" {
				if err != nil {
					t.Fatalf("want success, got %v", err)
				}
				if cfg == nil {
					t.Fatal("nil config without error")
				}
				return
			}
			if err == nil {
				t.Fatalf("want error %q at %q, got success", c.frag, c.path)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error is %T, want *spec.Error", err)
			}
			if se.Path != c.path {
				t.Errorf("path = %q, want %q (msg %q)", se.Path, c.path, se.Msg)
			}
			if !strings.Contains(se.Msg, c.frag) {
				t.Errorf("msg = %q, want it to contain %q", se.Msg, c.frag)
			}
			if cfg != nil {
				t.Error("config returned together with an error")
			}
		})
	}
}

func TestTopLevelRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "seed example", yaml: seedYAML},
		{name: "worked example E2", yaml: "traffic: {source: {type: synthetic, input_tokens: 32, output_tokens: 4}, load: {type: concurrency, concurrency: 2}, stop: {requests: 6}}\nengine: {model: m, hardware: h200_sxm, workers: {aggregated: {kv_cache: {capacity: {type: fixed, blocks: 256}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"},
		{name: "worked example E8", yaml: "traffic: {source: {type: synthetic, input_tokens: 32, output_tokens: 4}, load: {type: concurrency, concurrency: 1}, stop: {requests: 1}}\nengine: {model: m, hardware: h200_sxm, mode: disaggregated, kv_transfer: {bytes_per_token: 22528, bandwidth_gb_per_second: 400}, workers: {prefill: {kv_cache: {capacity: {type: fixed, blocks: 256}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}, decode: {kv_cache: {capacity: {type: fixed, blocks: 256}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"},
		{name: "malformed", yaml: "engine: [a\n", frag: "malformed YAML:"},
		{name: "tab indentation", yaml: "engine:\n\tmodel: m\n", frag: "malformed YAML:"},
		{name: "duplicate key", yaml: aggYAML + "engine: {}\n", frag: "malformed YAML:"},
		{name: "two documents", yaml: aggYAML + "---\n" + aggYAML, frag: "single YAML document"},
		{name: "list document", yaml: "- a\n", frag: "configuration must contain one YAML mapping"},
		{name: "scalar document", yaml: "42\n", frag: "configuration must contain one YAML mapping"},
		{name: "empty document", yaml: "", frag: "configuration must contain one YAML mapping"},
		{name: "optimization", yaml: aggYAML + "optimization: {target: throughput}\n", path: "optimization", frag: "predict does not accept ['optimization']"},
		{name: "optimization and optimizer", yaml: aggYAML + "optimization: {}\noptimizer: {}\n", path: "optimization", frag: "['optimization', 'optimizer']"},
		{name: "adapter not mapping", yaml: aggYAML + "router: kv_router\n", path: "router", frag: "adapter section 'router' must be a mapping"},
		{name: "adapter null", yaml: aggYAML + "planner: null\n", path: "planner", frag: "must be a mapping, got null"},
		{name: "unknown adapter", yaml: aggYAML + "foo: {}\n", path: "foo", frag: "config adapter 'dynamo.foo' is unavailable; installed adapters: dynamo.planner, dynamo.router"},
		{name: "dotted section", yaml: aggYAML + "a.b: {}\n", path: "a.b", frag: "contain no dots"},
		{name: "missing engine", yaml: "evaluation: {}\n", path: "engine", frag: "required section is missing"},
		{name: "misspelt engine", yaml: "engnie: {model: m}\n", path: "engine", frag: `required section is missing; found "engnie", did you mean engine?`},
		{name: "misspelt traffic", yaml: aggYAML + "trafic: {}\n", path: "trafic", frag: `unknown top-level section "trafic"; did you mean traffic?`},
		{name: "misspelt evaluation", yaml: aggYAML + "evalution: {sla: {e2e_ms: 1}}\n", path: "evalution", frag: `unknown top-level section "evalution"; did you mean evaluation?`},
		{name: "misspelt router", yaml: aggYAML + "routr: {}\n", path: "routr", frag: `unknown top-level section "routr"; did you mean router?`},
		{name: "typo of a present section is an adapter", yaml: aggYAML + "traffic: {source: {type: synthetic}, load: {type: concurrency}, stop: {requests: 1}}\ntrafic: {}\n", path: "trafic", frag: "config adapter 'dynamo.trafic' is unavailable"},
		{name: "engine not mapping", yaml: "engine: 5\n", path: "engine", frag: "must be a mapping, got 5"},
		{name: "execution good", yaml: aggYAML + "execution: {resources: {cpu_limit: auto, memory_limit_gb: 16, reserve_memory_fraction: 0.5}}\n"},
		{name: "execution cpu_limit float", yaml: aggYAML + "execution: {resources: {cpu_limit: 2.5}}\n", path: "execution.resources.cpu_limit", frag: "must be an integer, got 2.5"},
		{name: "execution fraction 1", yaml: aggYAML + "execution: {resources: {reserve_memory_fraction: 1}}\n", path: "execution.resources.reserve_memory_fraction", frag: "must be less than 1"},
		{name: "execution unknown", yaml: aggYAML + "execution: {workers: 2}\n", path: "execution", frag: `unknown key "workers"; allowed keys: resources`},
		{name: "evaluation unknown", yaml: aggYAML + "evaluation: {slo: {}}\n", path: "evaluation", frag: `unknown key "slo"; allowed keys: sla (did you mean "sla"?)`},
	})
}

func TestTrafficRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		// supplied traffic is not merged with the default
		{name: "traffic without source", yaml: aggYAML + "traffic: {load: {type: concurrency}}\n", path: "traffic", frag: `missing required key "source"`},
		{name: "traffic without load", yaml: aggYAML + "traffic: {source: {type: synthetic}, stop: {requests: 1}}\n", path: "traffic", frag: `missing required key "load"`},
		{name: "synthetic stop null", yaml: aggYAML + "traffic: {source: {type: synthetic}, load: {type: concurrency}, stop: null}\n", path: "traffic", frag: `missing required key "stop"`},
		{name: "trace stop null", yaml: traceYAML, sets: []string{"traffic.stop=null"}},
		{name: "synthetic without stop", yaml: aggYAML + "traffic: {source: {type: synthetic}, load: {type: concurrency}}\n", path: "traffic", frag: `missing required key "stop"`},
		{name: "traffic unknown key", yaml: seedYAML, sets: []string{"traffic.sources={}"}, path: "traffic", frag: `unknown key "sources"; allowed keys: load, source, stop (did you mean "source"?)`},
		{name: "traffic null", yaml: aggYAML + "traffic: null\n", path: "traffic", frag: "must be a mapping, got null"},
		// source union
		{name: "source tag missing", yaml: seedYAML, sets: []string{"traffic.source={input_tokens: 5}"}, path: "traffic.source", frag: `missing required key "type"`},
		{name: "source tag unknown", yaml: seedYAML, sets: []string{"traffic.source.type=synth"}, path: "traffic.source.type", frag: "must be one of synthetic, synthetic-session, trace"},
		{name: "synthetic input_tokens 0", yaml: seedYAML, sets: []string{"traffic.source.input_tokens=0"}, path: "traffic.source.synthetic.input_tokens", frag: "must be greater than 0, got 0"},
		// ceilings (docs/robustness.md): tokens of one request, times, rates
		{name: "input_tokens 2^31", yaml: seedYAML, sets: []string{"traffic.source.input_tokens=2147483648"}, path: "traffic.source.synthetic.input_tokens", frag: "must be at most 1073741824 (tokens of one request; no model's context comes near it), got 2147483648"},
		{name: "input_tokens 2^30", yaml: seedYAML, sets: []string{"traffic.source.input_tokens=1073741824"}},
		{name: "output_tokens 2^63-1", yaml: seedYAML, sets: []string{"traffic.source.output_tokens=9223372036854775807"}, path: "traffic.source.synthetic.output_tokens", frag: "must be at most 1073741824"},
		{name: "session tokens 2^40", yaml: sessionYAML, sets: []string{"traffic.source.new_input_tokens_per_turn=1099511627776"}, path: "traffic.source.synthetic-session.new_input_tokens_per_turn", frag: "must be at most 1073741824"},
		{name: "session delay 1.7e308", yaml: sessionYAML, sets: []string{"traffic.source.session.inter_turn_delay_ms=1.7e308"}, path: "traffic.source.synthetic-session.session.inter_turn_delay_ms", frag: "must be at most 1000000000000 (about 31.7 years; longer times overflow the simulated clock), got 1.7e+308"},
		{name: "poisson rate 5e-324", yaml: seedYAML, sets: []string{"traffic.load={type: poisson, requests_per_second: 5e-324}"}, path: "traffic.load.requests_per_second", frag: "must be at least 1e-09 (slower rates put arrivals past the simulated clock's 31.7 years), got 5e-324"},
		{name: "poisson rate 1e-9", yaml: seedYAML, sets: []string{"traffic.load={type: poisson, requests_per_second: 1e-9}"}},
		{name: "virtual time 1e300", yaml: seedYAML, sets: []string{"traffic.stop={requests: 5, max_virtual_time_seconds: 1e300}"}, path: "traffic.stop.max_virtual_time_seconds", frag: "must be at most 1000000000 (about 31.7 years"},
		{name: "synthetic output_tokens float", yaml: seedYAML, sets: []string{"traffic.source.output_tokens=2.5"}, path: "traffic.source.synthetic.output_tokens", frag: "must be an integer, got 2.5"},
		{name: "synthetic unknown key", yaml: seedYAML, sets: []string{"traffic.source.foo=1"}, path: "traffic.source.synthetic", frag: `unknown key "foo"; allowed keys: input_tokens, lengths, output_tokens, type`},
		{name: "synthetic session key", yaml: seedYAML, sets: []string{"traffic.source.session={turns: 2}"}, path: "traffic.source.synthetic", frag: `unknown key "session"`},
		{name: "synthetic images", yaml: seedYAML, sets: []string{"traffic.source.images={height: 1, width: 1}"}, path: "traffic.source.synthetic.images", frag: "encoder role"},
		{name: "synthetic images null", yaml: seedYAML, sets: []string{"traffic.source.images=null"}},
		// synthetic-session
		{name: "session good", yaml: sessionYAML},
		{name: "session missing", yaml: sessionYAML, sets: []string{"traffic.source={type: synthetic-session}"}, path: "traffic.source.synthetic-session", frag: `missing required key "session"`},
		{name: "session turns 1", yaml: sessionYAML, sets: []string{"traffic.source.session.turns=1"}, path: "traffic.source.synthetic-session.session.turns", frag: "must be at least 2, got 1"},
		{name: "session ratio above 1", yaml: sessionYAML, sets: []string{"traffic.source.session.shared_prefix_ratio=1.5"}, path: "traffic.source.synthetic-session.session.shared_prefix_ratio", frag: "must be at most 1, got 1.5"},
		{name: "session ratio needs groups", yaml: sessionYAML, sets: []string{"traffic.source.session.shared_prefix_ratio=0.5"}, path: "traffic.source.synthetic-session.session.prefix_groups", frag: "prefix_groups must be positive when shared_prefix_ratio is positive"},
		{name: "session ratio with groups", yaml: sessionYAML, sets: []string{"traffic.source.session={shared_prefix_ratio: 0.5, prefix_groups: 2}"}},
		{name: "session delay negative", yaml: sessionYAML, sets: []string{"traffic.source.session.inter_turn_delay_ms=-1"}, path: "traffic.source.synthetic-session.session.inter_turn_delay_ms", frag: "must be at least 0, got -1"},
		// trace source
		{name: "trace good", yaml: traceYAML},
		{name: "trace paths missing", yaml: traceYAML, sets: []string{"traffic.source={type: trace}"}, path: "traffic.source.trace", frag: `missing required key "paths"`},
		{name: "trace paths empty", yaml: traceYAML, sets: []string{"traffic.source.paths=[]"}, path: "traffic.source.trace.paths", frag: "trace paths must contain at least one nonempty path"},
		{name: "trace path empty string", yaml: traceYAML, sets: []string{`traffic.source.paths=[""]`}, path: "traffic.source.trace.paths", frag: "trace paths must contain at least one nonempty path"},
		{name: "trace path not string", yaml: traceYAML, sets: []string{"traffic.source.paths=[1]"}, path: "traffic.source.trace.paths.0", frag: "must be a string, got 1"},
		{name: "trace paths scalar", yaml: traceYAML, sets: []string{"traffic.source.paths=t.jsonl"}, path: "traffic.source.trace.paths", frag: "must be a list of strings"},
		{name: "mooncake two paths", yaml: traceYAML, sets: []string{"traffic.source.paths=[a, b]"}, path: "traffic.source.trace.paths", frag: "trace format 'mooncake' requires exactly one path"},
		{name: "dynamo two paths", yaml: traceYAML, sets: []string{"traffic.source.paths=[a, b]", "traffic.source.format=dynamo"}},
		{name: "trace format unknown", yaml: traceYAML, sets: []string{"traffic.source.format=csv"}, path: "traffic.source.trace.format", frag: "must be one of mooncake, mooncake-delta"},
		{name: "trace block size 0", yaml: traceYAML, sets: []string{"traffic.source.block_size=0"}, path: "traffic.source.trace.block_size", frag: "must be greater than 0, got 0"},
		{name: "nested basis on mooncake", yaml: traceYAML, sets: []string{"traffic.source.nested_timestamp_basis=auto"}, path: "traffic.source.trace.nested_timestamp_basis", frag: "only valid for trace format 'weka'"},
		{name: "nested basis on weka", yaml: traceYAML, sets: []string{"traffic.source.format=weka", "traffic.source.nested_timestamp_basis=relative"}},
		{name: "nested basis bad value", yaml: traceYAML, sets: []string{"traffic.source.format=weka", "traffic.source.nested_timestamp_basis=later"}, path: "traffic.source.trace.nested_timestamp_basis", frag: "must be one of auto, absolute, relative"},
		// load
		{name: "load type unknown", yaml: seedYAML, sets: []string{"traffic.load.type=burst"}, path: "traffic.load.type", frag: "must be one of concurrency, poisson"},
		{name: "load unknown key", yaml: seedYAML, sets: []string{"traffic.load.rate=3"}, path: "traffic.load", frag: `unknown key "rate"`},
		{name: "speedup with concurrency", yaml: seedYAML, sets: []string{"traffic.load.speedup=2"}, path: "traffic.load", frag: "traffic.load.type='concurrency' does not accept ['speedup']"},
		{name: "set type keeps old fields", yaml: seedYAML, sets: []string{"traffic.load.type=poisson"}, path: "traffic.load", frag: "traffic.load.type='poisson' does not accept ['concurrency']"},
		// kv_capacity_fraction (docs/config.md): predict accepts it so recommend's
		// candidates re-predict; the fraction is required and positive, synthetic only.
		{name: "kv_capacity_fraction", yaml: seedYAML, sets: []string{"traffic.load={type: kv_capacity_fraction, fraction: 0.5}"}},
		{name: "kv_capacity_fraction without fraction", yaml: seedYAML, sets: []string{"traffic.load={type: kv_capacity_fraction}"}, path: "traffic.load", frag: "requires fraction"},
		{name: "kv_capacity_fraction zero", yaml: seedYAML, sets: []string{"traffic.load={type: kv_capacity_fraction, fraction: 0}"}, path: "traffic.load.fraction", frag: "greater than 0"},
		{name: "kv_capacity_fraction with concurrency", yaml: seedYAML, sets: []string{"traffic.load={type: kv_capacity_fraction, fraction: 1, concurrency: 3}"}, path: "traffic.load", frag: "does not accept ['concurrency']"},
		{name: "kv_capacity_fraction on a trace", yaml: seedYAML, sets: []string{"traffic={source: {type: trace, paths: [t.jsonl]}, load: {type: kv_capacity_fraction, fraction: 1}}"}, path: "traffic.load.type", frag: "trace traffic requires trace_timestamps or concurrency load"},
		{name: "concurrency 0", yaml: seedYAML, sets: []string{"traffic.load.concurrency=0"}, path: "traffic.load.concurrency", frag: "must be greater than 0, got 0"},
		{name: "poisson good", yaml: seedYAML, sets: []string{"traffic.load={type: poisson, requests_per_second: 8, seed: 7}"}},
		{name: "poisson without rate", yaml: seedYAML, sets: []string{"traffic.load={type: poisson}"}, path: "traffic.load", frag: "traffic.load.type='poisson' requires requests_per_second for a synthetic source"},
		{name: "poisson rate 0", yaml: seedYAML, sets: []string{"traffic.load={type: poisson, requests_per_second: 0}"}, path: "traffic.load.requests_per_second", frag: "must be greater than 0, got 0"},
		{name: "poisson negative seed", yaml: seedYAML, sets: []string{"traffic.load={type: poisson, requests_per_second: 1, seed: -1}"}, path: "traffic.load.seed", frag: "must be at least 0"},
		{name: "synthetic with sessions rate", yaml: seedYAML, sets: []string{"traffic.load={type: constant_rate, sessions_per_second: 2}"}, path: "traffic.load", frag: "traffic load rate unit does not match source type"},
		{name: "session with sessions rate", yaml: sessionYAML, sets: []string{"traffic.load={type: constant_rate, sessions_per_second: 2}"}},
		{name: "session with requests rate", yaml: sessionYAML, sets: []string{"traffic.load={type: constant_rate, requests_per_second: 2}"}, path: "traffic.load", frag: "traffic load rate unit does not match source type"},
		{name: "constant_rate seed", yaml: seedYAML, sets: []string{"traffic.load={type: constant_rate, requests_per_second: 2, seed: 1}"}, path: "traffic.load", frag: "does not accept ['seed']"},
		{name: "synthetic trace_timestamps", yaml: seedYAML, sets: []string{"traffic.load={type: trace_timestamps}"}, path: "traffic.load.type", frag: "synthetic traffic rejects trace_timestamps"},
		// stop
		{name: "stop unknown key", yaml: seedYAML, sets: []string{"traffic.stop.request=5"}, path: "traffic.stop", frag: `unknown key "request"`},
		{name: "stop requests 0", yaml: seedYAML, sets: []string{"traffic.stop.requests=0"}, path: "traffic.stop.requests", frag: "must be greater than 0, got 0"},
		{name: "stop two counts", yaml: seedYAML, sets: []string{"traffic.stop.requests_per_load_unit=2"}, path: "traffic.stop", frag: "traffic.stop requires exactly one count condition"},
		{name: "stop no count", yaml: seedYAML, sets: []string{"traffic.stop={}"}, path: "traffic.stop", frag: "exactly one count condition"},
		{name: "stop per load unit", yaml: seedYAML, sets: []string{"traffic.stop={requests_per_load_unit: 2.5}"}},
		{name: "stop sessions on synthetic", yaml: seedYAML, sets: []string{"traffic.stop.sessions=3"}, path: "traffic.stop.sessions", frag: "does not apply to a synthetic source"},
		{name: "stop requests on session", yaml: sessionYAML, sets: []string{"traffic.stop.requests=3"}, path: "traffic.stop.requests", frag: "does not apply to a synthetic-session source"},
		{name: "stop per unit too large", yaml: seedYAML, sets: []string{"traffic.stop={requests_per_load_unit: 1e12}"}, path: "traffic.stop", frag: "resolves to 8e+12 requests; use at most 2147483648"},
		{name: "stop per unit at the bound", yaml: seedYAML, sets: []string{"traffic.load.concurrency=2", "traffic.stop={requests_per_load_unit: 1073741824}"}},
		{name: "synthetic virtual time", yaml: seedYAML, sets: []string{"traffic.stop.max_virtual_time_seconds=10"}, path: "traffic.stop.max_virtual_time_seconds", frag: "max_virtual_time_seconds is trace-only"},
		// trace cross rules
		{name: "trace poisson", yaml: traceYAML, sets: []string{"traffic.load={type: poisson, requests_per_second: 1}"}, path: "traffic.load.type", frag: "trace traffic requires trace_timestamps or concurrency load"},
		{name: "trace concurrency", yaml: traceYAML, sets: []string{"traffic.load={type: concurrency, concurrency: 2}"}},
		{name: "trace stop requests", yaml: traceYAML, sets: []string{"traffic.stop={requests: 5}"}, path: "traffic.stop", frag: "trace traffic only accepts max_virtual_time_seconds"},
		{name: "trace virtual time", yaml: traceYAML, sets: []string{"traffic.stop={max_virtual_time_seconds: 2.5}"}},
		{name: "agentic concurrency", yaml: traceYAML, sets: []string{"traffic.source.format=agentic_mooncake", "traffic.load={type: concurrency}"}, path: "traffic.load.type", frag: "trace format 'agentic_mooncake' requires load type trace_timestamps"},
		{name: "agentic virtual time", yaml: traceYAML, sets: []string{"traffic.source.format=agentic_mooncake", "traffic.stop={max_virtual_time_seconds: 2}"}, path: "traffic.stop.max_virtual_time_seconds", frag: "trace format 'agentic_mooncake' rejects max_virtual_time_seconds"},
		{name: "agentic good", yaml: traceYAML, sets: []string{"traffic.source.format=agentic_mooncake", "traffic.load.agentic_lanes=2"}},
		{name: "weka concurrency", yaml: traceYAML, sets: []string{"traffic.source.format=weka", "traffic.load={type: concurrency}"}, path: "traffic.load.type", frag: "trace format 'weka' requires load type trace_timestamps"},
		{name: "applied compute trace timestamps", yaml: traceYAML, sets: []string{"traffic.source.format=applied_compute_agentic"}, path: "traffic.load.type", frag: "trace format 'applied_compute_agentic' requires load type concurrency"},
		{name: "applied compute concurrency", yaml: traceYAML, sets: []string{"traffic.source.format=applied_compute_agentic", "traffic.load={type: concurrency}"}},
		{name: "lanes on mooncake", yaml: traceYAML, sets: []string{"traffic.load.agentic_lanes=2"}, path: "traffic.load.agentic_lanes", frag: "agentic_lanes is only valid for trace formats agentic_mooncake, dynamo and weka"},
		{name: "lanes on dynamo", yaml: traceYAML, sets: []string{"traffic.source.format=dynamo", "traffic.load.agentic_lanes=2"}},
		{name: "lanes zero", yaml: traceYAML, sets: []string{"traffic.source.format=dynamo", "traffic.load.agentic_lanes=0"}, path: "traffic.load.agentic_lanes", frag: "must be greater than 0"},
		{name: "speedup zero", yaml: traceYAML, sets: []string{"traffic.load.speedup=0"}, path: "traffic.load.speedup", frag: "must be greater than 0, got 0"},
		{name: "delta disaggregated", yaml: disaggYAML + "traffic: {source: {type: trace, paths: [t], format: mooncake-delta}, load: {type: trace_timestamps}}\n", path: "engine.mode", frag: "trace format 'mooncake-delta' requires engine.mode: aggregated"},
		{name: "agentic disaggregated", yaml: disaggYAML + "traffic: {source: {type: trace, paths: [t], format: agentic_mooncake}, load: {type: trace_timestamps}}\n", path: "engine.mode", frag: "requires engine.mode: aggregated"},
		{name: "weka disaggregated", yaml: disaggYAML + "traffic: {source: {type: trace, paths: [t], format: weka}, load: {type: trace_timestamps}}\n", path: "engine.mode", frag: "trace format 'weka' requires engine.mode: aggregated"},
		{name: "mooncake disaggregated", yaml: disaggYAML + "traffic: {source: {type: trace, paths: [t]}, load: {type: trace_timestamps}}\n"},
	})
}

func TestEngineRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "model missing", yaml: "engine: {hardware: h, workers: {aggregated: {}}}\n", path: "engine", frag: `missing required key "model"`},
		{name: "model empty", yaml: aggYAML, sets: []string{`engine.model=""`}, path: "engine.model", frag: "must be a non-empty string"},
		{name: "model number", yaml: aggYAML, sets: []string{"engine.model=5"}, path: "engine.model", frag: "must be a string, got 5"},
		{name: "hardware missing", yaml: "engine: {model: m, workers: {aggregated: {}}}\n", path: "engine", frag: `missing required key "hardware"`},
		{name: "hardware auto", yaml: aggYAML, sets: []string{"engine.hardware=auto"}, path: "engine.hardware", frag: "engine.hardware='auto' is recommendation-only"},
		{name: "backend unknown", yaml: aggYAML, sets: []string{"engine.backend=tgi"}, path: "engine.backend", frag: "must be one of vllm, sglang, trtllm; got string \"tgi\""},
		{name: "mode unknown", yaml: aggYAML, sets: []string{"engine.mode=agg"}, path: "engine.mode", frag: "must be one of aggregated, disaggregated"},
		{name: "mode afd", yaml: aggYAML, sets: []string{"engine.mode=afd"}, path: "engine.mode", frag: "analytical engine stack"},
		{name: "backend_version null", yaml: aggYAML, sets: []string{"engine.backend_version=null"}},
		{name: "backend_version string", yaml: aggYAML, sets: []string{"engine.backend_version=previous"}},
		{name: "backend_version empty", yaml: aggYAML, sets: []string{`engine.backend_version=""`}, path: "engine.backend_version", frag: "must be a non-empty string"},
		{name: "backend_version number", yaml: aggYAML, sets: []string{"engine.backend_version=0.24"}, path: "engine.backend_version", frag: "must be a string, got 0.24"},
		{name: "context_length max", yaml: aggYAML, sets: []string{"engine.context_length=max"}},
		{name: "context_length 0", yaml: aggYAML, sets: []string{"engine.context_length=0"}, path: "engine.context_length", frag: "must be greater than 0, got 0"},
		{name: "context_length word", yaml: aggYAML, sets: []string{"engine.context_length=maximum"}, path: "engine.context_length", frag: `must be a positive integer or "max"`},
		{name: "engine unknown key", yaml: aggYAML, sets: []string{"engine.modle=x"}, path: "engine", frag: `unknown key "modle"; allowed keys: backend, backend_version,`},
		{name: "engine typo suggestion", yaml: aggYAML, sets: []string{"engine.modell=x"}, path: "engine", frag: `(did you mean "model"?)`},
		{name: "aic control", yaml: aggYAML, sets: []string{"engine.database_mode=SOL"}, path: "engine.database_mode", frag: "AIC estimator controls are not supported"},
		{name: "nextn accepted", yaml: aggYAML, sets: []string{"engine.nextn_accepted=2"}, path: "engine.nextn_accepted", frag: "engine.nextn_accept_rates instead"},
		{name: "nextn good", yaml: aggYAML, sets: []string{"engine.nextn=3"}},
		{name: "nextn 0 with empty rates", yaml: aggYAML, sets: []string{"engine.nextn=0", "engine.nextn_accept_rates=[]"}},
		{name: "nextn rates good", yaml: disaggYAML, sets: []string{"engine.nextn=2", "engine.nextn_accept_rates=[1, 0.25]"}},
		{name: "nextn rates null", yaml: aggYAML, sets: []string{"engine.nextn=2", "engine.nextn_accept_rates=null"}},
		{name: "prefill_ms 1.7e308", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: 1.7e308, decode_ms: 1}"}, path: "engine.workers.aggregated.timing.prefill_ms", frag: "must be at most 1000000000000 (about 31.7 years; longer times overflow the simulated clock), got 1.7e+308"},
		{name: "frontend_ms 1.7e308", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: 1, decode_ms: 1, frontend_ms: 1.7e308}"}, path: "engine.workers.aggregated.timing.frontend_ms", frag: "must be at most 1000000000000"},
		{name: "startup 1e300 s", yaml: aggYAML, sets: []string{"engine.workers.aggregated.startup_seconds=1e300"}, path: "engine.workers.aggregated.startup_seconds", frag: "must be at most 1000000000 (about 31.7 years"},
		{name: "nextn negative", yaml: aggYAML, sets: []string{"engine.nextn=-1"}, path: "engine.nextn", frag: "must be at least 0, got -1"},
		{name: "nextn 6", yaml: aggYAML, sets: []string{"engine.nextn=6"}, path: "engine.nextn", frag: "must be at most 5, got 6"},
		{name: "nextn float", yaml: aggYAML, sets: []string{"engine.nextn=1.5"}, path: "engine.nextn", frag: "must be an integer, got 1.5"},
		{name: "nextn rates count", yaml: aggYAML, sets: []string{"engine.nextn=2", "engine.nextn_accept_rates=[0.5]"}, path: "engine.nextn_accept_rates", frag: "must have exactly engine.nextn = 2 entries (one acceptance probability per draft token), got 1"},
		{name: "nextn rates without nextn", yaml: aggYAML, sets: []string{"engine.nextn_accept_rates=[0.5]"}, path: "engine.nextn_accept_rates", frag: "must have exactly engine.nextn = 0 entries"},
		{name: "nextn rates not list", yaml: aggYAML, sets: []string{"engine.nextn=1", "engine.nextn_accept_rates=0.5"}, path: "engine.nextn_accept_rates", frag: "must be a list of 1 acceptance probabilities in [0, 1]"},
		{name: "nextn rate above 1", yaml: aggYAML, sets: []string{"engine.nextn=2", "engine.nextn_accept_rates=[0.5, 1.5]"}, path: "engine.nextn_accept_rates.1", frag: "must be at most 1, got 1.5"},
		{name: "nextn rate negative", yaml: aggYAML, sets: []string{"engine.nextn=1", "engine.nextn_accept_rates=[-0.1]"}, path: "engine.nextn_accept_rates.0", frag: "must be at least 0, got -0.1"},
		{name: "nextn rate string", yaml: aggYAML, sets: []string{"engine.nextn=1", "engine.nextn_accept_rates=[high]"}, path: "engine.nextn_accept_rates.0", frag: "must be a number"},
		{name: "aic control null", yaml: aggYAML, sets: []string{"engine.database_mode=null"}},
		{name: "nextn null", yaml: aggYAML, sets: []string{"engine.nextn=null"}},
		{name: "speculation", yaml: aggYAML, sets: []string{"engine.speculation={kind: ngram}"}, path: "engine.speculation", frag: "speculation needs the offline engine stack"},
		{name: "quant mode", yaml: aggYAML, sets: []string{"engine.gemm_quant_mode=fp8"}},
		{name: "quant mode number", yaml: aggYAML, sets: []string{"engine.kvcache_quant_mode=8"}, path: "engine.kvcache_quant_mode", frag: "must be a string, got 8"},
		{name: "forward_model fpm", yaml: aggYAML, sets: []string{"engine.forward_model=fpm"}, path: "engine.forward_model", frag: "not supported"},
		// roles
		{name: "aggregated without role", yaml: "engine: {model: m, hardware: h}\n", path: "engine.workers", frag: "aggregated mode requires workers.aggregated"},
		{name: "aggregated role null", yaml: aggYAML, sets: []string{"engine.workers.aggregated=null"}, path: "engine.workers.aggregated", frag: "must be a mapping, got null"},
		{name: "aggregated with prefill", yaml: aggYAML, sets: []string{"engine.workers.prefill={}"}, path: "engine.workers.prefill", frag: "aggregated mode rejects prefill/decode workers"},
		{name: "aggregated with decode", yaml: aggYAML, sets: []string{"engine.workers.decode={}"}, path: "engine.workers.decode", frag: "aggregated mode rejects prefill/decode workers"},
		{name: "disaggregated good", yaml: disaggYAML},
		{name: "aggregated with null prefill", yaml: aggYAML, sets: []string{"engine.workers.prefill=null"}},
		{name: "block size null", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.block_size=null"}},
		{name: "speedup null with concurrency", yaml: seedYAML, sets: []string{"traffic.load.speedup=null"}},
		{name: "polynomial with null prefill_ms", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: polynomial, prefill_ms: null}"}},
		{name: "disaggregated without decode", yaml: disaggYAML, sets: []string{"engine.workers={prefill: {}}"}, path: "engine.workers", frag: "disaggregated mode requires workers.decode"},
		{name: "disaggregated with aggregated", yaml: disaggYAML, sets: []string{"engine.workers.aggregated={}"}, path: "engine.workers.aggregated", frag: "disaggregated mode rejects aggregated workers"},
		{name: "encoder role", yaml: aggYAML, sets: []string{"engine.workers.encoder={}"}, path: "engine.workers.encoder", frag: "encoder role"},
		{name: "workers unknown role", yaml: aggYAML, sets: []string{"engine.workers.agg={}"}, path: "engine.workers", frag: `unknown key "agg"`},
		{name: "aggregated hardware", yaml: aggYAML, sets: []string{"engine.workers.aggregated.hardware=h100_sxm"}, path: "engine.workers.aggregated.hardware", frag: "only valid for disaggregated prefill/decode roles"},
		{name: "prefill hardware", yaml: disaggYAML, sets: []string{"engine.workers.prefill.hardware=h100_sxm"}},
		{name: "prefill hardware auto", yaml: disaggYAML, sets: []string{"engine.workers.prefill.hardware=auto"}, path: "engine.workers.prefill.hardware", frag: "'auto' is recommendation-only"},
		// parallelism
		{name: "replicas 0", yaml: aggYAML, sets: []string{"engine.workers.aggregated.parallelism.replicas=0"}, path: "engine.workers.aggregated.parallelism.replicas", frag: "must be greater than 0, got 0"},
		{name: "parallelism unknown", yaml: aggYAML, sets: []string{"engine.workers.aggregated.parallelism.tp=2"}, path: "engine.workers.aggregated.parallelism", frag: `unknown key "tp"`},
		{name: "parallelism context", yaml: aggYAML, sets: []string{"engine.workers.aggregated.parallelism.context=2"}, path: "engine.workers.aggregated.parallelism.context", frag: "context parallelism"},
		{name: "attention dp aggregated", yaml: aggYAML, sets: []string{"engine.workers.aggregated.parallelism.attention_data=2"}},
		{name: "attention dp disaggregated decode", yaml: disaggYAML, sets: []string{"engine.workers.decode.parallelism.attention_data=2"}},
		{name: "attention dp disaggregated prefill", yaml: disaggYAML, sets: []string{"engine.workers.prefill.parallelism.attention_data=4"}},
		// scheduler
		{name: "max_batched_tokens 0", yaml: aggYAML, sets: []string{"engine.workers.aggregated.scheduler.max_batched_tokens=0"}, path: "engine.workers.aggregated.scheduler.max_batched_tokens", frag: "must be greater than 0"},
		{name: "schedule interval on sglang", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.scheduler.prefill_schedule_interval=2"}, path: "engine.workers.aggregated.scheduler.prefill_schedule_interval", frag: "workers.aggregated.scheduler.prefill_schedule_interval is supported only for backend=vllm"},
		{name: "schedule interval 1 on sglang", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.scheduler.prefill_schedule_interval=1"}},
		{name: "schedule interval 2 on vllm", yaml: aggYAML, sets: []string{"engine.workers.aggregated.scheduler.prefill_schedule_interval=2"}, path: "engine.workers.aggregated.scheduler.prefill_schedule_interval", frag: "the dynamo runner requires prefill_schedule_interval 1, got 2"},
		{name: "decode interval on vllm", yaml: aggYAML, sets: []string{"engine.workers.aggregated.scheduler.prefill_decode_interval=3"}, path: "engine.workers.aggregated.scheduler.prefill_decode_interval", frag: "workers.aggregated.scheduler.prefill_decode_interval is supported only for backend=sglang"},
		{name: "decode interval on sglang", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.scheduler.prefill_decode_interval=3"}},
		{name: "decode interval negative", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.scheduler.prefill_decode_interval=-1"}, path: "engine.workers.aggregated.scheduler.prefill_decode_interval", frag: "must be at least 0"},
		{name: "recv interval on vllm", yaml: aggYAML, sets: []string{"engine.workers.aggregated.scheduler.recv_interval=30"}, path: "engine.workers.aggregated.scheduler.recv_interval", frag: "workers.aggregated.scheduler.recv_interval is supported only for backend=sglang"},
		{name: "recv interval on trtllm", yaml: aggYAML, sets: []string{"engine.backend=trtllm", "engine.workers.aggregated.scheduler.recv_interval=2"}, path: "engine.workers.aggregated.scheduler.recv_interval", frag: "workers.aggregated.scheduler.recv_interval is supported only for backend=sglang"},
		{name: "recv interval 1 on vllm", yaml: aggYAML, sets: []string{"engine.workers.aggregated.scheduler.recv_interval=1"}},
		{name: "recv interval on sglang", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.scheduler.recv_interval=30"}},
		{name: "recv interval 0", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.scheduler.recv_interval=0"}, path: "engine.workers.aggregated.scheduler.recv_interval", frag: "must be greater than 0"},
		// kv cache
		{name: "block size 1 vllm", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.block_size=1"}, path: "engine.workers.aggregated.kv_cache.block_size", frag: "must be at least 2 for backend vllm, got 1"},
		{name: "block size 1 trtllm", yaml: aggYAML, sets: []string{"engine.backend=trtllm", "engine.workers.aggregated.kv_cache.block_size=1"}, path: "engine.workers.aggregated.kv_cache.block_size", frag: "must be at least 2 for backend trtllm"},
		{name: "block size 1 sglang", yaml: aggYAML, sets: []string{"engine.backend=sglang", "engine.workers.aggregated.kv_cache.block_size=1"}},
		{name: "prefix caching string", yaml: aggYAML, sets: []string{`engine.workers.aggregated.kv_cache.prefix_caching="true"`}, path: "engine.workers.aggregated.kv_cache.prefix_caching", frag: `must be a boolean (true or false), got string "true"`},
		{name: "bytes per token auto", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.bytes_per_token=auto"}},
		{name: "bytes per token word", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.bytes_per_token=automatic"}, path: "engine.workers.aggregated.kv_cache.bytes_per_token", frag: `must be a positive integer or "auto"`},
		{name: "host offload", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.host_offload={num_host_blocks: 4}"}, path: "engine.workers.aggregated.kv_cache.host_offload", frag: "not supported"},
		{name: "host offload null", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.host_offload=null"}},
		// capacity
		{name: "default capacity blocks", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={blocks: 10}"}, path: "engine.workers.aggregated.kv_cache.capacity.blocks", frag: "default KV capacity rejects blocks"},
		{name: "fixed capacity without blocks", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed}"}, path: "engine.workers.aggregated.kv_cache.capacity", frag: "fixed KV capacity requires blocks"},
		{name: "fixed capacity blocks 0", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 0}"}, path: "engine.workers.aggregated.kv_cache.capacity.blocks", frag: "must be greater than 0, got 0"},
		{name: "fixed capacity good", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 100}"}},
		{name: "fixed capacity memory fraction", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 1, memory_fraction: 0.5}"}, path: "engine.workers.aggregated.kv_cache.capacity.memory_fraction", frag: "fixed KV capacity rejects memory_fraction"},
		{name: "fixed capacity cuda graph", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 1, cuda_graph_reserved_bytes: 5}"}, path: "engine.workers.aggregated.kv_cache.capacity.cuda_graph_reserved_bytes", frag: "rejects a non-zero cuda_graph_reserved_bytes"},
		{name: "fixed capacity cuda graph 0", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: fixed, blocks: 1, cuda_graph_reserved_bytes: 0}"}},
		{name: "fixed capacity blocks and bytes", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache={block_size: 16, bytes_per_token: 8, capacity: {type: fixed, blocks: 1, bytes: 1024}}"}, path: "engine.workers.aggregated.kv_cache.capacity", frag: "exactly one of blocks or bytes"},
		{name: "fixed capacity bytes without block size", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache={bytes_per_token: 8, capacity: {type: fixed, bytes: 1024}}"}, path: "engine.workers.aggregated.kv_cache.capacity.bytes", frag: "needs an explicit kv_cache.block_size and a numeric kv_cache.bytes_per_token"},
		{name: "fixed capacity bytes too small", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache={block_size: 16, bytes_per_token: 8, capacity: {type: fixed, bytes: 100}}"}, path: "engine.workers.aggregated.kv_cache.capacity.bytes", frag: "hold no whole KV block"},
		{name: "capacity type unknown", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity={type: auto}"}, path: "engine.workers.aggregated.kv_cache.capacity.type", frag: "must be one of default, fixed"},
		{name: "memory fraction 0", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity.memory_fraction=0"}, path: "engine.workers.aggregated.kv_cache.capacity.memory_fraction", frag: "must be greater than 0, got 0"},
		{name: "memory fraction 1", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity.memory_fraction=1"}},
		{name: "memory fraction 1.01", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity.memory_fraction=1.01"}, path: "engine.workers.aggregated.kv_cache.capacity.memory_fraction", frag: "must be at most 1, got 1.01"},
		{name: "cuda graph negative", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity.cuda_graph_reserved_bytes=-1"}, path: "engine.workers.aggregated.kv_cache.capacity.cuda_graph_reserved_bytes", frag: "must be at least 0"},
		{name: "cuda graph above 2^53", yaml: aggYAML, sets: []string{"engine.workers.aggregated.kv_cache.capacity.cuda_graph_reserved_bytes=9007199254740993"}, path: "engine.workers.aggregated.kv_cache.capacity.cuda_graph_reserved_bytes", frag: "must be at most 9007199254740992, got 9007199254740993"},
		// timing
		{name: "fixed timing good", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: 1, decode_ms: 0.5}"}},
		{name: "fixed timing missing decode", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: 1}"}, path: "engine.workers.aggregated.timing", frag: "fixed timing requires prefill_ms and decode_ms"},
		{name: "fixed timing negative", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: -1, decode_ms: 1}"}, path: "engine.workers.aggregated.timing.prefill_ms", frag: "must be at least 0, got -1"},
		{name: "polynomial with prefill_ms", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: polynomial, prefill_ms: 1}"}, path: "engine.workers.aggregated.timing.prefill_ms", frag: "polynomial timing rejects fixed timing values"},
		{name: "polynomial good", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: polynomial}"}},
		{name: "default timing with decode_ms", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={decode_ms: 1}"}, path: "engine.workers.aggregated.timing.decode_ms", frag: "default timing rejects fixed timing values"},
		{name: "default timing op_level", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: default, forward_model: op_level}"}},
		{name: "timing type unknown", yaml: aggYAML, sets: []string{"engine.workers.aggregated.timing={type: constant}"}, path: "engine.workers.aggregated.timing.type", frag: "must be one of default, fixed, polynomial"},
		{name: "startup negative", yaml: aggYAML, sets: []string{"engine.workers.aggregated.startup_seconds=-1"}, path: "engine.workers.aggregated.startup_seconds", frag: "must be at least 0, got -1"},
		// kv transfer
		{name: "kv transfer aggregated", yaml: aggYAML, sets: []string{"engine.kv_transfer={bandwidth_gb_per_second: 10}"}, path: "engine.kv_transfer", frag: "aggregated mode rejects kv_transfer"},
		{name: "kv transfer null aggregated", yaml: aggYAML, sets: []string{"engine.kv_transfer=null"}},
		{name: "kv transfer good", yaml: disaggYAML, sets: []string{"engine.kv_transfer={bytes_per_token: 131072, bandwidth_gb_per_second: 50, timing_mode: full_prompt}"}},
		{name: "kv transfer bandwidth 0", yaml: disaggYAML, sets: []string{"engine.kv_transfer={bandwidth_gb_per_second: 0}"}, path: "engine.kv_transfer.bandwidth_gb_per_second", frag: "must be greater than 0, got 0"},
		{name: "kv transfer timing mode", yaml: disaggYAML, sets: []string{"engine.kv_transfer={timing_mode: eager}"}, path: "engine.kv_transfer.timing_mode", frag: "must be one of destination_missing, full_prompt"},
		{name: "handoff number", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: 12.5}"}},
		{name: "handoff zero", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: 0}"}},
		{name: "handoff auto", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: auto}"}},
		{name: "handoff null", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: null}"}},
		{name: "handoff negative", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: -1}"}, path: "engine.kv_transfer.handoff_ms", frag: "must be at least 0, got -1"},
		{name: "handoff word", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: fast}"}, path: "engine.kv_transfer.handoff_ms", frag: `must be a number of milliseconds >= 0 or "auto"`},
		{name: "handoff bool", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: true}"}, path: "engine.kv_transfer.handoff_ms", frag: `must be a number of milliseconds >= 0 or "auto"`},
		{name: "handoff infinite", yaml: disaggYAML, sets: []string{"engine.kv_transfer={handoff_ms: .inf}"}, path: "engine.kv_transfer.handoff_ms", frag: "must be a finite number"},
		{name: "kv transfer unknown", yaml: disaggYAML, sets: []string{"engine.kv_transfer={bandwidth: 1}"}, path: "engine.kv_transfer", frag: `unknown key "bandwidth"`},
		// runner capability
		{name: "trtllm disaggregated", yaml: disaggYAML, sets: []string{"engine.backend=trtllm"}},
		{name: "trtllm aggregated", yaml: aggYAML, sets: []string{"engine.backend=trtllm"}},
		{name: "sglang disaggregated", yaml: disaggYAML, sets: []string{"engine.backend=sglang"}},
	})
}

func TestRouterRules(t *testing.T) {
	two := "engine.workers.aggregated.parallelism.replicas=2"
	runRuleCases(t, []ruleCase{
		{name: "empty router", yaml: aggYAML + "router: {}\n"},
		{name: "policy unknown", yaml: aggYAML + "router: {policy: random}\n", path: "router.policy", frag: "must be one of round_robin, kv_router"},
		{name: "router unknown key", yaml: aggYAML + "router: {mode: kv_router}\n", path: "router", frag: `unknown key "mode"`},
		{name: "round robin temperature", yaml: aggYAML + "router: {policy: round_robin, temperature: 0.5}\n", path: "router.temperature", frag: "round_robin requires prefill_load_model.type='none' and rejects KV-router knobs ['temperature']"},
		{name: "round robin aic", yaml: aggYAML + "router: {prefill_load_model: {type: aic}}\n", path: "router.prefill_load_model.type", frag: "'aic' is incompatible with router.policy='round_robin'; use policy='kv_router' or type='none'"},
		{name: "round robin none model", yaml: aggYAML + "router: {prefill_load_model: {type: none}}\n"},
		{name: "load model unknown", yaml: aggYAML + "router: {prefill_load_model: {type: fast}}\n", path: "router.prefill_load_model.type", frag: "must be one of none, aic"},
		{name: "kv router good", yaml: aggYAML + "router: {policy: kv_router, prefill_load_model: {type: aic}, overlap_score_credit: 0.5, prefill_load_scale: 2, temperature: 0.2}\n", sets: []string{two}},
		{name: "kv router null knob", yaml: aggYAML + "router: {policy: kv_router, temperature: null}\n", sets: []string{two}, path: "router.temperature", frag: "Router numeric knobs do not accept null"},
		{name: "kv router negative knob", yaml: aggYAML + "router: {policy: kv_router, prefill_load_scale: -1}\n", sets: []string{two}, path: "router.prefill_load_scale", frag: "must be at least 0, got -1"},
		{name: "kv router infinite knob", yaml: aggYAML + "router: {policy: kv_router, overlap_score_credit: .inf}\n", sets: []string{two}, path: "router.overlap_score_credit", frag: "must be a finite number, got .inf"},
		{name: "kv router one worker", yaml: aggYAML + "router: {policy: kv_router}\n", path: "router.policy", frag: "kv_router requires more than one routable worker"},
		{name: "kv router attention dp", yaml: aggYAML + "router: {policy: kv_router}\n", sets: []string{"engine.workers.aggregated.parallelism.attention_data=2"}},
		{name: "kv router disaggregated one prefill", yaml: disaggYAML + "router: {policy: kv_router}\n", path: "router.policy", frag: "kv_router needs more than one routable worker, but engine.workers.prefill has replicas × attention_data = 1; add replicas or use policy: round_robin"},
		{name: "kv router disaggregated one decode", yaml: disaggYAML + "router: {policy: kv_router}\n", sets: []string{"engine.workers.prefill.parallelism.replicas=2"}, path: "router.policy", frag: "but engine.workers.decode has replicas × attention_data = 1"},
		{name: "kv router disaggregated", yaml: disaggYAML + "router: {policy: kv_router}\n", sets: []string{"engine.workers.prefill.parallelism.replicas=2", "engine.workers.decode.parallelism.replicas=2"}},
		{name: "kv router disaggregated with planner", yaml: disaggYAML + "router: {policy: kv_router}\nplanner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n"},
	})
}

func TestPlannerRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "disabled with knobs", yaml: seedYAML + "planner: {policy: disabled, max_num_gpus: 16}\n"},
		{name: "policy unknown", yaml: seedYAML + "planner: {policy: on}\n", path: "planner.policy", frag: "must be one of disabled, enabled"},
		{name: "planner unknown key", yaml: seedYAML + "planner: {target_sla: 1}\n", path: "planner", frag: `unknown key "target_sla"`},
		{name: "enabled default needs sla target", yaml: seedYAML + "planner: {policy: enabled}\n", path: "planner.enable_throughput_scaling", frag: "Planner throughput scaling requires target='sla' and evaluation.sla.ttft_ms/itl_ms"},
		{name: "enabled sla target without sla", yaml: seedYAML + "planner: {policy: enabled, target: sla}\n", path: "planner.enable_throughput_scaling", frag: "requires target='sla'"},
		{name: "enabled sla target with e2e sla", yaml: seedYAML + "evaluation: {sla: {e2e_ms: 900}}\nplanner: {policy: enabled, target: sla}\n", path: "planner.enable_throughput_scaling", frag: "evaluation.sla.ttft_ms/itl_ms"},
		{name: "enabled throughput good", yaml: slaYAML + "planner: {policy: enabled, target: sla}\n"},
		{name: "enabled no scaling", yaml: seedYAML + "planner: {policy: enabled, enable_throughput_scaling: false}\n", path: "planner.policy", frag: "planner.policy=enabled requires at least one scaling mode"},
		{name: "enabled load only", yaml: seedYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n"},
		{name: "intervals equal", yaml: slaYAML + "planner: {policy: enabled, target: sla, enable_load_scaling: true, load_adjustment_interval_seconds: 180}\n", path: "planner.load_adjustment_interval_seconds", frag: "must be less than throughput_adjustment_interval_seconds (180) when both scaling modes are enabled, got 180"},
		{name: "intervals ordered", yaml: slaYAML + "planner: {policy: enabled, target: sla, enable_load_scaling: true, load_adjustment_interval_seconds: 10}\n"},
		{name: "bucket not square", yaml: seedYAML + "planner: {fpm_sample_bucket_size: 15}\n", path: "planner.fpm_sample_bucket_size", frag: "must be a perfect square"},
		{name: "bucket square", yaml: seedYAML + "planner: {fpm_sample_bucket_size: 64}\n"},
		{name: "sensitivity 101", yaml: seedYAML + "planner: {load_scaling_down_sensitivity: 101}\n", path: "planner.load_scaling_down_sensitivity", frag: "must be at most 100, got 101"},
		{name: "sensitivity 0", yaml: seedYAML + "planner: {load_scaling_down_sensitivity: 0}\n"},
		{name: "sensitivity negative", yaml: seedYAML + "planner: {load_scaling_down_sensitivity: -1}\n", path: "planner.load_scaling_down_sensitivity", frag: "must be at least 0"},
		{name: "interval 0", yaml: seedYAML + "planner: {throughput_adjustment_interval_seconds: 0}\n", path: "planner.throughput_adjustment_interval_seconds", frag: "must be greater than 0"},
		{name: "predictor unknown", yaml: seedYAML + "planner: {load_predictor: lstm}\n", path: "planner.load_predictor", frag: "must be one of arima, constant, prophet, kalman"},
		{name: "kalman r 0", yaml: seedYAML + "planner: {kalman_r: 0}\n", path: "planner.kalman_r", frag: "must be greater than 0"},
		{name: "max gpus 0", yaml: seedYAML + "planner: {max_num_gpus: 0}\n", path: "planner.max_num_gpus", frag: "must be a positive GPU count or -1"},
		{name: "max gpus unlimited", yaml: seedYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true, max_num_gpus: -1, min_workers: 100}\n"},
		{name: "max gpus below min", yaml: seedYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true, max_num_gpus: 3, min_workers: 2}\n", sets: []string{"engine.workers.aggregated.parallelism.tensor=2"}, path: "planner.max_num_gpus", frag: "must be at least 4 (2 GPUs per aggregated worker × min_workers 2), got 3"},
		{name: "max gpus disaggregated", yaml: disaggYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true, max_num_gpus: 4, prefill_min_workers: 2, decode_min_workers: 3}\n", path: "planner.max_num_gpus", frag: "must be at least 5"},
		{name: "min gpus above max", yaml: seedYAML + "planner: {max_num_gpus: 4, min_num_gpus: 8}\n", path: "planner.min_num_gpus", frag: "must not exceed max_num_gpus (4)"},
		{name: "min workers negative", yaml: seedYAML + "planner: {min_workers: -1}\n", path: "planner.min_workers", frag: "must be at least 0"},
		{name: "prefill min workers 0", yaml: seedYAML + "planner: {prefill_min_workers: 0}\n", path: "planner.prefill_min_workers", frag: "must be greater than 0"},
		{name: "prefill min workers null", yaml: seedYAML + "planner: {prefill_min_workers: null}\n"},
		{name: "log1p not bool", yaml: seedYAML + "planner: {load_predictor_log1p: 1}\n", path: "planner.load_predictor_log1p", frag: "must be a boolean (true or false), got 1"},
		{name: "delta with planner", yaml: traceYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n", sets: []string{"traffic.source.format=mooncake-delta"}, path: "planner.policy", frag: "mooncake-delta requires planner.policy=disabled"},
		{name: "agentic with planner", yaml: traceYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n", sets: []string{"traffic.source.format=agentic_mooncake"}, path: "planner.policy", frag: "agentic_mooncake requires planner.policy=disabled"},
		{name: "weka with planner", yaml: traceYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n", sets: []string{"traffic.source.format=weka"}, path: "planner.policy", frag: "weka requires planner.policy=disabled"},
		{name: "delta with disabled planner", yaml: traceYAML + "planner: {policy: disabled}\n", sets: []string{"traffic.source.format=mooncake-delta"}},
		{name: "lanes with planner", yaml: traceYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n", sets: []string{"traffic.source.format=dynamo", "traffic.load.agentic_lanes=2"}, path: "planner.policy", frag: "agentic_lanes cannot be combined with the planner"},
		{name: "mooncake with planner", yaml: traceYAML + "planner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n"},
	})
}

func TestEvaluationRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "pair", yaml: slaYAML},
		{name: "ttft only", yaml: seedYAML + "evaluation: {sla: {ttft_ms: 500}}\n", path: "evaluation.sla", frag: "prediction evaluation.sla requires ttft_ms and itl_ms together; add itl_ms"},
		{name: "itl only", yaml: seedYAML + "evaluation: {sla: {itl_ms: 50}}\n", path: "evaluation.sla", frag: "add ttft_ms"},
		{name: "e2e alone", yaml: seedYAML + "evaluation: {sla: {e2e_ms: 900}}\n"},
		{name: "e2e with ttft", yaml: seedYAML + "evaluation: {sla: {e2e_ms: 900, ttft_ms: 1, itl_ms: 1}}\n", path: "evaluation.sla", frag: "e2e_ms is mutually exclusive with ttft_ms/itl_ms"},
		{name: "ttft 0", yaml: seedYAML + "evaluation: {sla: {ttft_ms: 0, itl_ms: 1}}\n", path: "evaluation.sla.ttft_ms", frag: "must be greater than 0, got 0"},
		{name: "itl nan", yaml: seedYAML + "evaluation: {sla: {ttft_ms: 1, itl_ms: .nan}}\n", path: "evaluation.sla.itl_ms", frag: "must be a finite number, got .nan"},
		{name: "sla unknown key", yaml: seedYAML + "evaluation: {sla: {tpot_ms: 1}}\n", path: "evaluation.sla", frag: `unknown key "tpot_ms"`},
		{name: "sla null", yaml: seedYAML + "evaluation: {sla: null}\n"},
		{name: "evaluation empty", yaml: seedYAML + "evaluation: {}\n"},
	})
}

// TestStrictTypes covers the pydantic strict-mode facts: ints must be YAML ints, floats accept
// ints, booleans must be booleans, strings are never numbers, non-finite floats are refused.
func TestStrictTypes(t *testing.T) {
	conc := "traffic.load.concurrency"
	rate := "traffic.load.requests_per_second"
	poisson := "traffic.load={type: poisson, requests_per_second: 1}"
	pc := "engine.workers.aggregated.kv_cache.prefix_caching"
	runRuleCases(t, []ruleCase{
		{name: "int 8", yaml: seedYAML, sets: []string{conc + "=8"}},
		{name: "int 2.5", yaml: seedYAML, sets: []string{conc + "=2.5"}, path: conc, frag: "must be an integer, got 2.5"},
		{name: "int 2.0", yaml: seedYAML, sets: []string{conc + "=2.0"}, path: conc, frag: "must be an integer, got 2.0"},
		{name: "int 1e3", yaml: seedYAML, sets: []string{conc + "=1e3"}, path: conc, frag: "must be an integer, got 1000.0"},
		{name: "int true", yaml: seedYAML, sets: []string{conc + "=true"}, path: conc, frag: "must be an integer, got true"},
		{name: "int quoted", yaml: seedYAML, sets: []string{conc + `="8"`}, path: conc, frag: `must be an integer, got string "8"`},
		{name: "int list", yaml: seedYAML, sets: []string{conc + "=[8]"}, path: conc, frag: "must be an integer, got a list"},
		{name: "int mapping", yaml: seedYAML, sets: []string{conc + "={a: 1}"}, path: conc, frag: "must be an integer, got a mapping"},
		{name: "int overflow", yaml: seedYAML, sets: []string{conc + "=18446744073709551615"}, path: conc, frag: "fits in 64 bits"},
		{name: "int huge becomes float", yaml: seedYAML, sets: []string{conc + "=99999999999999999999999"}, path: conc, frag: "must be an integer, got 1e+23"},
		{name: "int inf", yaml: seedYAML, sets: []string{conc + "=.inf"}, path: conc, frag: "must be an integer, got .inf"},
		{name: "int hex", yaml: seedYAML, sets: []string{conc + "=0x10"}},
		{name: "concurrency null defaults", yaml: seedYAML, sets: []string{conc + "=null"}},
		{name: "float accepts int", yaml: seedYAML, sets: []string{poisson, rate + "=8"}},
		{name: "float 0.5", yaml: seedYAML, sets: []string{poisson, rate + "=0.5"}},
		{name: "float quoted", yaml: seedYAML, sets: []string{poisson, rate + `="8"`}, path: rate, frag: `must be a number, got string "8"`},
		{name: "float bool", yaml: seedYAML, sets: []string{poisson, rate + "=false"}, path: rate, frag: "must be a number, got false"},
		{name: "float inf", yaml: seedYAML, sets: []string{poisson, rate + "=.inf"}, path: rate, frag: "must be a finite number, got .inf"},
		{name: "float -inf", yaml: seedYAML, sets: []string{poisson, rate + "=-.inf"}, path: rate, frag: "must be a finite number, got -.inf"},
		{name: "float nan", yaml: seedYAML, sets: []string{poisson, rate + "=.NaN"}, path: rate, frag: "must be a finite number, got .nan"},
		{name: "bool true", yaml: seedYAML, sets: []string{pc + "=false"}},
		{name: "bool yes", yaml: seedYAML, sets: []string{pc + "=yes"}},
		{name: "bool int", yaml: seedYAML, sets: []string{pc + "=1"}, path: pc, frag: "must be a boolean (true or false), got 1"},
		{name: "bool null", yaml: seedYAML, sets: []string{pc + "=null"}, path: pc, frag: "got null"},
		{name: "int null not allowed", yaml: seedYAML, sets: []string{"traffic.source.input_tokens=null"}, path: "traffic.source.synthetic.input_tokens", frag: "must be an integer, got null"},
		{name: "inf in file", yaml: seedYAML + "evaluation: {sla: {ttft_ms: .inf, itl_ms: 1}}\n", path: "evaluation.sla.ttft_ms", frag: "must be a finite number, got .inf"},
		{name: "non-string key", yaml: seedYAML + "evaluation: {1: 2}\n", path: "evaluation", frag: `unknown key "1"`},
		{name: "enum not string", yaml: seedYAML, sets: []string{"engine.backend=1"}, path: "engine.backend", frag: "must be one of vllm, sglang, trtllm; got 1"},
	})
}

func TestSetRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "no equals", yaml: seedYAML, sets: []string{"traffic.load.concurrency"}, frag: "invalid --set 'traffic.load.concurrency'; expected PATH=YAML_VALUE"},
		{name: "list index", yaml: traceYAML, sets: []string{"traffic.source.paths.0=x"}, frag: "invalid --set path 'traffic.source.paths.0'; sequence indexes are unsupported"},
		{name: "empty segment", yaml: seedYAML, sets: []string{"engine..model=x"}, frag: "invalid --set path 'engine..model'"},
		{name: "empty path", yaml: seedYAML, sets: []string{"=x"}, frag: "invalid --set path ''"},
		{name: "optimization path", yaml: seedYAML, sets: []string{"optimization.target=ttft"}, frag: "--set path 'optimization.target' is not in the schema"},
		{name: "optimizer path", yaml: seedYAML, sets: []string{"optimizer=null"}, frag: "--set path 'optimizer' is not in the schema"},
		{name: "crossing a scalar", yaml: seedYAML, sets: []string{"engine.model.name=x"}, frag: "--set path 'engine.model.name' crosses a non-mapping value"},
		{name: "crossing a list", yaml: traceYAML, sets: []string{"traffic.source.paths.first=x"}, frag: "crosses a non-mapping value"},
		{name: "crossing null", yaml: seedYAML + "evaluation: {sla: null}\n", sets: []string{"evaluation.sla.ttft_ms=1"}, frag: "crosses a non-mapping value"},
		{name: "bad YAML value", yaml: seedYAML, sets: []string{"traffic.load={type: poisson"}, frag: "invalid YAML value for --set 'traffic.load':"},
		{name: "two YAML documents", yaml: seedYAML, sets: []string{"engine.model=a\n---\nb"}, frag: "invalid YAML value for --set 'engine.model'"},
		{name: "unknown path fails later", yaml: seedYAML, sets: []string{"engine.workers.aggregated.scheduler.max_seqs=4"}, path: "engine.workers.aggregated.scheduler", frag: `unknown key "max_seqs"`},
		{name: "unknown top-level fails as adapter", yaml: seedYAML, sets: []string{"routr.policy=kv_router"}, path: "routr", frag: `unknown top-level section "routr"; did you mean router?`},
		{name: "set creates adapter section", yaml: seedYAML, sets: []string{"router.policy=round_robin"}},
		{name: "set errors stop at first", yaml: seedYAML, sets: []string{"bad", "engine.model.x=1"}, frag: "invalid --set 'bad'"},
	})
}

func TestSetSemantics(t *testing.T) {
	// Creates missing mappings (evaluation and evaluation.sla do not exist in the seed).
	cfg := mustLoad(t, seedYAML, "evaluation.sla.ttft_ms=500", "evaluation.sla.itl_ms=50")
	if cfg.Evaluation.SLA == nil || *cfg.Evaluation.SLA.TTFTMs != 500 || *cfg.Evaluation.SLA.ITLMs != 50 {
		t.Fatalf("sla = %+v", cfg.Evaluation.SLA)
	}
	// Whole-mapping replacement changes a tagged union.
	cfg = mustLoad(t, seedYAML, "traffic.load={type: poisson, requests_per_second: 8}")
	if cfg.Traffic.Load.Type != LoadPoisson || *cfg.Traffic.Load.RequestsPerSecond != 8 || cfg.Traffic.Load.Seed != 42 {
		t.Fatalf("load = %+v", cfg.Traffic.Load)
	}
	// Left to right, last write wins.
	cfg = mustLoad(t, seedYAML, "traffic.load.concurrency=4", "traffic.load.concurrency=6")
	if cfg.Traffic.Load.Concurrency != 6 {
		t.Fatalf("concurrency = %d, want 6", cfg.Traffic.Load.Concurrency)
	}
	// Split at the first '='.
	cfg = mustLoad(t, seedYAML, "engine.model=org/a=b")
	if cfg.Engine.Model != "org/a=b" {
		t.Fatalf("model = %q", cfg.Engine.Model)
	}
	// Creates a missing intermediate deep inside an existing mapping.
	cfg = mustLoad(t, seedYAML, "engine.workers.aggregated.kv_cache.capacity.type=fixed", "engine.workers.aggregated.kv_cache.capacity.blocks=77")
	if c := cfg.Engine.Aggregated.KVCache.Capacity; c.Type != CapacityFixed || c.Blocks != 77 {
		t.Fatalf("capacity = %+v", c)
	}
	// A list value replaces a list as a whole.
	cfg = mustLoad(t, traceYAML, "traffic.source.paths=[a.jsonl, b.jsonl]", "traffic.source.format=dynamo")
	if len(cfg.Traffic.Source.Paths) != 2 || cfg.Traffic.Source.Paths[1] != "b.jsonl" {
		t.Fatalf("paths = %v", cfg.Traffic.Source.Paths)
	}
	// An empty value is YAML null.
	cfg = mustLoad(t, aggYAML, "engine.backend_version=")
	if cfg.Engine.BackendVersion != nil {
		t.Fatalf("backend_version = %v, want nil", *cfg.Engine.BackendVersion)
	}
	// The input tree is not shared between calls: the same text loads the same way again.
	cfg = mustLoad(t, seedYAML)
	if cfg.Traffic.Load.Concurrency != 8 {
		t.Fatalf("concurrency = %d, want 8", cfg.Traffic.Load.Concurrency)
	}
}

func TestWholeFileMessages(t *testing.T) {
	cases := []struct{ text, want string }{
		{"a: 1\na: 2\n", `malformed YAML: line 2: key "a" already set in map`},
		{"engine:\n\tmodel: m\n", "malformed YAML: line 2: found character that cannot start any token"},
		{"1: a\n\"1\": b\n", `malformed YAML: mapping key "1" appears twice`},
		{"", "configuration must contain one YAML mapping (with at least an engine section), got an empty document"},
		{"- a\n", "configuration must contain one YAML mapping (with at least an engine section), got a list"},
	}
	for _, c := range cases {
		_, err := LoadConfig([]byte(c.text), nil)
		var se *Error
		if !errors.As(err, &se) || se.Path != "" || se.Msg != c.want {
			t.Errorf("%q: got %#v, want Msg %q with empty Path", c.text, err, c.want)
		}
	}
	// Error() prefixes the path when there is one.
	if got := (&Error{Path: "traffic.load", Msg: "bad"}).Error(); got != "traffic.load: bad" {
		t.Errorf("Error() = %q", got)
	}
}
