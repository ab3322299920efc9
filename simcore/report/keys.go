package report

// The summary keys of prediction.json (docs/semantics/outputs.md §3.2, §4.6). Every reader of a summary —
// the table view, the browser app, the docs embed (which receives Cards from the module, see
// docs/web.md) — names keys through these constants, so a key is spelled exactly once.

// Scalar summary keys (docs/semantics/outputs.md §3.2).
const (
	KeyNumRequests                          = "num_requests"
	KeyCompletedRequests                    = "completed_requests"
	KeyTotalInputTokens                     = "total_input_tokens"
	KeyTotalOutputTokens                    = "total_output_tokens"
	KeyDurationMs                           = "duration_ms"
	KeyWallTimeMs                           = "wall_time_ms"
	KeyRequestThroughputRPS                 = "request_throughput_rps"
	KeyInputThroughputTokS                  = "input_throughput_tok_s"
	KeyOutputThroughputTokS                 = "output_throughput_tok_s"
	KeyTotalThroughputTokS                  = "total_throughput_tok_s"
	KeyPrefillWorkerSeconds                 = "prefill_worker_seconds"
	KeyDecodeWorkerSeconds                  = "decode_worker_seconds"
	KeyPrefillGPUsPerWorker                 = "prefill_gpus_per_worker"
	KeyDecodeGPUsPerWorker                  = "decode_gpus_per_worker"
	KeyGPUHours                             = "gpu_hours"
	KeyProcessedTokens                      = "processed_tokens"
	KeyProcessedTokensPerS                  = "processed_tokens_per_s"
	KeyProcessedOutputTokensPerS            = "processed_output_tokens_per_s"
	KeyPrefixCacheReusedRatio               = "prefix_cache_reused_ratio"
	KeyFirstAdmissionPrefixCacheReusedRatio = "first_admission_prefix_cache_reused_ratio"
	KeyNumTTFTSamples                       = "num_ttft_samples"
	KeyNumTPOTSamples                       = "num_tpot_samples"
	KeyNumE2ELatencySamples                 = "num_e2e_latency_samples"
	KeyGoodputCompletedRequests             = "goodput_completed_requests"
	KeyGoodputRequestThroughputRPS          = "goodput_request_throughput_rps"
	KeyGoodputOutputThroughputTokS          = "goodput_output_throughput_tok_s"
	KeyTotalTrajectories                    = "total_trajectories"
	KeyCompletedTrajectories                = "completed_trajectories"
	KeyIncompleteTrajectories               = "incomplete_trajectories"
	KeyP50TrajectoryE2ELatencyMs            = "p50_trajectory_e2e_latency_ms"
)

// Keys of AIPerf's power rows: the table shows them when present; this stack never writes them.
const (
	keyPowerW        = "power_w"
	keyPowerCoverage = "power_coverage"
)

// Distribution is the name part of a distribution's nine keys {stat}_{Distribution}
// (docs/semantics/outputs.md §3.2; only the per-user throughput has no _ms suffix).
type Distribution string

// The distributions of the summary (docs/semantics/outputs.md §3.2, §4.6).
const (
	TTFT                         Distribution = "ttft_ms"
	TTST                         Distribution = "ttst_ms"
	TPOT                         Distribution = "tpot_ms"
	ITL                          Distribution = "itl_ms"
	E2ELatency                   Distribution = "e2e_latency_ms"
	OutputTokenThroughputPerUser Distribution = "output_token_throughput_per_user"
	TrajectoryE2ELatency         Distribution = "trajectory_e2e_latency_ms"
)

// Statistic is the {stat} prefix of a distribution key (docs/semantics/outputs.md §4.2).
type Statistic string

// The nine statistics of every distribution, in the order of docs/semantics/outputs.md §3.2.
const (
	Mean   Statistic = "mean"
	Min    Statistic = "min"
	Max    Statistic = "max"
	Median Statistic = "median"
	P75    Statistic = "p75"
	P90    Statistic = "p90"
	P95    Statistic = "p95"
	P99    Statistic = "p99"
	Std    Statistic = "std"
)

// Statistics lists the nine statistics of a distribution.
var Statistics = [9]Statistic{Mean, Min, Max, Median, P75, P90, P95, P99, Std}

// Key is the summary key of one statistic of the distribution: {stat}_{name}.
func (d Distribution) Key(s Statistic) string { return string(s) + "_" + string(d) }

// Card is one headline metric of a summary as the browser app and the docs embed show it.
type Card struct {
	// Label is the card's caption.
	Label string
	// Key is the summary key shown; a card whose key a summary lacks is not shown.
	Key string
	// Unit follows the value ("" for counts and ratios).
	Unit string
	// Embed is true for the cards of the compact docs embed (static/embed.js).
	Embed bool
}

// Cards are the headline metrics, in display order: the browser app shows all of them, the
// docs embed those marked Embed; a card whose key has an interval (IntervalKeys) shows its
// band under the value. Keys absent from a summary (goodput without an SLA, the
// trajectory keys for non-agentic sources) are skipped.
var Cards = []Card{
	{"Completed requests", KeyCompletedRequests, "", true},
	{"TTFT mean", TTFT.Key(Mean), "ms", true},
	{"TTFT p50", TTFT.Key(Median), "ms", true},
	{"TTFT p99", TTFT.Key(P99), "ms", true},
	{"ITL mean, all gaps", ITL.Key(Mean), "ms", true},
	{"ITL p99, all gaps", ITL.Key(P99), "ms", false},
	{"E2E mean", E2ELatency.Key(Mean), "ms", false},
	{"E2E p50", E2ELatency.Key(Median), "ms", true},
	{"E2E p99", E2ELatency.Key(P99), "ms", false},
	{"Output throughput", KeyOutputThroughputTokS, "tok/s", true},
	{"Request throughput", KeyRequestThroughputRPS, "req/s", true},
	{"Goodput", KeyGoodputRequestThroughputRPS, "req/s", false},
	{"GPU-hours", KeyGPUHours, "h", true},
	{"Virtual duration", KeyDurationMs, "ms", false},
	{"Prefix cache reuse", KeyPrefixCacheReusedRatio, "", false},
	{"Trajectories completed", KeyCompletedTrajectories, "", false},
	{"Trajectories incomplete", KeyIncompleteTrajectories, "", false},
	{"Trajectory E2E p50", TrajectoryE2ELatency.Key(Median), "ms", false},
	{"Trajectory E2E p99", TrajectoryE2ELatency.Key(P99), "ms", false},
}

// Keys of prediction.json's `intervals` object (docs/uncertainty.md): per metric of
// IntervalKeys an object {n, p10, p90}, plus the band's source and group.
const (
	KeyIntervals      = "intervals"
	KeyIntervalP10    = "p10"
	KeyIntervalP90    = "p90"
	KeyIntervalN      = "n"
	KeyIntervalSource = "source"
	KeyIntervalGroup  = "group"
)

// Sources of an interval's band: the default model's held-out error, or a calibration
// profile's residuals.
const (
	IntervalSourceDefault     = "default"
	IntervalSourceCalibration = "calibration"
)

// IntervalKeys are the summary keys that get an 80 % interval, in display order.
var IntervalKeys = []string{TTFT.Key(Mean), TPOT.Key(Mean), ITL.Key(Mean), E2ELatency.Key(Mean), KeyOutputThroughputTokS}

// IntervalOf reads the 80 % interval of a summary key from an intervals object (as
// prediction.json holds it, or as decoded from JSON); ok is false when there is none.
func IntervalOf(intervals map[string]any, key string) (p10, p90 float64, ok bool) {
	m, _ := intervals[key].(map[string]any)
	p10, ok1 := m[KeyIntervalP10].(float64)
	p90, ok2 := m[KeyIntervalP90].(float64)
	return p10, p90, ok1 && ok2
}

// Keys of prediction.json's calibration sections (docs/calibration.md, "Using a profile"):
// the default model's summary beside the calibrated one, and which profile entry each role
// used.
const (
	KeyUncalibrated = "uncalibrated"
	KeyCalibration  = "calibration"
)
