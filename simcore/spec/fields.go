package spec

import "strings"

// fieldKind says what one configuration field holds.
type fieldKind int

const (
	fieldInt fieldKind = iota
	fieldFloat
	fieldEnum
	fieldBool
)

// field is one configuration field of the table below (docs/config.md): its dotted path, what
// it holds, its default and the limits every value must meet. The decoders read a field's
// key, default and limits from here, and recommend's search fields (domain.go) its kind,
// limits and names, so none of them is written twice.
type field struct {
	// path is the dotted path; a worker field's is relative to engine.workers.<role>
	// (roleFields).
	path string
	kind fieldKind
	// def is the default of an absent int, float or bool (1 = true) field.
	def float64
	// lims are the bounds of a numeric value.
	lims []limit
	// enum are the names of an enumeration, the default first.
	enum []string
	// optional says the table has no default: an absent field is unset, or required, or its
	// default depends on the backend (def is then unused).
	optional bool
	// search says a recommendation may give the field a domain (docs/recommend.md,
	// "Domains").
	search bool
	// positiveRange says a range's min must be > 0 (traffic.load numerics).
	positiveRange bool
}

// key is the field's key in its own mapping: the last element of its path.
func (f *field) key() string { return f.path[strings.LastIndexByte(f.path, '.')+1:] }

// DefaultMaxBatchedTokens is scheduler.max_batched_tokens when unset, which is also the token
// count the memory model sizes activations for.
const DefaultMaxBatchedTokens = 8192

// prefillMaxSequences is scheduler.max_sequences of a disaggregated prefill worker when unset
// (one prompt per pass; other roles use fieldMaxSequences.def).
const prefillMaxSequences = 1

// Worker fields, relative to engine.workers.<role>.
var (
	fieldReplicas                = field{path: "parallelism.replicas", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldTensor                  = field{path: "parallelism.tensor", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldPipeline                = field{path: "parallelism.pipeline", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldAttentionData           = field{path: "parallelism.attention_data", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldMoeTensor               = field{path: "parallelism.moe_tensor", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldMoeExpert               = field{path: "parallelism.moe_expert", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldMaxBatchedTokens        = field{path: "scheduler.max_batched_tokens", kind: fieldInt, def: DefaultMaxBatchedTokens, lims: []limit{gt(0)}, search: true}
	fieldMaxSequences            = field{path: "scheduler.max_sequences", kind: fieldInt, def: 256, lims: []limit{gt(0)}, search: true}
	fieldPrefillScheduleInterval = field{path: "scheduler.prefill_schedule_interval", kind: fieldInt, def: 1, lims: []limit{gt(0)}, search: true}
	fieldPrefillDecodeInterval   = field{path: "scheduler.prefill_decode_interval", kind: fieldInt, def: 0, lims: []limit{ge(0)}, search: true}
	fieldRecvInterval            = field{path: "scheduler.recv_interval", kind: fieldInt, def: 1, lims: []limit{gt(0)}}
	// The default block size and memory fraction are the backend's (DefaultBlockSize,
	// DefaultMemoryFraction).
	fieldBlockSize              = field{path: "kv_cache.block_size", kind: fieldInt, optional: true, lims: []limit{gt(0)}, search: true}
	fieldPrefixCaching          = field{path: "kv_cache.prefix_caching", kind: fieldBool, def: 1}
	fieldMemoryFraction         = field{path: "kv_cache.capacity.memory_fraction", kind: fieldFloat, optional: true, lims: []limit{gt(0), le(1)}, search: true}
	fieldCUDAGraphReservedBytes = field{path: "kv_cache.capacity.cuda_graph_reserved_bytes", kind: fieldInt, def: 0, lims: []limit{ge(0), le(1 << 53)}}
	fieldCapacityBlocks         = field{path: "kv_cache.capacity.blocks", kind: fieldInt, optional: true, lims: []limit{gt(0)}}
	fieldCapacityBytes          = field{path: "kv_cache.capacity.bytes", kind: fieldInt, optional: true, lims: []limit{gt(0)}}
	fieldStartupSeconds         = field{path: "startup_seconds", kind: fieldFloat, def: 0, lims: []limit{ge(0), secondsLimit}}
)

// Engine, traffic, router, planner and recommend fields, by full path.
var (
	fieldMode    = field{path: "engine.mode", kind: fieldEnum, enum: Modes, search: true}
	fieldBackend = field{path: "engine.backend", kind: fieldEnum, enum: Backends, search: true}

	fieldInputTokens              = field{path: "traffic.source.synthetic.input_tokens", kind: fieldInt, def: 1024, lims: []limit{gt(0), tokenLimit}}
	fieldOutputTokens             = field{path: "traffic.source.synthetic.output_tokens", kind: fieldInt, def: 128, lims: []limit{gt(0), tokenLimit}}
	fieldLengthsDistribution      = field{path: "traffic.source.synthetic.lengths.distribution", kind: fieldEnum, enum: []string{LengthsConstant, LengthsUniform, LengthsNormal}}
	fieldLengthsMinRatio          = field{path: "traffic.source.synthetic.lengths.min_ratio", kind: fieldFloat, def: 1, lims: []limit{ge(0), le(1)}}
	fieldLengthsMaxRatio          = field{path: "traffic.source.synthetic.lengths.max_ratio", kind: fieldFloat, def: 1, lims: []limit{ge(1), le(2)}}
	fieldLengthsInputStddevRatio  = field{path: "traffic.source.synthetic.lengths.input_stddev_ratio", kind: fieldFloat, def: 0, lims: []limit{ge(0), le(1)}}
	fieldLengthsOutputStddevRatio = field{path: "traffic.source.synthetic.lengths.output_stddev_ratio", kind: fieldFloat, def: 0, lims: []limit{ge(0), le(1)}}
	fieldNewInputTokensPerTurn    = field{path: "traffic.source.synthetic-session.new_input_tokens_per_turn", kind: fieldInt, def: 1024, lims: []limit{gt(0), tokenLimit}}
	fieldOutputTokensPerTurn      = field{path: "traffic.source.synthetic-session.output_tokens_per_turn", kind: fieldInt, def: 128, lims: []limit{gt(0), tokenLimit}}
	fieldTurns                    = field{path: "traffic.source.synthetic-session.session.turns", kind: fieldInt, def: 4, lims: []limit{ge(2)}}
	fieldSharedPrefixRatio        = field{path: "traffic.source.synthetic-session.session.shared_prefix_ratio", kind: fieldFloat, def: 0, lims: []limit{ge(0), le(1)}}
	fieldPrefixGroups             = field{path: "traffic.source.synthetic-session.session.prefix_groups", kind: fieldInt, def: 0, lims: []limit{ge(0)}}
	fieldInterTurnDelayMs         = field{path: "traffic.source.synthetic-session.session.inter_turn_delay_ms", kind: fieldFloat, def: 0, lims: []limit{ge(0), msLimit}}

	fieldConcurrency       = field{path: "traffic.load.concurrency", kind: fieldInt, def: 10, lims: []limit{gt(0)}, search: true, positiveRange: true}
	fieldRequestsPerSecond = field{path: "traffic.load.requests_per_second", kind: fieldFloat, optional: true, lims: []limit{gt(0), rateLimit}, search: true, positiveRange: true}
	fieldSessionsPerSecond = field{path: "traffic.load.sessions_per_second", kind: fieldFloat, optional: true, lims: []limit{gt(0), rateLimit}, search: true, positiveRange: true}
	fieldSpeedup           = field{path: "traffic.load.speedup", kind: fieldFloat, def: 1, lims: []limit{gt(0)}, search: true, positiveRange: true}
	fieldLoadSeed          = field{path: "traffic.load.seed", kind: fieldInt, def: 42, lims: []limit{ge(0)}}
	fieldAgenticLanes      = field{path: "traffic.load.agentic_lanes", kind: fieldInt, optional: true, lims: []limit{gt(0)}}
	fieldFraction          = field{path: "traffic.load.fraction", kind: fieldFloat, optional: true, lims: []limit{gt(0)}, search: true, positiveRange: true}

	fieldRouterPolicy       = field{path: "router.policy", kind: fieldEnum, enum: []string{RouterRoundRobin, RouterKV}, search: true}
	fieldPrefillLoadModel   = field{path: "router.prefill_load_model.type", kind: fieldEnum, enum: []string{LoadModelNone, LoadModelAIC}, search: true}
	fieldOverlapScoreCredit = field{path: "router.overlap_score_credit", kind: fieldFloat, def: 1, lims: []limit{ge(0)}, search: true}
	fieldPrefillLoadScale   = field{path: "router.prefill_load_scale", kind: fieldFloat, def: 1, lims: []limit{ge(0)}, search: true}
	fieldTemperature        = field{path: "router.temperature", kind: fieldFloat, def: 0, lims: []limit{ge(0)}, search: true}

	fieldPlannerPolicy                = field{path: "planner.policy", kind: fieldEnum, enum: []string{PlannerDisabled, PlannerEnabled}, search: true}
	fieldPlannerTarget                = field{path: "planner.target", kind: fieldEnum, enum: []string{"throughput", "latency", TargetSLA, "load"}}
	fieldEnableThroughputScaling      = field{path: "planner.enable_throughput_scaling", kind: fieldBool, def: 1}
	fieldEnableLoadScaling            = field{path: "planner.enable_load_scaling", kind: fieldBool, def: 0}
	fieldThroughputAdjustmentInterval = field{path: "planner.throughput_adjustment_interval_seconds", kind: fieldInt, def: 180, lims: []limit{gt(0)}}
	fieldLoadAdjustmentInterval       = field{path: "planner.load_adjustment_interval_seconds", kind: fieldInt, def: 5, lims: []limit{gt(0)}}
	fieldMaxNumFPMSamples             = field{path: "planner.max_num_fpm_samples", kind: fieldInt, def: 64, lims: []limit{gt(0)}}
	fieldFPMSampleBucketSize          = field{path: "planner.fpm_sample_bucket_size", kind: fieldInt, def: 16, lims: []limit{gt(0)}}
	fieldLoadScalingDownSensitivity   = field{path: "planner.load_scaling_down_sensitivity", kind: fieldInt, def: 80, lims: []limit{ge(0), le(100)}}
	fieldLoadMinObservations          = field{path: "planner.load_min_observations", kind: fieldInt, def: 5, lims: []limit{gt(0)}}
	fieldLoadPredictor                = field{path: "planner.load_predictor", kind: fieldEnum, enum: []string{"arima", "constant", "prophet", "kalman"}}
	fieldLoadPredictorLog1p           = field{path: "planner.load_predictor_log1p", kind: fieldBool, def: 0}
	fieldProphetWindowSize            = field{path: "planner.prophet_window_size", kind: fieldInt, def: 50, lims: []limit{gt(0)}}
	fieldKalmanQLevel                 = field{path: "planner.kalman_q_level", kind: fieldFloat, def: 1.0, lims: []limit{gt(0)}}
	fieldKalmanQTrend                 = field{path: "planner.kalman_q_trend", kind: fieldFloat, def: 0.1, lims: []limit{gt(0)}}
	fieldKalmanR                      = field{path: "planner.kalman_r", kind: fieldFloat, def: 10.0, lims: []limit{gt(0)}}
	fieldKalmanMinPoints              = field{path: "planner.kalman_min_points", kind: fieldInt, def: 5, lims: []limit{gt(0)}}
	fieldMaxNumGPUs                   = field{path: "planner.max_num_gpus", kind: fieldInt, def: 8, lims: []limit{ge(-1)}}
	fieldMinNumGPUs                   = field{path: "planner.min_num_gpus", kind: fieldInt, def: -1, lims: []limit{ge(-1)}}
	fieldMinWorkers                   = field{path: "planner.min_workers", kind: fieldInt, def: 1, lims: []limit{ge(0)}, search: true}
	fieldPrefillMinWorkers            = field{path: "planner.prefill_min_workers", kind: fieldInt, optional: true, lims: []limit{gt(0)}, search: true}
	fieldDecodeMinWorkers             = field{path: "planner.decode_min_workers", kind: fieldInt, optional: true, lims: []limit{gt(0)}, search: true}
	fieldOptimizerAlgorithm           = field{path: "optimizer.algorithm", kind: fieldEnum, optional: true, enum: []string{AlgorithmScreened, AlgorithmBayesian, AlgorithmRandom}}
	fieldOptimizerMaxTrials           = field{path: "optimizer.max_trials", kind: fieldInt, def: 320, lims: []limit{gt(0), le(1_000_000)}}
	fieldOptimizerParallelism         = field{path: "optimizer.parallelism", kind: fieldInt, def: 16, lims: []limit{gt(0)}}
	fieldOptimizerCandidateTimeout    = field{path: "optimizer.candidate_timeout_seconds", kind: fieldFloat, def: 600, lims: []limit{gt(0)}}
	fieldOptimizerSeed                = field{path: "optimizer.seed", kind: fieldInt, def: 42, lims: []limit{ge(0)}}
	fieldMaxCandidateGPUs             = field{path: "optimization.constraints.max_candidate_gpus", kind: fieldInt, def: 32, lims: []limit{gt(0)}}
	fieldMinCandidateGPUs             = field{path: "optimization.constraints.min_candidate_gpus", kind: fieldInt, optional: true, lims: []limit{gt(0)}}
	fieldMinGoodputRPS                = field{path: "optimization.constraints.min_goodput_rps", kind: fieldFloat, optional: true, lims: []limit{gt(0)}}
	fieldOptimizationStrictSLA        = field{path: "optimization.strict_sla", kind: fieldBool, def: 0}
)

// roleFields are the worker fields (relative paths), in the order docs/config.md lists them.
var roleFields = []*field{
	&fieldReplicas, &fieldTensor, &fieldPipeline, &fieldAttentionData, &fieldMoeTensor, &fieldMoeExpert,
	&fieldMaxBatchedTokens, &fieldMaxSequences, &fieldPrefillScheduleInterval, &fieldPrefillDecodeInterval,
	&fieldRecvInterval, &fieldBlockSize, &fieldPrefixCaching, &fieldMemoryFraction, &fieldCUDAGraphReservedBytes,
	&fieldCapacityBlocks, &fieldCapacityBytes, &fieldStartupSeconds,
}

// fields are the other fields of the table, by full path.
var fields = []*field{
	&fieldMode, &fieldBackend,
	&fieldInputTokens, &fieldOutputTokens,
	&fieldLengthsDistribution, &fieldLengthsMinRatio, &fieldLengthsMaxRatio, &fieldLengthsInputStddevRatio, &fieldLengthsOutputStddevRatio,
	&fieldNewInputTokensPerTurn, &fieldOutputTokensPerTurn,
	&fieldTurns, &fieldSharedPrefixRatio, &fieldPrefixGroups, &fieldInterTurnDelayMs,
	&fieldConcurrency, &fieldRequestsPerSecond, &fieldSessionsPerSecond, &fieldSpeedup, &fieldLoadSeed, &fieldAgenticLanes, &fieldFraction,
	&fieldRouterPolicy, &fieldPrefillLoadModel, &fieldOverlapScoreCredit, &fieldPrefillLoadScale, &fieldTemperature,
	&fieldPlannerPolicy, &fieldPlannerTarget, &fieldEnableThroughputScaling, &fieldEnableLoadScaling,
	&fieldThroughputAdjustmentInterval, &fieldLoadAdjustmentInterval, &fieldMaxNumFPMSamples, &fieldFPMSampleBucketSize,
	&fieldLoadScalingDownSensitivity, &fieldLoadMinObservations, &fieldLoadPredictor, &fieldLoadPredictorLog1p,
	&fieldProphetWindowSize, &fieldKalmanQLevel, &fieldKalmanQTrend, &fieldKalmanR, &fieldKalmanMinPoints,
	&fieldMaxNumGPUs, &fieldMinNumGPUs, &fieldMinWorkers, &fieldPrefillMinWorkers, &fieldDecodeMinWorkers,
	&fieldOptimizerAlgorithm, &fieldOptimizerMaxTrials, &fieldOptimizerParallelism, &fieldOptimizerCandidateTimeout,
	&fieldOptimizerSeed, &fieldMaxCandidateGPUs, &fieldMinCandidateGPUs, &fieldMinGoodputRPS, &fieldOptimizationStrictSLA,
}

// The decoders' readers of a table field in the mapping o that holds it.

// intField decodes an optional non-null integer field (its default when absent).
func (o *object) intField(f *field) int64 { return o.int(f.key(), int64(f.def), f.lims...) }

// optIntField decodes an integer field that may be absent or null (nil).
func (o *object) optIntField(f *field) *int { return o.optInt(f.key(), f.lims...) }

// floatField decodes an optional non-null number field (its default when absent).
func (o *object) floatField(f *field) float64 { return o.float(f.key(), f.def, f.lims...) }

// optFloatField decodes a number field that may be absent or null (nil).
func (o *object) optFloatField(f *field) *float64 { return o.optFloat(f.key(), f.lims...) }

// boolField decodes an optional boolean field (its default when absent).
func (o *object) boolField(f *field) bool { return o.bool(f.key(), f.def != 0) }

// enumField decodes an optional enumeration field (its first name when absent).
func (o *object) enumField(f *field) string { return o.enum(f.key(), f.enum...) }

// optEnumField reads an optional enumeration field: "" when absent (the caller picks the
// default, as the optimizer's algorithm does from the space, docs/recommend.md).
func (o *object) optEnumField(f *field) string {
	if !o.has(f.key()) {
		return ""
	}
	return o.enumField(f)
}

// fieldKeys are the keys of fs, in order.
func fieldKeys(fs []*field) []string {
	keys := make([]string, len(fs))
	for i, f := range fs {
		keys[i] = f.key()
	}
	return keys
}
