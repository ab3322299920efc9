package deploy

import (
	"aisimulate/simcore/canon"
	"aisimulate/simcore/spec"
)

// The thresholds of the planner's load target as the simulation applies them
// (simcore/internal/planner, thresholdChecks; docs/semantics/simulation.md §13.6): prefill
// scales up at one queued token and down at none, decode up above 90 % KV use and down
// below 70 %. Dynamo's load target takes them as settings.
const (
	loadPrefillUpTokens   = 1
	loadPrefillDownTokens = 0
	loadDecodeUpKVRate    = 90
	loadDecodeDownKVRate  = 70
)

// plannerConfig is the JSON of `python3 -m dynamo.planner --config`: the simulated planner's
// settings under the names of Dynamo's PlannerConfig (docs/artifacts.md, "The manifest").
func (d *deployment) plannerConfig() string {
	p := d.cfg.Planner
	mode := "agg"
	if d.cfg.Engine.Mode == spec.ModeDisaggregated {
		mode = "disagg"
	}
	sweep := "none"
	if p.EnableThroughputScaling {
		// Throughput scaling needs the engines profiled before deployment.
		sweep = "rapid"
	}
	c := map[string]any{
		"environment":                            "kubernetes",
		"backend":                                d.backend,
		"mode":                                   mode,
		"optimization_target":                    p.Target,
		"pre_deployment_sweeping_mode":           sweep,
		"enable_throughput_scaling":              p.EnableThroughputScaling,
		"enable_load_scaling":                    p.EnableLoadScaling,
		"throughput_adjustment_interval_seconds": p.ThroughputAdjustmentIntervalSeconds,
		"load_adjustment_interval_seconds":       p.LoadAdjustmentIntervalSeconds,
		"max_num_fpm_samples":                    p.MaxNumFPMSamples,
		"fpm_sample_bucket_size":                 p.FPMSampleBucketSize,
		"load_scaling_down_sensitivity":          p.LoadScalingDownSensitivity,
		"load_min_observations":                  p.LoadMinObservations,
		"load_predictor":                         p.LoadPredictor,
		"load_predictor_log1p":                   p.LoadPredictorLog1p,
		"prophet_window_size":                    p.ProphetWindowSize,
		"kalman_q_level":                         p.KalmanQLevel,
		"kalman_q_trend":                         p.KalmanQTrend,
		"kalman_r":                               p.KalmanR,
		"kalman_min_points":                      p.KalmanMinPoints,
		"min_endpoint":                           p.MinWorkers,
	}
	if p.MaxNumGPUs >= 0 {
		c["max_gpu_budget"] = p.MaxNumGPUs
	}
	if p.MinNumGPUs >= 0 {
		c["min_gpu_budget"] = p.MinNumGPUs
	}
	for _, r := range d.roles {
		if r.name == spec.RolePrefill {
			c["prefill_engine_num_gpu"] = r.gpus
		} else {
			c["decode_engine_num_gpu"] = r.gpus
		}
	}
	if sla := d.cfg.Evaluation.SLA; sla != nil {
		if sla.TTFTMs != nil {
			c["ttft_ms"] = *sla.TTFTMs
		}
		if sla.ITLMs != nil {
			c["itl_ms"] = *sla.ITLMs
		}
	}
	if p.Target == "load" {
		if mode == "disagg" {
			c["prefill_scale_up_queue_tokens"] = loadPrefillUpTokens
			c["prefill_scale_down_queue_tokens"] = loadPrefillDownTokens
		}
		c["decode_scale_up_kv_rate"] = loadDecodeUpKVRate
		c["decode_scale_down_kv_rate"] = loadDecodeDownKVRate
	}
	b, err := canon.Compact(c)
	if err != nil {
		panic("deploy: " + err.Error())
	}
	return string(b)
}
