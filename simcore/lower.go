package simcore

import (
	"errors"
	"io/fs"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/outputs"
	"aisimulate/simcore/internal/planner"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/internal/router"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// lower turns a validated configuration into the loop's plan, with no calibration.
func lower(cfg *spec.Config, in *Input) (*replay.Plan, outputs.Accounting, error) {
	return lowerTuned(cfg, in, nil)
}

// lowerTuned is lower with a calibration applied (nil: none).
func lowerTuned(cfg *spec.Config, in *Input, tune *tuning) (*replay.Plan, outputs.Accounting, error) {
	var acc outputs.Accounting
	e := &cfg.Engine
	model, err := catalog.LookupModel(e.Model, in.Files)
	if err != nil {
		return nil, acc, configError(err, "")
	}
	acc.CatalogModel = model.CatalogID
	plan := &replay.Plan{Capture: in.CapturePerRequest, Disaggregated: e.Mode == spec.ModeDisaggregated, FrontendServiceMs: tune.frontendService()}
	if plan.Disaggregated {
		if plan.Prefill, err = lowerPool(cfg, model, e.Prefill, spec.RolePrefill, engine.PoolPrefill, tune.role(spec.RolePrefill), tune.capacityScale(spec.RolePrefill)); err != nil {
			return nil, acc, err
		}
		if plan.Decode, err = lowerPool(cfg, model, e.Decode, spec.RoleDecode, engine.PoolDecode, tune.role(spec.RoleDecode), tune.capacityScale(spec.RoleDecode)); err != nil {
			return nil, acc, err
		}
		plan.Decode.Rank.MaxSequences = tune.decodeCap(plan.Decode.Rank.MaxSequences)
		acc.Disaggregated = true
		acc.PrefillReplicas = e.Prefill.Parallelism.Replicas
		acc.DecodeReplicas = e.Decode.Parallelism.Replicas
		acc.PrefillGPUsPerWorker = plan.Prefill.GPUsPerWorker
		acc.DecodeGPUsPerWorker = plan.Decode.GPUsPerWorker
		if kt := e.KVTransfer; kt != nil {
			plan.Transfer.FullPrompt = kt.TimingMode == "full_prompt"
			if kt.BandwidthGBPerSecond != nil {
				plan.Transfer.BandwidthGBs = *kt.BandwidthGBPerSecond
			}
			plan.Transfer.HandoffMs = handoffMs(e) + tune.handoff()
			plan.Transfer.BytesPerToken = int64(kt.BytesPerToken)
			if kt.BytesPerToken == 0 {
				par := e.Prefill.Parallelism
				plan.Transfer.BytesPerToken = model.KVBytesPerToken(par.Tensor, par.Pipeline, e.KVCacheQuantMode)
			}
		}
	} else {
		if plan.Agg, err = lowerPool(cfg, model, e.Aggregated, spec.RoleAggregated, engine.PoolAgg, tune.role(spec.RoleAggregated), tune.capacityScale(spec.RoleAggregated)); err != nil {
			return nil, acc, err
		}
		acc.DecodeReplicas = e.Aggregated.Parallelism.Replicas
		acc.DecodeGPUsPerWorker = plan.Agg.GPUsPerWorker
	}
	if err := resolveKVFraction(cfg, plan); err != nil {
		return nil, acc, err
	}
	if s := cfg.Evaluation.SLA; s != nil {
		acc.SLA = &report.SLA{}
		if s.TTFTMs != nil {
			acc.SLA.TTFTMs, acc.SLA.HasTTFT = *s.TTFTMs, true
		}
		if s.ITLMs != nil {
			acc.SLA.ITLMs, acc.SLA.HasITL = *s.ITLMs, true
		}
		if s.E2EMs != nil {
			acc.SLA.E2EMs, acc.SLA.HasE2E = *s.E2EMs, true
		}
	}
	entry := plan.Agg
	if plan.Disaggregated {
		entry = plan.Prefill
	}
	tr := cfg.Traffic
	if tr.Source.Type == spec.SourceTrace {
		src := tr.Source
		files := in.Files
		if files == nil {
			files = emptyFS{}
		}
		// The caller's request limit is checked while reading, so a trace over it is not
		// read to its end first.
		w, err := traffic.LoadTraceWithin(src, tr.Load, files, in.MaxRequests)
		var over *traffic.CallerLimitError
		if errors.As(err, &over) {
			return nil, acc, &LimitError{Path: "traffic.source.paths", Msg: over.Error()}
		}
		if err != nil {
			return nil, acc, configError(err, "")
		}
		if err := spec.CheckLoadedTrace(cfg, w.Graph != nil); err != nil {
			return nil, acc, err
		}
		plan.Workload = *traffic.MarkShared(w)
		if s := tr.Stop.MaxVirtualTimeSeconds; s != nil {
			plan.CutoffMs = 1000 * *s
		}
	} else {
		plan.Workload = traffic.Synthetic(tr, entry.Rank.BlockSize)
	}
	if in.Progress != nil {
		plan.Progress = in.Progress
	}
	if cfg.Planner.Policy == spec.PlannerEnabled {
		pp := &replay.PlannerPlan{Settings: planner.Settings{Config: cfg.Planner, Disaggregated: plan.Disaggregated, SLA: cfg.Evaluation.SLA}}
		role := func(component string, p *replay.PoolPlan) planner.Role {
			return planner.Role{Component: component, Timing: p.Rank.Timing, MaxBatchedTokens: p.Rank.MaxBatchedTokens,
				MaxSequences: p.Rank.MaxSequences, MaxKVTokens: int64(p.Rank.NumBlocks) * int64(p.Rank.BlockSize),
				ContextLength: p.Rank.MaxModelLen, GPUsPerWorker: p.GPUsPerWorker, MinWorkers: planner.MinWorkers(cfg.Planner, component)}
		}
		if plan.Disaggregated {
			pp.Settings.Roles = []planner.Role{role(planner.ComponentPrefill, plan.Prefill), role(planner.ComponentDecode, plan.Decode)}
		} else {
			pp.Settings.Roles = []planner.Role{role(planner.ComponentAgg, plan.Agg)}
		}
		plan.Planner = pp
	}
	return plan, acc, nil
}

// handoffMs resolves kv_transfer.handoff_ms (docs/semantics/simulation.md §11.4): the configured value, or
// for auto the default timing model's per-backend value when both roles use default timing
// (the value is part of that model's calibration), else 0.
func handoffMs(e *spec.Engine) float64 {
	if v := e.KVTransfer.HandoffMs; v != nil {
		return *v
	}
	if e.Prefill.Timing.Type == spec.TimingDefault && e.Decode.Timing.Type == spec.TimingDefault {
		return perf.HandoffMs(e.Backend)
	}
	return 0
}

type emptyFS struct{}

func (emptyFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

// lowerPool builds one role's pool plan: scheduler, KV capacity, timing and router; corr
// corrects its default timing model and kvScale scales its KV capacity (a calibration's,
// docs/calibration.md; 1 keeps it).
func lowerPool(cfg *spec.Config, model *catalog.Model, w *spec.Worker, role string, pool engine.Pool, corr perf.Correction, kvScale float64) (*replay.PoolPlan, error) {
	e := &cfg.Engine
	par := w.Parallelism
	rc := engine.RankConfig{
		Pool:                  pool,
		MaxBatchedTokens:      w.Scheduler.MaxBatchedTokens,
		MaxSequences:          w.Scheduler.MaxSequences,
		BlockSize:             w.KVCache.BlockSize,
		PrefixCaching:         w.KVCache.PrefixCaching,
		PrefillDecodeInterval: w.Scheduler.PrefillDecodeInterval,
		RecvInterval:          w.Scheduler.RecvInterval,
		Policy:                engine.PolicyOf(e.Backend),
	}
	rc.ChunkedPrefillSize, rc.MaxPrefillTokens, rc.Conservativeness = engine.SGLangDefaults(par.AttentionData)
	switch {
	case !e.ContextMax:
		rc.MaxModelLen = e.ContextLength
	case e.Backend == spec.BackendVLLM:
		rc.MaxModelLen = model.MaxPositions
	}
	hwID := w.Hardware
	if hwID == "" {
		hwID = e.Hardware
	}
	// The hardware must exist even when fixed timing and capacity never consult it.
	hw, err := catalog.LookupHardware(hwID)
	if err != nil {
		if w.Hardware != "" && w.Hardware != e.Hardware {
			return nil, configError(err, role)
		}
		return nil, configError(err, "")
	}
	// The default timing model and the default KV capacity price one resolved deployment,
	// built once when either needs it (fixed timing and a fixed capacity never consult it).
	var dep *perf.Deployment
	if w.Timing.Type == spec.TimingDefault || w.KVCache.Capacity.Type != spec.CapacityFixed {
		if dep, err = perf.NewDeployment(model, hw, e.Backend, par, perf.QuantFromEngine(e)); err != nil {
			return nil, deploymentError(err, role, w.Timing.Type == spec.TimingDefault)
		}
	}
	switch w.Timing.Type {
	case spec.TimingFixed:
		rc.Timing = perf.Fixed{Prefill: w.Timing.PrefillMs, Decode: w.Timing.DecodeMs, Frontend: w.Timing.FrontendMs}
	case spec.TimingPolynomial:
		rc.Timing = perf.Polynomial{Frontend: w.Timing.FrontendMs}
	default:
		t, err := perf.NewDefault(dep)
		if err != nil {
			return nil, configError(err, role)
		}
		if w.Timing.FrontendSet {
			t.SetFrontend(w.Timing.FrontendMs)
		}
		t.SetCorrection(corr)
		rc.Timing = t
	}
	// MTP (docs/semantics/simulation.md §5.4): the timing model prices the drafts, the ranks draw bursts.
	rc.Timing = perf.WithMTP(rc.Timing, e.NextN)
	if rc.NextN = e.NextN; rc.NextN > 0 {
		rc.AcceptRates = e.NextNAcceptRates
		if rc.AcceptRates == nil {
			rc.AcceptRates = perf.DefaultAcceptRates(e.NextN)
		}
	}
	if w.KVCache.Capacity.Type == spec.CapacityFixed {
		rc.NumBlocks = w.KVCache.Capacity.Blocks
	} else {
		n, err := dep.KVCapacityBlocks(perf.MemorySettings{MemoryFraction: w.KVCache.Capacity.MemoryFraction,
			CUDAGraphReservedBytes: w.KVCache.Capacity.CUDAGraphReservedBytes, MaxBatchedTokens: rc.MaxBatchedTokens, NextN: e.NextN}, rc.BlockSize)
		if err != nil {
			return nil, capacityError(err, role)
		}
		rc.NumBlocks = n
	}
	if kvScale != 1 {
		rc.NumBlocks = max(1, int(kvScale*float64(rc.NumBlocks)))
	}
	pp := &replay.PoolPlan{
		Replicas:      par.Replicas,
		DP:            par.AttentionData,
		Rank:          rc,
		GPUsPerWorker: par.Tensor * par.AttentionData,
		StartupMs:     1000 * w.StartupSeconds,
	}
	rcfg := router.Config{Policy: router.RoundRobin, BlockSize: rc.BlockSize, QueueThreshold: 16 * float64(rc.MaxBatchedTokens)}
	if cfg.Router.Policy == "kv_router" {
		rcfg.Policy = router.KV
		rcfg.Temperature = cfg.Router.Temperature
		switch pool {
		case engine.PoolDecode:
			rcfg.TrackDecodeBlocks = true
		case engine.PoolPrefill:
			rcfg.TrackPrefill, rcfg.UseEvents = true, true
			rcfg.OverlapScoreCredit, rcfg.PrefillLoadScale = cfg.Router.OverlapScoreCredit, cfg.Router.PrefillLoadScale
		default:
			rcfg.TrackPrefill, rcfg.UseEvents, rcfg.TrackDecodeBlocks, rcfg.AssumeKVReuse = true, true, true, true
			rcfg.OverlapScoreCredit, rcfg.PrefillLoadScale = cfg.Router.OverlapScoreCredit, cfg.Router.PrefillLoadScale
		}
		if cfg.Router.PrefillLoadModel == "aic" && pool != engine.PoolDecode {
			t := rc.Timing
			rcfg.ExpectedPrefillMs = func(L, prefix int) float64 { return t.PrefillMs(1, L, prefix) }
		}
		rc.WantEvents = rcfg.UseEvents
		pp.Rank.WantEvents = rc.WantEvents
	}
	pp.Router = rcfg
	return pp, nil
}

// resolveKVFraction resolves a kv_capacity_fraction load against the KV capacity of the
// lowered decode pool (disaggregated) or aggregated pool: blocks per rank × block size ×
// attention-DP ranks × replicas (spec.Traffic.ResolveKVCapacityFraction), so the rest of the
// run sees the concurrency load it stands for.
func resolveKVFraction(cfg *spec.Config, plan *replay.Plan) error {
	if cfg.Traffic.Load.Type != spec.LoadKVCapacityFraction {
		return nil
	}
	role, pool := "aggregated", plan.Agg
	if plan.Disaggregated {
		role, pool = "decode", plan.Decode
	}
	tokens := int64(pool.Rank.NumBlocks) * int64(pool.Rank.BlockSize) * int64(max(pool.DP, 1)) * int64(max(pool.Replicas, 1))
	if err := cfg.Traffic.ResolveKVCapacityFraction(role, tokens); err != nil {
		return err
	}
	return nil
}
