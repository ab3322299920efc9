package deploy

import (
	"strings"

	"aisimulate/simcore/spec"

	"go.yaml.in/yaml/v2"
)

// optionKey maps one field of our configuration to a key of TensorRT-LLM's LLM API options
// YAML (the file `trtllm-serve --extra_llm_api_options` and `python3 -m dynamo.trtllm
// --extra-engine-args` read). It is TensorRT-LLM's flag table (docs/artifacts.md).
type optionKey struct {
	// field is the configuration path, as in engineFlag.
	field string
	// key is the dotted YAML key ("kv_cache_config.tokens_per_block").
	key string
	// value returns the key's value for a role; ok false leaves the key out.
	value func(d *deployment, r role) (v any, ok bool)
}

// trtllmKeys is TensorRT-LLM's table.
var trtllmKeys = []optionKey{
	{"parallelism.tensor", "tensor_parallel_size", func(d *deployment, r role) (any, bool) {
		// With attention data parallelism the ranks of a worker are its attention-DP ranks.
		return r.w.Parallelism.Tensor * max(1, r.w.Parallelism.AttentionData), true
	}},
	{"parallelism.pipeline", "pipeline_parallel_size", func(d *deployment, r role) (any, bool) {
		return r.w.Parallelism.Pipeline, true
	}},
	{"parallelism.attention_data", "enable_attention_dp", func(d *deployment, r role) (any, bool) {
		return true, r.w.Parallelism.AttentionData > 1
	}},
	{"parallelism.moe_expert", "moe_expert_parallel_size", func(d *deployment, r role) (any, bool) {
		return r.w.Parallelism.MoeExpert, r.w.Parallelism.MoeExpert > 1
	}},
	{"parallelism.moe_tensor", "moe_tensor_parallel_size", func(d *deployment, r role) (any, bool) {
		return r.w.Parallelism.MoeTensor, r.w.Parallelism.MoeTensor > 1
	}},
	{"scheduler.max_sequences", "max_batch_size", func(d *deployment, r role) (any, bool) {
		return r.w.Scheduler.MaxSequences, true
	}},
	{"scheduler.max_batched_tokens", "max_num_tokens", func(d *deployment, r role) (any, bool) {
		return r.w.Scheduler.MaxBatchedTokens, true
	}},
	{"engine.context_length", "max_seq_len", func(d *deployment, r role) (any, bool) {
		return d.cfg.Engine.ContextLength, !d.cfg.Engine.ContextMax && d.cfg.Engine.ContextLength > 0
	}},
	{"kv_cache.capacity.memory_fraction", "kv_cache_config.free_gpu_memory_fraction", func(d *deployment, r role) (any, bool) {
		return r.w.KVCache.Capacity.MemoryFraction, defaultCapacity(r) && r.w.KVCache.Capacity.MemoryFraction > 0
	}},
	{"kv_cache.capacity.blocks", "kv_cache_config.max_tokens", func(d *deployment, r role) (any, bool) {
		return fixedBlocks(r) * r.w.KVCache.BlockSize, fixedBlocks(r) > 0
	}},
	{"kv_cache.block_size", "kv_cache_config.tokens_per_block", func(d *deployment, r role) (any, bool) {
		return r.w.KVCache.BlockSize, true
	}},
	{"kv_cache.prefix_caching", "kv_cache_config.enable_block_reuse", func(d *deployment, r role) (any, bool) {
		return r.w.KVCache.PrefixCaching, true
	}},
	{"engine.kvcache_quant_mode", "kv_cache_config.dtype", func(d *deployment, r role) (any, bool) {
		return d.kvDtype(), true
	}},
	{"engine.kv_transfer", "cache_transceiver_config.backend", func(d *deployment, r role) (any, bool) {
		return strings.ToUpper(nixlConnector), r.disaggregated()
	}},
	{"engine.mode (role prefill)", "disable_overlap_scheduler", func(d *deployment, r role) (any, bool) {
		// A disaggregated prefill worker hands each request off after one pass; TensorRT-LLM
		// runs such workers without the overlap scheduler.
		return true, r.name == spec.RolePrefill
	}},
}

// trtllmOptions is the options YAML of a TensorRT-LLM role, keys in table order and nested
// sections where their first key appears.
func (d *deployment) trtllmOptions(r role) []byte {
	var doc yaml.MapSlice
	index := map[string]int{}
	for _, k := range trtllmKeys {
		v, ok := k.value(d, r)
		if !ok {
			continue
		}
		section, key, nested := strings.Cut(k.key, ".")
		if !nested {
			doc = append(doc, yaml.MapItem{Key: k.key, Value: v})
			continue
		}
		i, seen := index[section]
		if !seen {
			i = len(doc)
			index[section] = i
			doc = append(doc, yaml.MapItem{Key: section, Value: yaml.MapSlice{}})
		}
		doc[i].Value = append(doc[i].Value.(yaml.MapSlice), yaml.MapItem{Key: key, Value: v})
	}
	head := "# TensorRT-LLM LLM API options of the " + r.name + " role (" + d.name + "),\n" +
		"# read by trtllm-serve --extra_llm_api_options and python3 -m dynamo.trtllm --extra-engine-args.\n"
	return append([]byte(head), marshal(doc)...)
}

// marshal encodes a YAML document; the values are plain maps, lists, strings, numbers and
// booleans, which always encode.
func marshal(v any) []byte {
	b, err := yaml.Marshal(v)
	if err != nil {
		panic("deploy: " + err.Error())
	}
	return b
}
