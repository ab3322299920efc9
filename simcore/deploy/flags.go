package deploy

import (
	"strconv"

	"aisimulate/simcore/spec"
)

// engineFlag maps one field of our configuration to a backend's own command-line option
// (docs/artifacts.md, "Flag tables"). Each backend has one table; the manifest's worker
// arguments and the launch scripts are both written from it.
type engineFlag struct {
	// field is the configuration path the option comes from: under engine.workers.<role>
	// unless it starts with "engine.", or the document that fixes a value the simulation
	// assumes.
	field string
	// flags are the options the row may write (a switch may have a negated form).
	flags []string
	// args returns the options and values of the row for a role; nil writes nothing.
	args func(d *deployment, r role) []string
}

// itoa formats an integer option value.
func itoa(i int) string { return strconv.Itoa(i) }

// ftoa formats a fractional option value in its shortest exact form.
func ftoa(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// when returns args if cond holds, else nil.
func when(cond bool, args ...string) []string {
	if cond {
		return args
	}
	return nil
}

// defaultCapacity reports whether the role sizes its KV cache from a memory fraction.
func defaultCapacity(r role) bool { return r.w.KVCache.Capacity.Type != spec.CapacityFixed }

// fixedBlocks is the role's fixed KV capacity in blocks (0 when it is sized by memory).
func fixedBlocks(r role) int {
	if defaultCapacity(r) {
		return 0
	}
	return r.w.KVCache.Capacity.Blocks
}

// nixlConnector is the KV transfer connector every disaggregated deployment uses: NIXL, the
// transfer library Dynamo's disaggregated recipes use with all three backends
// (docs/artifacts.md, "Decisions").
const nixlConnector = "nixl"

// vllmFlags is vLLM's table: options of `vllm serve`, which `python3 -m dynamo.vllm` also
// takes (vLLM engine arguments).
var vllmFlags = []engineFlag{
	{"parallelism.tensor", []string{"--tensor-parallel-size"}, func(d *deployment, r role) []string {
		return []string{"--tensor-parallel-size", itoa(r.w.Parallelism.Tensor)}
	}},
	{"parallelism.pipeline", []string{"--pipeline-parallel-size"}, func(d *deployment, r role) []string {
		return []string{"--pipeline-parallel-size", itoa(r.w.Parallelism.Pipeline)}
	}},
	{"parallelism.attention_data", []string{"--data-parallel-size"}, func(d *deployment, r role) []string {
		return when(r.w.Parallelism.AttentionData > 1, "--data-parallel-size", itoa(r.w.Parallelism.AttentionData))
	}},
	{"parallelism.moe_expert", []string{"--enable-expert-parallel"}, func(d *deployment, r role) []string {
		return when(r.w.Parallelism.MoeExpert > 1, "--enable-expert-parallel")
	}},
	{"scheduler.max_batched_tokens", []string{"--max-num-batched-tokens"}, func(d *deployment, r role) []string {
		return []string{"--max-num-batched-tokens", itoa(r.w.Scheduler.MaxBatchedTokens)}
	}},
	{"scheduler.max_sequences", []string{"--max-num-seqs"}, func(d *deployment, r role) []string {
		return []string{"--max-num-seqs", itoa(r.w.Scheduler.MaxSequences)}
	}},
	{"kv_cache.capacity.memory_fraction", []string{"--gpu-memory-utilization"}, func(d *deployment, r role) []string {
		return when(defaultCapacity(r) && r.w.KVCache.Capacity.MemoryFraction > 0, "--gpu-memory-utilization", ftoa(r.w.KVCache.Capacity.MemoryFraction))
	}},
	{"kv_cache.capacity.blocks", []string{"--num-gpu-blocks-override"}, func(d *deployment, r role) []string {
		return when(fixedBlocks(r) > 0, "--num-gpu-blocks-override", itoa(fixedBlocks(r)))
	}},
	{"kv_cache.block_size", []string{"--block-size"}, func(d *deployment, r role) []string {
		return []string{"--block-size", itoa(r.w.KVCache.BlockSize)}
	}},
	{"kv_cache.prefix_caching", []string{"--enable-prefix-caching", "--no-enable-prefix-caching"}, func(d *deployment, r role) []string {
		if r.w.KVCache.PrefixCaching {
			return []string{"--enable-prefix-caching"}
		}
		return []string{"--no-enable-prefix-caching"}
	}},
	{"engine.kvcache_quant_mode", []string{"--kv-cache-dtype"}, func(d *deployment, r role) []string {
		return []string{"--kv-cache-dtype", d.kvDtype()}
	}},
	{"engine.context_length", []string{"--max-model-len"}, func(d *deployment, r role) []string {
		return when(!d.cfg.Engine.ContextMax && d.cfg.Engine.ContextLength > 0, "--max-model-len", itoa(d.cfg.Engine.ContextLength))
	}},
	{"engine.kv_transfer", []string{"--kv-transfer-config"}, func(d *deployment, r role) []string {
		return when(r.disaggregated(), "--kv-transfer-config", `{"kv_connector":"NixlConnector","kv_role":"kv_both"}`)
	}},
}

// sglangFlags is SGLang's table: options of `python -m sglang.launch_server`, which
// `python3 -m dynamo.sglang` also takes (SGLang server arguments).
var sglangFlags = []engineFlag{
	{"parallelism.tensor", []string{"--tp-size"}, func(d *deployment, r role) []string {
		return []string{"--tp-size", itoa(r.w.Parallelism.Tensor * max(1, r.w.Parallelism.AttentionData))}
	}},
	{"parallelism.pipeline", []string{"--pp-size"}, func(d *deployment, r role) []string {
		return []string{"--pp-size", itoa(r.w.Parallelism.Pipeline)}
	}},
	{"parallelism.attention_data", []string{"--dp-size", "--enable-dp-attention"}, func(d *deployment, r role) []string {
		return when(r.w.Parallelism.AttentionData > 1, "--dp-size", itoa(r.w.Parallelism.AttentionData), "--enable-dp-attention")
	}},
	{"parallelism.moe_expert", []string{"--ep-size"}, func(d *deployment, r role) []string {
		return when(r.w.Parallelism.MoeExpert > 1, "--ep-size", itoa(r.w.Parallelism.MoeExpert))
	}},
	{"scheduler.max_sequences", []string{"--max-running-requests"}, func(d *deployment, r role) []string {
		return []string{"--max-running-requests", itoa(r.w.Scheduler.MaxSequences)}
	}},
	{"scheduler.recv_interval", []string{"--scheduler-recv-interval"}, func(d *deployment, r role) []string {
		return when(r.w.Scheduler.RecvInterval > 1, "--scheduler-recv-interval", itoa(r.w.Scheduler.RecvInterval))
	}},
	{"docs/semantics/simulation.md §8 (chunked_prefill_size)", []string{"--chunked-prefill-size"}, func(d *deployment, r role) []string {
		return []string{"--chunked-prefill-size", itoa(sglangChunkedPrefillSize)}
	}},
	{"docs/semantics/simulation.md §8 (max_prefill_tokens)", []string{"--max-prefill-tokens"}, func(d *deployment, r role) []string {
		return []string{"--max-prefill-tokens", itoa(sglangMaxPrefillTokens)}
	}},
	{"kv_cache.capacity.memory_fraction", []string{"--mem-fraction-static"}, func(d *deployment, r role) []string {
		return when(defaultCapacity(r) && r.w.KVCache.Capacity.MemoryFraction > 0, "--mem-fraction-static", ftoa(r.w.KVCache.Capacity.MemoryFraction))
	}},
	{"kv_cache.capacity.blocks", []string{"--max-total-tokens"}, func(d *deployment, r role) []string {
		return when(fixedBlocks(r) > 0, "--max-total-tokens", itoa(fixedBlocks(r)*r.w.KVCache.BlockSize))
	}},
	{"kv_cache.block_size", []string{"--page-size"}, func(d *deployment, r role) []string {
		return []string{"--page-size", itoa(r.w.KVCache.BlockSize)}
	}},
	{"kv_cache.prefix_caching", []string{"--disable-radix-cache"}, func(d *deployment, r role) []string {
		return when(!r.w.KVCache.PrefixCaching, "--disable-radix-cache")
	}},
	{"engine.kvcache_quant_mode", []string{"--kv-cache-dtype"}, func(d *deployment, r role) []string {
		return []string{"--kv-cache-dtype", d.kvDtype()}
	}},
	{"engine.context_length", []string{"--context-length"}, func(d *deployment, r role) []string {
		return when(!d.cfg.Engine.ContextMax && d.cfg.Engine.ContextLength > 0, "--context-length", itoa(d.cfg.Engine.ContextLength))
	}},
	{"engine.mode (role)", []string{"--disaggregation-mode"}, func(d *deployment, r role) []string {
		return when(r.disaggregated(), "--disaggregation-mode", r.name)
	}},
	{"engine.kv_transfer", []string{"--disaggregation-transfer-backend"}, func(d *deployment, r role) []string {
		return when(r.disaggregated(), "--disaggregation-transfer-backend", nixlConnector)
	}},
}

// The SGLang values the simulation fixes (docs/semantics/simulation.md §8), written out so
// the deployment runs with what was simulated.
const (
	sglangChunkedPrefillSize = 8192
	sglangMaxPrefillTokens   = 16384
)

// engineFlags is the flag table of a backend (nil for TensorRT-LLM, whose engine options
// are its YAML, trtllmKeys).
func engineFlags(backend string) []engineFlag {
	switch backend {
	case spec.BackendVLLM:
		return vllmFlags
	case spec.BackendSGLang:
		return sglangFlags
	}
	return nil
}

// engineArgs are the backend options of a role, in table order.
func (d *deployment) engineArgs(r role) []string {
	var args []string
	for _, f := range engineFlags(d.backend) {
		args = append(args, f.args(d, r)...)
	}
	return args
}

// kvDtype is the backend's name for the KV cache data type: engine.kvcache_quant_mode, or
// "auto" (the checkpoint's own, which is what the simulation takes when the mode is unset).
// A mode the backend cannot select is written as "auto" and named in the README (caveats).
func (d *deployment) kvDtype() string {
	switch d.cfg.Engine.KVCacheQuantMode {
	case "fp8":
		if d.backend == spec.BackendSGLang {
			return "fp8_e4m3"
		}
		return "fp8"
	case "bf16":
		if d.backend == spec.BackendVLLM {
			return "bfloat16"
		}
	}
	return "auto"
}
