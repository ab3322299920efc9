package spec

import (
	"encoding/json"
	"fmt"
)

// Backend names of engine.backend.
const (
	BackendVLLM   = "vllm"
	BackendSGLang = "sglang"
	BackendTRTLLM = "trtllm"
)

// Backends are the engine.backend names, the default first.
var Backends = []string{BackendVLLM, BackendSGLang, BackendTRTLLM}

// Modes are the engine.mode names, the default first.
var Modes = []string{ModeAggregated, ModeDisaggregated}

// Worker roles of engine.workers.
const (
	RoleAggregated = "aggregated"
	RolePrefill    = "prefill"
	RoleDecode     = "decode"
)

// DefaultBlockSize is the engine KV block size of a backend when kv_cache.block_size is unset.
func DefaultBlockSize(backend string) int {
	switch backend {
	case BackendSGLang:
		return 1
	case BackendTRTLLM:
		return 32
	default:
		return 64
	}
}

// DefaultMemoryFraction is capacity.memory_fraction of a backend when unset: 0.9, or 0 for
// SGLang, whose default the memory model derives from the GPU's memory (docs/timing.md).
func DefaultMemoryFraction(backend string) float64 {
	if backend == BackendSGLang {
		return 0
	}
	return 0.9
}

// aicControl explains why the AIC estimator controls are refused.
const aicControl = "AIC estimator controls are not supported by this simulator"

var engineShape = shape{
	keys: []string{"mode", "model", "hardware", "backend", "backend_version", "context_length", "workers", "kv_transfer",
		"gemm_quant_mode", "moe_quant_mode", "kvcache_quant_mode", "fmha_quant_mode", "comm_quant_mode", "forward_model",
		"nextn", "nextn_accept_rates"},
	unsupported: map[string]string{
		"speculation":            "speculation needs the offline engine stack without adapters",
		"afd":                    "AFD topologies need the analytical engine stack",
		"nextn_accepted":         aicControl + "; give per-draft acceptance probabilities in engine.nextn_accept_rates instead",
		"enable_chunked_prefill": aicControl + " (chunked prefill is always on)",
		"enable_eplb":            aicControl,
		"wideep_num_slots":       aicControl,
		"moe_backend":            aicControl,
		"attention_backend":      aicControl,
		"database_mode":          aicControl,
		"transfer_policy":        aicControl,
		"systems_paths":          aicControl,
		"systems_path":           aicControl,
		"estimation_mode":        aicControl,
		"fallback_policy":        aicControl,
		"estimator_config":       aicControl,
		"decoder_replay":         aicControl,
		"enable_shared_layer":    aicControl,
		"strict_provenance":      aicControl,
	},
}

var workersShape = shape{
	keys:        []string{RoleAggregated, RolePrefill, RoleDecode},
	unsupported: map[string]string{"encoder": "the encoder role needs the analytical engine stack"},
}

var workerShape = shape{keys: []string{"hardware", "parallelism", "scheduler", "kv_cache", "timing", "startup_seconds"}}

var parallelismShape = shape{
	keys:        []string{"replicas", "tensor", "pipeline", "attention_data", "moe_tensor", "moe_expert"},
	unsupported: map[string]string{"context": "context parallelism is not supported by this simulator"},
}

var schedulerShape = shape{keys: []string{"max_batched_tokens", "max_sequences", "prefill_schedule_interval", "prefill_decode_interval", "recv_interval"}}

var kvCacheShape = shape{
	keys: []string{"block_size", "prefix_caching", "bytes_per_token", "capacity"},
	unsupported: map[string]string{
		"host_offload": "host KV offload is not supported by the dynamo stack in this simulator",
		"g3_offload":   "G3 KV offload is not supported by the dynamo stack in this simulator",
		"state_cache":  "state_cache needs the engine stack",
	},
}

var capacityShape = shape{keys: []string{"type", "blocks", "bytes", "memory_fraction", "cuda_graph_reserved_bytes"}}

var timingShape = shape{
	keys:        []string{"type", "prefill_ms", "decode_ms", "forward_model", "frontend_ms"},
	unsupported: map[string]string{"fpm_parquet_path": "FPM-based default timing is not supported by this simulator"},
}

var kvTransferShape = shape{keys: []string{"bytes_per_token", "bandwidth_gb_per_second", "timing_mode", "handoff_ms"}}

func decodeEngine(d *decoder, root map[string]any) Engine {
	var e Engine
	v, present := root["engine"]
	if !present {
		d.failf("engine", "required section is missing; add engine: {model: <hf id or directory>, hardware: <system id>, workers: {aggregated: {}}}")
		return e
	}
	o := d.mapping("engine", v, engineShape)
	// "afd" is accepted here only to be refused with its own message.
	e.Mode = o.enum(fieldMode.key(), append(fieldMode.enum[:len(fieldMode.enum):len(fieldMode.enum)], "afd")...)
	if e.Mode == "afd" {
		d.failf(o.p("mode"), "mode 'afd' needs the analytical engine stack; use aggregated or disaggregated")
	}
	e.Model = o.str("model")
	e.Hardware = o.str("hardware")
	if e.Hardware == "auto" {
		d.failf(o.p("hardware"), "engine.hardware='auto' is recommendation-only; name a concrete system such as h200_sxm")
	}
	e.Backend = o.enumField(&fieldBackend)
	if o.set("backend_version") {
		bv := d.asString(o.p("backend_version"), o.m["backend_version"])
		e.BackendVersion = &bv
	}
	e.ContextMax = true
	if cv, ok := o.m["context_length"]; ok {
		if s, isStr := cv.(string); isStr {
			if s != "max" {
				d.failf(o.p("context_length"), "must be a positive integer or \"max\", got %s", describe(cv))
			}
		} else {
			e.ContextLength = int(d.asInt(o.p("context_length"), cv, gt(0)))
			e.ContextMax = false
		}
	}
	quant := func(key string) string {
		if !o.set(key) {
			return ""
		}
		return d.asString(o.p(key), o.m[key])
	}
	e.GemmQuantMode = quant("gemm_quant_mode")
	e.MoeQuantMode = quant("moe_quant_mode")
	e.KVCacheQuantMode = quant("kvcache_quant_mode")
	e.FMHAQuantMode = quant("fmha_quant_mode")
	e.CommQuantMode = quant("comm_quant_mode")
	decodeForwardModel(o)
	e.NextN, e.NextNAcceptRates = decodeMTP(o)
	if !d.ok() {
		return e
	}

	wo := o.child("workers", workersShape)
	if !d.ok() {
		return e
	}
	roles := []string{RoleAggregated}
	if e.Mode == ModeDisaggregated {
		roles = []string{RolePrefill, RoleDecode}
		if wo.set(RoleAggregated) {
			d.failf(wo.p(RoleAggregated), "disaggregated mode rejects aggregated workers; declare workers.prefill and workers.decode instead")
			return e
		}
	} else if wo.set(RolePrefill) || wo.set(RoleDecode) {
		role := RolePrefill
		if !wo.set(RolePrefill) {
			role = RoleDecode
		}
		d.failf(wo.p(role), "aggregated mode rejects prefill/decode workers; use workers.aggregated or set engine.mode: disaggregated")
		return e
	}
	for _, role := range roles {
		if !wo.has(role) {
			d.failf(wo.path, "%s mode requires workers.%s; add %s: {} to use the role defaults", e.Mode, role, role)
			return e
		}
		w := decodeWorker(d, wo.p(role), wo.m[role], role, &e)
		switch role {
		case RoleAggregated:
			e.Aggregated = w
		case RolePrefill:
			e.Prefill = w
		case RoleDecode:
			e.Decode = w
		}
		if !d.ok() {
			return e
		}
	}

	if o.set("kv_transfer") && e.Mode != ModeDisaggregated {
		d.failf(o.p("kv_transfer"), "aggregated mode rejects kv_transfer; remove it or set engine.mode: disaggregated")
		return e
	}
	if e.Mode == ModeDisaggregated {
		e.KVTransfer = decodeKVTransfer(d, o)
	}
	return e
}

// decodeMTP decodes engine.nextn (int 0..MaxNextN, default 0) and engine.nextn_accept_rates
// (exactly nextn numbers in [0, 1]; nil when absent or null = the timing model's default),
// docs/semantics/simulation.md §5.4.
func decodeMTP(o *object) (int, []float64) {
	d := o.d
	n := 0 // absent or null
	if p := o.optInt("nextn", ge(0), le(MaxNextN)); p != nil {
		n = *p
	}
	v := o.m["nextn_accept_rates"]
	if !d.ok() || v == nil {
		return n, nil
	}
	path := o.p("nextn_accept_rates")
	list, isList := v.([]any)
	if !isList {
		d.failf(path, "must be a list of %d acceptance probabilities in [0, 1] (one per draft token of engine.nextn), got %s", n, describe(v))
		return n, nil
	}
	if len(list) != n {
		d.failf(path, "must have exactly engine.nextn = %d entries (one acceptance probability per draft token), got %d", n, len(list))
		return n, nil
	}
	rates := make([]float64, len(list))
	for i, x := range list {
		rates[i] = d.asFloat(fmt.Sprintf("%s.%d", path, i), x, ge(0), le(1))
	}
	return n, rates
}

func decodeForwardModel(o *object) {
	if !o.set("forward_model") {
		return
	}
	if fm := o.d.asEnum(o.p("forward_model"), o.m["forward_model"], "op_level", "fpm"); fm == "fpm" {
		o.d.failf(o.p("forward_model"), "forward_model 'fpm' is not supported by this simulator; use op_level")
	}
}

func decodeKVTransfer(d *decoder, o *object) *KVTransfer {
	kt := &KVTransfer{TimingMode: "destination_missing"}
	v := o.m["kv_transfer"]
	if v == nil {
		return kt
	}
	ko := d.mapping(o.p("kv_transfer"), v, kvTransferShape)
	kt.BytesPerToken = bytesPerToken(ko)
	kt.BandwidthGBPerSecond = ko.optFloat("bandwidth_gb_per_second", gt(0), rateLimit)
	kt.TimingMode = ko.enum("timing_mode", "destination_missing", "full_prompt")
	kt.HandoffMs = handoffMs(ko)
	return kt
}

// handoffMs decodes kv_transfer.handoff_ms: `number >= 0 | auto` (nil = auto, also when
// absent or null).
func handoffMs(o *object) *float64 {
	v := o.m["handoff_ms"]
	if s, isStr := v.(string); isStr && s == "auto" {
		return nil
	}
	if _, isNum := v.(json.Number); v != nil && !isNum {
		o.d.failf(o.p("handoff_ms"), "must be a number of milliseconds >= 0 or \"auto\" (the default timing model's per-backend value), got %s", describe(v))
		return nil
	}
	return o.optFloat("handoff_ms", ge(0), msLimit)
}

// bytesPerToken decodes `int>0 | auto` (0 = auto).
func bytesPerToken(o *object) int {
	v, ok := o.m["bytes_per_token"]
	if !ok {
		return 0
	}
	if s, isStr := v.(string); isStr {
		if s != "auto" {
			o.d.failf(o.p("bytes_per_token"), "must be a positive integer or \"auto\", got %s", describe(v))
		}
		return 0
	}
	return int(o.d.asInt(o.p("bytes_per_token"), v, gt(0)))
}

func decodeWorker(d *decoder, path string, v any, role string, e *Engine) *Worker {
	o := d.mapping(path, v, workerShape)
	w := &Worker{Hardware: e.Hardware}
	if o.set("hardware") {
		if role == RoleAggregated {
			d.failf(o.p("hardware"), "a per-role hardware override is only valid for disaggregated prefill/decode roles; set engine.hardware instead")
			return w
		}
		w.Hardware = d.asString(o.p("hardware"), o.m["hardware"])
		if w.Hardware == "auto" {
			d.failf(o.p("hardware"), "per-role hardware must be a concrete system id; 'auto' is recommendation-only")
		}
	}

	po := o.child("parallelism", parallelismShape)
	w.Parallelism = Parallelism{
		Replicas:      int(po.intField(&fieldReplicas)),
		Tensor:        int(po.intField(&fieldTensor)),
		Pipeline:      int(po.intField(&fieldPipeline)),
		AttentionData: int(po.intField(&fieldAttentionData)),
		MoeTensor:     int(po.intField(&fieldMoeTensor)),
		MoeExpert:     int(po.intField(&fieldMoeExpert)),
	}

	so := o.child("scheduler", schedulerShape)
	maxSeqs := fieldMaxSequences
	if role == RolePrefill {
		maxSeqs.def = prefillMaxSequences
	}
	w.Scheduler = Scheduler{
		MaxBatchedTokens:        int(so.intField(&fieldMaxBatchedTokens)),
		MaxSequences:            int(so.intField(&maxSeqs)),
		PrefillScheduleInterval: int(so.intField(&fieldPrefillScheduleInterval)),
		PrefillDecodeInterval:   int(so.intField(&fieldPrefillDecodeInterval)),
		RecvInterval:            int(so.intField(&fieldRecvInterval)),
	}
	if d.ok() && w.Scheduler.PrefillScheduleInterval != 1 && e.Backend != BackendVLLM {
		d.failf(so.p("prefill_schedule_interval"), "workers.%s.scheduler.prefill_schedule_interval is supported only for backend=vllm; remove it", role)
	}
	if d.ok() && w.Scheduler.PrefillDecodeInterval != 0 && e.Backend != BackendSGLang {
		d.failf(so.p("prefill_decode_interval"), "workers.%s.scheduler.prefill_decode_interval is supported only for backend=sglang; remove it", role)
	}
	if d.ok() && w.Scheduler.RecvInterval != 1 && e.Backend != BackendSGLang {
		d.failf(so.p("recv_interval"), "workers.%s.scheduler.recv_interval is supported only for backend=sglang; remove it", role)
	}

	ko := o.child("kv_cache", kvCacheShape)
	explicitBlock := ko.set("block_size") // null = backend default
	w.KVCache.BlockSize = DefaultBlockSize(e.Backend)
	if explicitBlock {
		w.KVCache.BlockSize = int(ko.intField(&fieldBlockSize))
	}
	if d.ok() && w.KVCache.BlockSize < 2 && (e.Backend == BackendVLLM || e.Backend == BackendTRTLLM) {
		d.failf(ko.p("block_size"), "must be at least 2 for backend %s, got %d", e.Backend, w.KVCache.BlockSize)
	}
	w.KVCache.PrefixCaching = ko.boolField(&fieldPrefixCaching)
	w.KVCache.BytesPerToken = bytesPerToken(ko)
	w.KVCache.Capacity = decodeCapacity(ko.child("capacity", capacityShape), e.Backend, explicitBlock, w.KVCache)

	w.Timing = decodeTiming(o.child("timing", timingShape))
	w.StartupSeconds = o.floatField(&fieldStartupSeconds)
	return w
}

func decodeCapacity(o *object, backend string, explicitBlock bool, kv KVCache) Capacity {
	d := o.d
	c := Capacity{Type: o.enum("type", CapacityDefault, CapacityFixed)}
	if !d.ok() {
		return c
	}
	switch c.Type {
	case CapacityDefault:
		if k := o.presentKeys("blocks", "bytes"); len(k) > 0 {
			d.failf(o.p(k[0]), "default KV capacity rejects %s; set capacity.type: fixed to give an explicit size", k[0])
			return c
		}
		c.MemoryFraction = DefaultMemoryFraction(backend)
		if o.set("memory_fraction") {
			c.MemoryFraction = o.floatField(&fieldMemoryFraction)
		}
		c.CUDAGraphReservedBytes = o.intField(&fieldCUDAGraphReservedBytes)
	case CapacityFixed:
		if o.set("memory_fraction") {
			d.failf(o.p("memory_fraction"), "fixed KV capacity rejects memory_fraction; remove it or use capacity.type: default")
			return c
		}
		if r := o.intField(&fieldCUDAGraphReservedBytes); r != 0 {
			d.failf(o.p("cuda_graph_reserved_bytes"), "fixed KV capacity rejects a non-zero cuda_graph_reserved_bytes; remove it")
			return c
		}
		hasBlocks, hasBytes := o.set("blocks"), o.set("bytes")
		switch {
		case hasBlocks && hasBytes:
			d.failf(o.path, "fixed KV capacity takes exactly one of blocks or bytes, not both")
		case hasBlocks:
			c.Blocks = int(o.intField(&fieldCapacityBlocks))
		case hasBytes:
			b := o.intField(&fieldCapacityBytes)
			if !d.ok() {
				return c
			}
			if !explicitBlock || kv.BytesPerToken == 0 {
				d.failf(o.p("bytes"), "a capacity in bytes needs an explicit kv_cache.block_size and a numeric kv_cache.bytes_per_token")
				return c
			}
			perBlock := int64(kv.BlockSize) * int64(kv.BytesPerToken)
			c.Blocks = int(b / perBlock)
			if c.Blocks == 0 {
				d.failf(o.p("bytes"), "%d bytes hold no whole KV block of %d bytes (block_size %d × bytes_per_token %d)", b, perBlock, kv.BlockSize, kv.BytesPerToken)
			}
		default:
			d.failf(o.path, "fixed KV capacity requires blocks; add blocks: <KV blocks per rank>")
		}
	}
	return c
}

func decodeTiming(o *object) Timing {
	d := o.d
	t := Timing{Type: o.enum("type", TimingDefault, TimingFixed, TimingPolynomial)}
	if !d.ok() {
		return t
	}
	fixedKeys := o.presentKeys("prefill_ms", "decode_ms")
	switch t.Type {
	case TimingFixed:
		if !o.set("prefill_ms") || !o.set("decode_ms") {
			d.failf(o.path, "fixed timing requires prefill_ms and decode_ms (milliseconds per prefill pass and per decode pass)")
			return t
		}
		t.PrefillMs = o.float("prefill_ms", 0, ge(0), msLimit)
		t.DecodeMs = o.float("decode_ms", 0, ge(0), msLimit)
		if o.set("forward_model") {
			d.failf(o.p("forward_model"), "forward_model only applies to timing.type: default; remove it")
		}
	case TimingPolynomial:
		if len(fixedKeys) > 0 {
			d.failf(o.p(fixedKeys[0]), "polynomial timing rejects fixed timing values; remove prefill_ms/decode_ms or use timing.type: fixed")
			return t
		}
		if o.set("forward_model") {
			d.failf(o.p("forward_model"), "forward_model only applies to timing.type: default; remove it")
		}
	default:
		if len(fixedKeys) > 0 {
			d.failf(o.p(fixedKeys[0]), "default timing rejects fixed timing values; set timing.type: fixed to use prefill_ms/decode_ms")
			return t
		}
		decodeForwardModel(o)
	}
	t.FrontendMs, t.FrontendSet = frontendMs(o, t.Type == TimingDefault)
	return t
}

// frontendMs decodes timing.frontend_ms (docs/semantics/simulation.md §5.3): a number ≥ 0, or with default
// timing also "auto" (the calibrated per-backend latency, the default there). set is false
// for auto and when absent (fixed and polynomial timing then use 0).
func frontendMs(o *object, auto bool) (ms float64, set bool) {
	v, ok := o.m["frontend_ms"]
	if !ok || v == nil {
		return 0, false
	}
	if s, isStr := v.(string); isStr {
		if s != "auto" || !auto {
			allowed := "a number ≥ 0 (milliseconds the client waits beyond the engine, default 0)"
			if auto {
				allowed = "a number ≥ 0 (milliseconds) or \"auto\" (the calibrated per-backend latency, the default)"
			}
			o.d.failf(o.p("frontend_ms"), "must be %s, got %s", allowed, describe(v))
		}
		return 0, false
	}
	return o.d.asFloat(o.p("frontend_ms"), v, ge(0), msLimit), true
}

// roleWorkers returns the configured roles in pool order with their names.
func (e *Engine) roleWorkers() ([]string, []*Worker) {
	if e.Mode == ModeDisaggregated {
		return []string{RolePrefill, RoleDecode}, []*Worker{e.Prefill, e.Decode}
	}
	return []string{RoleAggregated}, []*Worker{e.Aggregated}
}

// checkRunner is the dynamo runner's capability check (processing step 9).
func checkRunner(d *decoder, cfg *Config) {
	e := &cfg.Engine
	names, workers := e.roleWorkers()
	for i, w := range workers {
		if w == nil {
			continue
		}
		base := fmt.Sprintf("engine.workers.%s", names[i])
		if w.Scheduler.PrefillScheduleInterval != 1 {
			d.failf(base+".scheduler.prefill_schedule_interval", "the dynamo runner requires prefill_schedule_interval 1, got %d", w.Scheduler.PrefillScheduleInterval)
			return
		}
	}
}
