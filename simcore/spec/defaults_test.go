package spec

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr[T any](v T) *T { return &v }

func TestSeedExampleFullConfig(t *testing.T) {
	cfg := mustLoad(t, seedYAML)
	want := &Config{
		Traffic: Traffic{
			Source: Source{Type: SourceSynthetic, InputTokens: 1024, OutputTokens: 128},
			Load:   Load{Type: LoadConcurrency, Concurrency: 8, Seed: 42, Speedup: 1.0},
			Stop:   Stop{Requests: ptr(100)},
		},
		Engine: Engine{
			Mode: ModeAggregated, Model: "meta-llama/Meta-Llama-3.1-8B-Instruct", Hardware: "h200_sxm",
			Backend: BackendVLLM, ContextMax: true,
			Aggregated: &Worker{
				Hardware:    "h200_sxm",
				Parallelism: Parallelism{Replicas: 1, Tensor: 1, Pipeline: 1, AttentionData: 1, MoeTensor: 1, MoeExpert: 1},
				Scheduler:   Scheduler{MaxBatchedTokens: 8192, MaxSequences: 256, PrefillScheduleInterval: 1, PrefillDecodeInterval: 0, RecvInterval: 1},
				KVCache: KVCache{BlockSize: 64, PrefixCaching: true, BytesPerToken: 0,
					Capacity: Capacity{Type: CapacityDefault, MemoryFraction: 0.9}},
				Timing: Timing{Type: TimingDefault},
			},
		},
		Router:  Router{Policy: RouterRoundRobin, PrefillLoadModel: LoadModelNone, OverlapScoreCredit: 1.0, PrefillLoadScale: 1.0, Temperature: 0.0},
		Planner: DefaultPlanner(),
	}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Fatalf("config mismatch (-want +got):\n%s", diff)
	}
}

func TestDefaultTrafficWhenOmitted(t *testing.T) {
	cfg := mustLoad(t, aggYAML)
	want := Traffic{
		Source: Source{Type: SourceSynthetic, InputTokens: 1024, OutputTokens: 128},
		Load:   Load{Type: LoadConcurrency, Concurrency: 10, Seed: 42, Speedup: 1.0},
		Stop:   Stop{Requests: ptr(100)},
	}
	if diff := cmp.Diff(want, cfg.Traffic); diff != "" {
		t.Fatalf("default traffic mismatch (-want +got):\n%s", diff)
	}
}

func TestTrafficFieldDefaults(t *testing.T) {
	// load: {} is a concurrency load of 10.
	cfg := mustLoad(t, aggYAML+"traffic: {source: {type: synthetic}, load: {}, stop: {requests: 5}}\n")
	if l := cfg.Traffic.Load; l.Type != LoadConcurrency || l.Concurrency != 10 {
		t.Fatalf("load = %+v", l)
	}
	if s := cfg.Traffic.Source; s.InputTokens != 1024 || s.OutputTokens != 128 {
		t.Fatalf("source = %+v", s)
	}
	// synthetic-session defaults.
	cfg = mustLoad(t, aggYAML+"traffic: {source: {type: synthetic-session, session: {}}, load: {type: poisson, sessions_per_second: 2}, stop: {sessions: 3}}\n")
	want := Source{Type: SourceSyntheticSession, NewInputTokensPerTurn: 1024, OutputTokensPerTurn: 128, Session: Session{Turns: 4}}
	if diff := cmp.Diff(want, cfg.Traffic.Source); diff != "" {
		t.Fatalf("session source (-want +got):\n%s", diff)
	}
	if cfg.Traffic.Load.Seed != 42 || *cfg.Traffic.Load.SessionsPerSecond != 2 {
		t.Fatalf("load = %+v", cfg.Traffic.Load)
	}
	// trace block size: 512 for mooncake, nil (embedded) for dynamo, explicit kept.
	cfg = mustLoad(t, traceYAML)
	if bs := cfg.Traffic.Source.BlockSize; bs == nil || *bs != 512 {
		t.Fatalf("mooncake block size = %v", bs)
	}
	if cfg.Traffic.Source.Format != FormatMooncake || cfg.Traffic.Load.Speedup != 1.0 {
		t.Fatalf("trace = %+v %+v", cfg.Traffic.Source, cfg.Traffic.Load)
	}
	cfg = mustLoad(t, traceYAML, "traffic.source.format=dynamo")
	if cfg.Traffic.Source.BlockSize != nil {
		t.Fatalf("dynamo block size = %d, want nil", *cfg.Traffic.Source.BlockSize)
	}
	cfg = mustLoad(t, traceYAML, "traffic.source.format=weka", "traffic.source.block_size=4", "traffic.load.speedup=2")
	if *cfg.Traffic.Source.BlockSize != 4 || cfg.Traffic.Source.NestedTimestampBasis != "" || cfg.Traffic.Load.Speedup != 2 {
		t.Fatalf("weka = %+v %+v", cfg.Traffic.Source, cfg.Traffic.Load)
	}
	// trace with a concurrency load gets the default concurrency; no stop = run to the end.
	cfg = mustLoad(t, traceYAML, "traffic.load={type: concurrency}")
	if cfg.Traffic.Load.Concurrency != 10 || cfg.Traffic.Stop != (Stop{}) {
		t.Fatalf("trace concurrency = %+v stop %+v", cfg.Traffic.Load, cfg.Traffic.Stop)
	}
}

func TestRoleDefaults(t *testing.T) {
	cfg := mustLoad(t, disaggYAML)
	e := cfg.Engine
	if e.Aggregated != nil || e.Prefill == nil || e.Decode == nil {
		t.Fatalf("roles: agg %v prefill %v decode %v", e.Aggregated, e.Prefill, e.Decode)
	}
	if s := e.Prefill.Scheduler; s.MaxSequences != 1 || s.MaxBatchedTokens != 8192 || s.PrefillScheduleInterval != 1 || s.PrefillDecodeInterval != 0 || s.RecvInterval != 1 {
		t.Errorf("prefill scheduler = %+v", s)
	}
	if s := e.Decode.Scheduler; s.MaxSequences != 256 || s.MaxBatchedTokens != 8192 {
		t.Errorf("decode scheduler = %+v", s)
	}
	if e.KVTransfer == nil || *e.KVTransfer != (KVTransfer{TimingMode: "destination_missing"}) {
		t.Errorf("kv_transfer = %+v", e.KVTransfer)
	}
	if e.Prefill.Hardware != "h200_sxm" || e.Decode.Hardware != "h200_sxm" {
		t.Errorf("hardware = %q %q", e.Prefill.Hardware, e.Decode.Hardware)
	}
	// The prefill default of 1 applies only when max_sequences is unset.
	cfg = mustLoad(t, disaggYAML, "engine.workers.prefill.scheduler.max_sequences=4", "engine.workers.prefill.hardware=h100_sxm")
	if cfg.Engine.Prefill.Scheduler.MaxSequences != 4 {
		t.Errorf("explicit prefill max_sequences = %d, want 4", cfg.Engine.Prefill.Scheduler.MaxSequences)
	}
	if cfg.Engine.Prefill.Hardware != "h100_sxm" || cfg.Engine.Decode.Hardware != "h200_sxm" {
		t.Errorf("hardware override = %q %q", cfg.Engine.Prefill.Hardware, cfg.Engine.Decode.Hardware)
	}
	// Aggregated role: 256 sequences, no kv_transfer, context max.
	cfg = mustLoad(t, aggYAML)
	if cfg.Engine.Aggregated.Scheduler.MaxSequences != 256 || cfg.Engine.KVTransfer != nil || !cfg.Engine.ContextMax || cfg.Engine.ContextLength != 0 {
		t.Errorf("aggregated = %+v kv %v", cfg.Engine.Aggregated.Scheduler, cfg.Engine.KVTransfer)
	}
	cfg = mustLoad(t, aggYAML, "engine.context_length=4096")
	if cfg.Engine.ContextMax || cfg.Engine.ContextLength != 4096 {
		t.Errorf("context = %d max %v", cfg.Engine.ContextLength, cfg.Engine.ContextMax)
	}
}

func TestBackendDefaults(t *testing.T) {
	cases := []struct {
		backend  string
		block    int
		fraction float64
	}{
		{BackendVLLM, 64, 0.9},
		{BackendSGLang, 1, 0}, // derived from the GPU by the memory model
		{BackendTRTLLM, 32, 0.9},
	}
	for _, c := range cases {
		cfg := mustLoad(t, aggYAML, "engine.backend="+c.backend)
		kv := cfg.Engine.Aggregated.KVCache
		if kv.BlockSize != c.block || kv.Capacity.MemoryFraction != c.fraction || !kv.PrefixCaching || kv.Capacity.Type != CapacityDefault {
			t.Errorf("%s: kv = %+v", c.backend, kv)
		}
		if DefaultBlockSize(c.backend) != c.block || DefaultMemoryFraction(c.backend) != c.fraction {
			t.Errorf("%s: exported defaults disagree", c.backend)
		}
	}
	// An explicit fraction wins; fixed capacity has no fraction.
	cfg := mustLoad(t, aggYAML, "engine.backend=sglang", "engine.workers.aggregated.kv_cache.capacity.memory_fraction=0.5")
	if cfg.Engine.Aggregated.KVCache.Capacity.MemoryFraction != 0.5 {
		t.Errorf("fraction = %v", cfg.Engine.Aggregated.KVCache.Capacity.MemoryFraction)
	}
	cfg = mustLoad(t, aggYAML, "engine.workers.aggregated.kv_cache={block_size: 16, bytes_per_token: 1024, capacity: {type: fixed, bytes: 1048576}}")
	if c := cfg.Engine.Aggregated.KVCache.Capacity; c != (Capacity{Type: CapacityFixed, Blocks: 64}) {
		t.Errorf("bytes capacity = %+v, want 64 blocks", c)
	}
	cfg = mustLoad(t, aggYAML, "engine.workers.aggregated.timing={type: fixed, prefill_ms: 1, decode_ms: 2.5}")
	if tm := cfg.Engine.Aggregated.Timing; tm != (Timing{Type: TimingFixed, PrefillMs: 1, DecodeMs: 2.5}) {
		t.Errorf("timing = %+v", tm)
	}
}

func TestAdapterDefaults(t *testing.T) {
	cfg := mustLoad(t, aggYAML)
	if cfg.HasRouter || cfg.HasPlanner {
		t.Fatalf("HasRouter %v HasPlanner %v, want false", cfg.HasRouter, cfg.HasPlanner)
	}
	if cfg.Router != DefaultRouter() || cfg.Router.Policy != RouterRoundRobin || cfg.Router.PrefillLoadScale != 1.0 || cfg.Router.OverlapScoreCredit != 1.0 || cfg.Router.Temperature != 0 {
		t.Fatalf("router = %+v", cfg.Router)
	}
	wantPlanner := Planner{
		Policy: "disabled", Target: "throughput", EnableThroughputScaling: true, EnableLoadScaling: false,
		ThroughputAdjustmentIntervalSeconds: 180, LoadAdjustmentIntervalSeconds: 5,
		MaxNumFPMSamples: 64, FPMSampleBucketSize: 16, LoadScalingDownSensitivity: 80, LoadMinObservations: 5,
		LoadPredictor: "arima", LoadPredictorLog1p: false, ProphetWindowSize: 50,
		KalmanQLevel: 1.0, KalmanQTrend: 0.1, KalmanR: 10.0, KalmanMinPoints: 5,
		MaxNumGPUs: 8, MinNumGPUs: -1, MinWorkers: 1,
	}
	if diff := cmp.Diff(wantPlanner, cfg.Planner); diff != "" {
		t.Fatalf("planner defaults (-want +got):\n%s", diff)
	}
	cfg = mustLoad(t, aggYAML+"router: {}\nplanner: {}\n")
	if !cfg.HasRouter || !cfg.HasPlanner || cfg.Router != DefaultRouter() {
		t.Fatalf("empty sections: %+v %v %v", cfg.Router, cfg.HasRouter, cfg.HasPlanner)
	}
	if diff := cmp.Diff(wantPlanner, cfg.Planner); diff != "" {
		t.Fatalf("planner {} (-want +got):\n%s", diff)
	}
	cfg = mustLoad(t, aggYAML+"router: {policy: kv_router, temperature: 0.5}\n", "engine.workers.aggregated.parallelism.replicas=3")
	if r := cfg.Router; r != (Router{Policy: RouterKV, PrefillLoadModel: LoadModelNone, OverlapScoreCredit: 1.0, PrefillLoadScale: 1.0, Temperature: 0.5}) {
		t.Fatalf("kv router = %+v", r)
	}
	cfg = mustLoad(t, slaYAML+"planner: {policy: enabled, target: sla, prefill_min_workers: 2}\n")
	if p := cfg.Planner; p.Policy != PlannerEnabled || p.Target != TargetSLA || *p.PrefillMinWorkers != 2 || p.DecodeMinWorkers != nil {
		t.Fatalf("planner = %+v", p)
	}
}
