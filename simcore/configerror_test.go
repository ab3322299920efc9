package simcore

import (
	"errors"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/spec"
)

// Every kind of error found while lowering is reported at the configuration value at fault,
// the role included, with the reason its package gave (docs/config.md, "Errors").
func TestLoweringErrorPaths(t *testing.T) {
	const agg = "engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, workers: {aggregated: {kv_cache: {block_size: 64, capacity: {type: fixed, blocks: 1024}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"
	const disagg = "engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, mode: disaggregated, workers: {" +
		"prefill: {kv_cache: {capacity: {type: fixed, blocks: 1024}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}, " +
		"decode: {kv_cache: {capacity: {type: fixed, blocks: 1024}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"
	dyn := func(extra string) string {
		return `{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "event_time_unix_ms": 10,` + extra +
			` "request": {"request_id": "a", "output_tokens": 2, "request_received_ms": 5, "total_time_ms": 4, "replay": {"trace_block_size": 4, "input_length": 4, "input_sequence_hashes": [1]}}}` + "\n"
	}
	files := fstest.MapFS{
		"bad.jsonl":          {Data: []byte(`{"timestamp": 0, "input_length": 4, "output_length": 1}` + "\n")},
		"dyn.jsonl":          {Data: []byte(dyn(""))},
		"dynag.jsonl":        {Data: []byte(dyn(` "agent_context": {"session_id": "s"},`))},
		"baddir/config.json": {Data: []byte(`{"num_hidden_layers": 0}`)},
		"join.jsonl": {Data: []byte(`{"schema": "dynamo.agentic_mooncake", "version": 2, "block_size": 512}` + "\n" +
			`{"request_id": "a", "play_id": "p", "output_length": 1, "hash_ids": [1]}` + "\n" +
			`{"request_id": "b", "play_id": "p", "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "dispatch", "relation": "join"}]}` + "\n")},
	}
	cases := []struct {
		name, yaml string
		sets       []string
		path, msg  string
	}{
		{"missing trace", agg + "traffic: {source: {type: trace, paths: [missing.jsonl]}, load: {type: trace_timestamps}}\n", nil,
			"traffic.source.trace.paths", "missing.jsonl: cannot open trace file (file does not exist); check traffic.source.paths"},
		{"malformed row", agg + "traffic: {source: {type: trace, paths: [bad.jsonl]}, load: {type: trace_timestamps}}\n", nil,
			"traffic.source.trace.paths", "bad.jsonl:1: hash_ids is required (a list of prefix-block ids)"},
		{"trace block size", agg + "traffic: {source: {type: trace, paths: [dyn.jsonl], format: dynamo, block_size: 16}, load: {type: trace_timestamps}}\n", nil,
			"traffic.source.trace.block_size", "dyn.jsonl:1: trace_block_size 4 differs from traffic.source.block_size 16; remove block_size (it is taken from the trace) or set it to 4"},
		{"agentic dynamo with planner", agg + "traffic: {source: {type: trace, paths: [dynag.jsonl], format: dynamo}, load: {type: trace_timestamps}}\nplanner: {policy: enabled, enable_throughput_scaling: false, enable_load_scaling: true}\n", nil,
			"planner.policy", `trace format "dynamo" with agent_context requires planner.policy=disabled`},
		{"join on dispatch", agg + "traffic: {source: {type: trace, paths: [join.jsonl], format: agentic_mooncake}, load: {type: trace_timestamps}}\n", nil,
			"traffic.source.trace.paths", `join.jsonl:3: dependencies[0] has relation "join" with trigger "dispatch"; a join dependency fires on its parent's completion, so use trigger: completion (only spawn may use dispatch)`},
		{"model directory", agg, []string{"engine.model=baddir"},
			"engine.model", `model directory "baddir": config.json lacks num_hidden_layers, hidden_size, num_attention_heads or vocab_size`},
		{"role hardware", disagg, []string{"engine.workers.decode.hardware=h900"},
			"engine.workers.decode.hardware", `unknown hardware "h900"; supported: a100_pcie, a100_sxm, a30, b200_sxm, b300_sxm, b60, gb200, gb300, h100_pcie, h100_sxm, h200_sxm, l4, l40s, rtx_pro_6000_server`},
		{"engine hardware", disagg, []string{"engine.hardware=h900"},
			"engine.hardware", `unknown hardware "h900"; supported: a100_pcie, a100_sxm, a30, b200_sxm, b300_sxm, b60, gb200, gb300, h100_pcie, h100_sxm, h200_sxm, l4, l40s, rtx_pro_6000_server`},
		{"timing parallelism", disagg, []string{"engine.workers.decode.timing={type: default}", "engine.workers.decode.parallelism.tensor=64"},
			"engine.workers.decode.parallelism.tensor", "tensor 64 exceeds the model's 32 attention heads"},
		{"engine quantisation", agg, []string{"engine.workers.aggregated.timing={type: default}", "engine.gemm_quant_mode=fp6"},
			"engine.gemm_quant_mode", `unsupported quantisation mode "fp6"; supported: bf16, fp8, fp8_block, fp8_static, int8_wo, int4_wo, nvfp4, mxfp4`},
		{"capacity quantisation", agg, []string{"engine.workers.aggregated.kv_cache.capacity={type: default}", "engine.kvcache_quant_mode=fp4"},
			"engine.kvcache_quant_mode", `unsupported quantisation mode "fp4"; supported: bf16, fp8, int8`},
		{"capacity parallelism", agg, []string{"engine.workers.aggregated.kv_cache.capacity={type: default}", "engine.workers.aggregated.parallelism.tensor=64"},
			"engine.workers.aggregated.kv_cache.capacity", "tensor 64 exceeds the model's 32 attention heads"},
		{"capacity block", disagg, []string{"engine.workers.prefill.kv_cache.capacity={type: default}", "engine.workers.prefill.kv_cache.block_size=99999999"},
			"engine.workers.prefill.kv_cache.capacity", "KV budget holds less than one block of 99999999 tokens"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Predict(Input{ConfigYAML: []byte(c.yaml), Sets: c.sets, Files: files})
			var se *spec.Error
			if !errors.As(err, &se) || se.Path != c.path || se.Msg != c.msg {
				t.Fatalf("got %v\nwant %s: %s", err, c.path, c.msg)
			}
		})
	}
}
