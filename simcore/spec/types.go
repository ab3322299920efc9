// Package spec holds the prediction configuration: its types, strict decoding from YAML,
// defaults, cross-field validation and --set overrides. Every value here is the effective
// value after defaults were applied; pointer fields are nil when the user left them unset and
// the absence itself is meaningful (null in the schema).
package spec

// Config is one validated `aisimulate predict` configuration.
type Config struct {
	Traffic    Traffic
	Engine     Engine
	Router     Router
	Planner    Planner
	Evaluation Evaluation
	// HasRouter / HasPlanner record whether the YAML had the adapter section at all.
	HasRouter  bool
	HasPlanner bool
}

// Source type tags of traffic.source.type.
const (
	SourceSynthetic        = "synthetic"
	SourceSyntheticSession = "synthetic-session"
	SourceTrace            = "trace"
)

// Load type tags of traffic.load.type.
const (
	LoadConcurrency     = "concurrency"
	LoadPoisson         = "poisson"
	LoadConstantRate    = "constant_rate"
	LoadTraceTimestamps = "trace_timestamps"
	// LoadKVCapacityFraction is a closed loop whose concurrency is derived from the KV
	// capacity of the decode (or aggregated) role (Traffic.KVFractionConcurrency); lowering
	// replaces it by the concurrency load it resolves to.
	LoadKVCapacityFraction = "kv_capacity_fraction"
)

// Traffic is the workload section.
type Traffic struct {
	Source Source
	Load   Load
	Stop   Stop
}

// Source is traffic.source; Type selects which of the sub-structs is meaningful.
type Source struct {
	Type string
	// synthetic
	InputTokens  int
	OutputTokens int
	// Lengths is how each request's lengths vary around InputTokens and OutputTokens
	// (the zero value: constant).
	Lengths Lengths
	// synthetic-session
	NewInputTokensPerTurn int
	OutputTokensPerTurn   int
	Session               Session
	// trace
	Paths                []string
	Format               string // mooncake, mooncake-delta, agentic_mooncake, applied_compute_agentic, dynamo, weka
	BlockSize            *int   // nil = format default (512, or embedded for dynamo/weka)
	NestedTimestampBasis string // weka only; "" when unset
}

// Session is traffic.source.session of a synthetic-session source.
type Session struct {
	Turns             int
	SharedPrefixRatio float64
	PrefixGroups      int
	InterTurnDelayMs  float64
}

// Load is traffic.load.
type Load struct {
	Type              string
	Concurrency       int      // concurrency load
	RequestsPerSecond *float64 // poisson / constant_rate with synthetic
	SessionsPerSecond *float64 // poisson / constant_rate with synthetic-session
	Seed              uint64   // poisson; default 42
	Speedup           float64  // trace_timestamps; default 1.0
	AgenticLanes      *int     // trace_timestamps with agentic formats
	Fraction          float64  // kv_capacity_fraction: the share of the KV capacity (> 0, may exceed 1)
}

// Stop is traffic.stop; nil fields are unset.
type Stop struct {
	Requests              *int
	RequestsPerLoadUnit   *float64
	Sessions              *int
	SessionsPerLoadUnit   *float64
	MaxVirtualTimeSeconds *float64
}

// Engine modes.
const (
	ModeAggregated    = "aggregated"
	ModeDisaggregated = "disaggregated"
)

// Engine is the engine section.
type Engine struct {
	Mode           string
	Model          string
	Hardware       string
	Backend        string // vllm, sglang, trtllm
	BackendVersion *string
	// ContextLength is the numeric limit, or 0 when `max` (resolved from the model later).
	ContextLength int
	ContextMax    bool
	// Workers per role; nil when the role is absent.
	Aggregated *Worker
	Prefill    *Worker
	Decode     *Worker
	KVTransfer *KVTransfer
	// Quantisation modes; "" = default from the model config.
	GemmQuantMode    string
	MoeQuantMode     string
	KVCacheQuantMode string
	FMHAQuantMode    string
	CommQuantMode    string
	// NextN is engine.nextn: MTP draft tokens per decode step, 0..MaxNextN (docs/semantics/simulation.md §5.4).
	NextN int
	// NextNAcceptRates is engine.nextn_accept_rates: exactly NextN per-draft acceptance
	// probabilities; nil = the timing model's default (perf.DefaultAcceptRates).
	NextNAcceptRates []float64
}

// MaxNextN is the largest engine.nextn (the AIC estimator's limit).
const MaxNextN = 5

// Worker is engine.workers.<role> after role defaults.
type Worker struct {
	Hardware       string // effective hardware (inherits engine.hardware)
	Parallelism    Parallelism
	Scheduler      Scheduler
	KVCache        KVCache
	Timing         Timing
	StartupSeconds float64
}

// Parallelism is engine.workers.<role>.parallelism.
type Parallelism struct {
	Replicas      int
	Tensor        int
	Pipeline      int
	AttentionData int
	MoeTensor     int
	MoeExpert     int
}

// Scheduler is engine.workers.<role>.scheduler.
type Scheduler struct {
	MaxBatchedTokens        int
	MaxSequences            int
	PrefillScheduleInterval int
	PrefillDecodeInterval   int
	// RecvInterval is SGLang's --scheduler-recv-interval: the scheduler polls for new
	// requests once per this many decode rounds (1 = every round, SGLang's default).
	RecvInterval int
}

// KVCache is engine.workers.<role>.kv_cache.
type KVCache struct {
	BlockSize     int
	PrefixCaching bool
	BytesPerToken int // 0 = auto
	Capacity      Capacity
}

// Capacity types.
const (
	CapacityDefault = "default"
	CapacityFixed   = "fixed"
)

// Capacity is kv_cache.capacity.
type Capacity struct {
	Type                   string
	Blocks                 int     // fixed
	MemoryFraction         float64 // default; backend default 0.9 (SGLang 0: derived from the GPU)
	CUDAGraphReservedBytes int64   // default
}

// Timing types.
const (
	TimingDefault    = "default"
	TimingFixed      = "fixed"
	TimingPolynomial = "polynomial"
)

// Timing is engine.workers.<role>.timing.
type Timing struct {
	Type      string
	PrefillMs float64 // fixed
	DecodeMs  float64 // fixed
	// FrontendMs is the client-visible frontend latency (docs/semantics/simulation.md §5.3) when
	// FrontendSet; otherwise auto (default timing: the calibrated per-backend value) or 0
	// (fixed, polynomial).
	FrontendMs  float64
	FrontendSet bool
}

// KVTransfer is engine.kv_transfer (disaggregated only).
type KVTransfer struct {
	BytesPerToken        int      // 0 = auto
	BandwidthGBPerSecond *float64 // nil = no transfer delay
	TimingMode           string   // destination_missing (default) | full_prompt
	// HandoffMs is the fixed per-request hand-off latency in ms (docs/semantics/simulation.md §11.4);
	// nil = auto (the default timing model's per-backend value, see perf.HandoffMs).
	HandoffMs *float64
}

// Router is the router adapter section after defaults.
type Router struct {
	Policy             string // round_robin | kv_router
	PrefillLoadModel   string // none | aic
	OverlapScoreCredit float64
	PrefillLoadScale   float64
	Temperature        float64
}

// Planner is the planner adapter section after defaults.
type Planner struct {
	Policy                              string // disabled | enabled
	Target                              string // throughput | latency | sla | load
	EnableThroughputScaling             bool
	EnableLoadScaling                   bool
	ThroughputAdjustmentIntervalSeconds int
	LoadAdjustmentIntervalSeconds       int
	MaxNumFPMSamples                    int
	FPMSampleBucketSize                 int
	LoadScalingDownSensitivity          int
	LoadMinObservations                 int
	LoadPredictor                       string // constant | arima | prophet | kalman
	LoadPredictorLog1p                  bool
	ProphetWindowSize                   int
	KalmanQLevel                        float64
	KalmanQTrend                        float64
	KalmanR                             float64
	KalmanMinPoints                     int
	MaxNumGPUs                          int // -1 = unlimited
	MinNumGPUs                          int // -1 = unset
	MinWorkers                          int
	PrefillMinWorkers                   *int
	DecodeMinWorkers                    *int
}

// Evaluation is the evaluation section.
type Evaluation struct {
	SLA *SLA // nil when evaluation.sla is absent
}

// SLA holds per-request service-level bounds; nil fields are unset.
type SLA struct {
	TTFTMs *float64
	ITLMs  *float64
	E2EMs  *float64
}

// Error is a configuration error: exit code 2, printed as `<config>: <path>: <msg>`.
type Error struct {
	Path string // dotted field path, e.g. traffic.load.concurrency; "" for whole-file errors
	Msg  string // what is wrong and how to fix it
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}
