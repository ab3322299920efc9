package spec

import (
	"fmt"
	"math"
)

// Planner policies and targets.
const (
	PlannerDisabled = "disabled"
	PlannerEnabled  = "enabled"
	TargetSLA       = "sla"
)

// plannerShape is the keys of the planner section.
var plannerShape = shape{keys: []string{
	"policy", "target", "enable_throughput_scaling", "enable_load_scaling",
	"throughput_adjustment_interval_seconds", "load_adjustment_interval_seconds",
	"max_num_fpm_samples", "fpm_sample_bucket_size", "load_scaling_down_sensitivity",
	"load_min_observations", "load_predictor", "load_predictor_log1p", "prophet_window_size",
	"kalman_q_level", "kalman_q_trend", "kalman_r", "kalman_min_points",
	"max_num_gpus", "min_num_gpus", "min_workers", "prefill_min_workers", "decode_min_workers",
}}

// DefaultPlanner is the planner when the section is omitted (the older AISimulate defaults:
// throughput scaling on, load scaling off).
func DefaultPlanner() Planner {
	// Decoding an absent section gives every field its table default.
	p, _ := decodePlannerFields(&object{d: &decoder{}, path: "planner", m: map[string]any{}})
	return p
}

// decodePlanner decodes the planner section (the dynamo.planner adapter) and its rules.
func decodePlanner(d *decoder, v any, present bool, cfg *Config) Planner {
	if !present {
		return DefaultPlanner()
	}
	o := d.mapping("planner", v, plannerShape)
	p, ok := decodePlannerFields(o)
	if !ok || p.Policy != PlannerEnabled {
		return p
	}
	checkPlannerEnabled(d, o, &p, cfg)
	return p
}

// decodePlannerFields decodes the planner's fields and the rules among them; ok is false after
// an error.
func decodePlannerFields(o *object) (p Planner, ok bool) {
	d := o.d
	p.Policy = o.enumField(&fieldPlannerPolicy)
	p.Target = o.enumField(&fieldPlannerTarget)
	p.EnableThroughputScaling = o.boolField(&fieldEnableThroughputScaling)
	p.EnableLoadScaling = o.boolField(&fieldEnableLoadScaling)
	p.ThroughputAdjustmentIntervalSeconds = int(o.intField(&fieldThroughputAdjustmentInterval))
	p.LoadAdjustmentIntervalSeconds = int(o.intField(&fieldLoadAdjustmentInterval))
	p.MaxNumFPMSamples = int(o.intField(&fieldMaxNumFPMSamples))
	p.FPMSampleBucketSize = int(o.intField(&fieldFPMSampleBucketSize))
	if d.ok() && !isPerfectSquare(p.FPMSampleBucketSize) {
		d.failf(o.p("fpm_sample_bucket_size"), "must be a perfect square (1, 4, 9, 16, 25, …), got %d", p.FPMSampleBucketSize)
	}
	p.LoadScalingDownSensitivity = int(o.intField(&fieldLoadScalingDownSensitivity))
	p.LoadMinObservations = int(o.intField(&fieldLoadMinObservations))
	p.LoadPredictor = o.enumField(&fieldLoadPredictor)
	p.LoadPredictorLog1p = o.boolField(&fieldLoadPredictorLog1p)
	p.ProphetWindowSize = int(o.intField(&fieldProphetWindowSize))
	p.KalmanQLevel = o.floatField(&fieldKalmanQLevel)
	p.KalmanQTrend = o.floatField(&fieldKalmanQTrend)
	p.KalmanR = o.floatField(&fieldKalmanR)
	p.KalmanMinPoints = int(o.intField(&fieldKalmanMinPoints))
	p.MaxNumGPUs = int(o.intField(&fieldMaxNumGPUs))
	if d.ok() && p.MaxNumGPUs == 0 {
		d.failf(o.p("max_num_gpus"), "must be a positive GPU count or -1 (unlimited), got 0")
	}
	p.MinNumGPUs = int(o.intField(&fieldMinNumGPUs))
	if d.ok() && p.MinNumGPUs == 0 {
		d.failf(o.p("min_num_gpus"), "must be a positive GPU count or -1 (unset), got 0")
	}
	if d.ok() && p.MinNumGPUs > 0 && p.MaxNumGPUs > 0 && p.MinNumGPUs > p.MaxNumGPUs {
		d.failf(o.p("min_num_gpus"), "must not exceed max_num_gpus (%d), got %d", p.MaxNumGPUs, p.MinNumGPUs)
	}
	p.MinWorkers = int(o.intField(&fieldMinWorkers))
	p.PrefillMinWorkers = o.optIntField(&fieldPrefillMinWorkers)
	p.DecodeMinWorkers = o.optIntField(&fieldDecodeMinWorkers)
	return p, d.ok()
}

// checkPlannerEnabled applies the rules of an enabled planner that involve other sections.
func checkPlannerEnabled(d *decoder, o *object, p *Planner, cfg *Config) {
	src := cfg.Traffic.Source
	if f, _ := LookupTraceFormat(src.Format); src.Type == SourceTrace && f.Planner == PlannerOff {
		d.failf(o.p("policy"), "%s requires planner.policy=disabled", src.Format)
		return
	}
	if cfg.Traffic.Load.AgenticLanes != nil {
		d.failf(o.p("policy"), "traffic.load.agentic_lanes cannot be combined with the planner; remove agentic_lanes or set planner.policy: disabled")
		return
	}
	if !p.EnableThroughputScaling && !p.EnableLoadScaling {
		d.failf(o.p("policy"), "planner.policy=enabled requires at least one scaling mode; set enable_throughput_scaling or enable_load_scaling to true")
		return
	}
	if p.EnableThroughputScaling {
		sla := cfg.Evaluation.SLA
		if p.Target != TargetSLA || sla == nil || sla.TTFTMs == nil || sla.ITLMs == nil {
			d.failf(o.p("enable_throughput_scaling"), "Planner throughput scaling requires target='sla' and evaluation.sla.ttft_ms/itl_ms; set them, or use enable_throughput_scaling: false with enable_load_scaling: true")
			return
		}
	}
	if p.EnableThroughputScaling && p.EnableLoadScaling && p.LoadAdjustmentIntervalSeconds >= p.ThroughputAdjustmentIntervalSeconds {
		d.failf(o.p("load_adjustment_interval_seconds"), "must be less than throughput_adjustment_interval_seconds (%d) when both scaling modes are enabled, got %d", p.ThroughputAdjustmentIntervalSeconds, p.LoadAdjustmentIntervalSeconds)
		return
	}
	checkGPUBudget(d, o, p, &cfg.Engine)
}

// checkGPUBudget rejects a max_num_gpus below what the minimum worker counts need; GPUs per
// worker are tensor × attention_data of the role.
func checkGPUBudget(d *decoder, o *object, p *Planner, e *Engine) {
	if p.MaxNumGPUs < 0 {
		return
	}
	perWorker := func(w *Worker) int {
		if w == nil {
			return 0
		}
		return w.Parallelism.Tensor * w.Parallelism.AttentionData
	}
	if e.Mode != ModeDisaggregated {
		g := perWorker(e.Aggregated)
		if need := g * p.MinWorkers; p.MaxNumGPUs < need {
			d.failf(o.p("max_num_gpus"), "must be at least %d (%d GPUs per aggregated worker × min_workers %d), got %d; raise max_num_gpus or lower min_workers", need, g, p.MinWorkers, p.MaxNumGPUs)
		}
		return
	}
	pmin, dmin := p.MinWorkers, p.MinWorkers
	if p.PrefillMinWorkers != nil {
		pmin = *p.PrefillMinWorkers
	}
	if p.DecodeMinWorkers != nil {
		dmin = *p.DecodeMinWorkers
	}
	gp, gd := perWorker(e.Prefill), perWorker(e.Decode)
	if need := gp*pmin + gd*dmin; p.MaxNumGPUs < need {
		d.failf(o.p("max_num_gpus"), "%s", fmt.Sprintf("must be at least %d (prefill %d GPUs × %d + decode %d GPUs × %d minimum workers), got %d; raise max_num_gpus or lower the minimum workers", need, gp, pmin, gd, dmin, p.MaxNumGPUs))
	}
}

func isPerfectSquare(n int) bool {
	if n < 0 {
		return false
	}
	r := int(math.Sqrt(float64(n)))
	for r > 0 && r*r > n {
		r--
	}
	for (r+1)*(r+1) <= n {
		r++
	}
	return r*r == n
}
