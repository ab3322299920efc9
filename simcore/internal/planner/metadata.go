package planner

import (
	"crypto/sha256"
	"encoding/hex"

	"aisimulate/simcore/canon"
)

// Metadata is the planner.metadata object of docs/semantics/outputs.md §5.
func (p *Planner) Metadata() map[string]any {
	c := p.s.Config
	status := "not_attempted"
	if c.EnableThroughputScaling {
		status = "installed"
	}
	samples := map[string]any{ComponentAgg: 0, ComponentDecode: 0, ComponentPrefill: 0}
	for _, rs := range p.roles {
		samples[rs.Component] = rs.bootstrap
	}
	predict := []any{}
	propose := []any{}
	if c.EnableThroughputScaling {
		predict = append(predict, "builtin_load_predict")
		propose = append(propose, "builtin_throughput_propose")
	}
	if c.EnableLoadScaling {
		propose = append(propose, "builtin_load_propose")
	}
	return map[string]any{
		"benchmark_granularity":              BenchmarkGranularity,
		"bootstrap":                          map[string]any{"samples": samples, "status": status},
		"builtin_plugin_ids":                 []any{"builtin_load_predict", "builtin_load_propose", "builtin_throughput_propose"},
		"configured_plugin_identities":       []any{},
		"details_captured":                   true,
		"mode":                               p.mode(),
		"pipeline_schema_version":            "planner-plugin-pipeline.v1",
		"planner_config_digest":              p.Digest(),
		"planner_config_identity_exclusions": []any{"live_dashboard_port", "report_interval_hours", "report_output_dir"},
		"plugin_pipeline":                    map[string]any{"predict": predict, "propose": propose},
	}
}

func (p *Planner) mode() string {
	if p.s.Disaggregated {
		return "disagg"
	}
	return "agg"
}

// IdentityConfig is the object hashed into planner_config_digest: every planner key after
// defaults (absent optionals as null) plus mode, ttft_ms and itl_ms (docs/semantics/outputs.md §5).
func (p *Planner) IdentityConfig() map[string]any {
	c := p.s.Config
	optInt := func(v *int) any {
		if v == nil {
			return nil
		}
		return *v
	}
	optF := func(v *float64) any {
		if v == nil {
			return nil
		}
		return *v
	}
	var minGPUs any
	if c.MinNumGPUs > 0 {
		minGPUs = c.MinNumGPUs
	}
	var ttft, itl any
	if p.s.SLA != nil {
		ttft, itl = optF(p.s.SLA.TTFTMs), optF(p.s.SLA.ITLMs)
	}
	return map[string]any{
		"policy":                                 c.Policy,
		"target":                                 c.Target,
		"enable_throughput_scaling":              c.EnableThroughputScaling,
		"enable_load_scaling":                    c.EnableLoadScaling,
		"throughput_adjustment_interval_seconds": c.ThroughputAdjustmentIntervalSeconds,
		"load_adjustment_interval_seconds":       c.LoadAdjustmentIntervalSeconds,
		"max_num_fpm_samples":                    c.MaxNumFPMSamples,
		"fpm_sample_bucket_size":                 c.FPMSampleBucketSize,
		"load_scaling_down_sensitivity":          c.LoadScalingDownSensitivity,
		"load_min_observations":                  c.LoadMinObservations,
		"load_predictor":                         c.LoadPredictor,
		"load_predictor_log1p":                   c.LoadPredictorLog1p,
		"prophet_window_size":                    c.ProphetWindowSize,
		"kalman_q_level":                         c.KalmanQLevel,
		"kalman_q_trend":                         c.KalmanQTrend,
		"kalman_r":                               c.KalmanR,
		"kalman_min_points":                      c.KalmanMinPoints,
		"max_num_gpus":                           c.MaxNumGPUs,
		"min_num_gpus":                           minGPUs,
		"min_workers":                            c.MinWorkers,
		"prefill_min_workers":                    optInt(c.PrefillMinWorkers),
		"decode_min_workers":                     optInt(c.DecodeMinWorkers),
		"mode":                                   p.mode(),
		"ttft_ms":                                ttft,
		"itl_ms":                                 itl,
	}
}

// Digest is planner_config_digest: lowercase hex SHA-256 of the compact canonical JSON of
// IdentityConfig.
func (p *Planner) Digest() string {
	b, err := canon.Compact(p.IdentityConfig())
	if err != nil {
		// Only non-finite kalman knobs could fail; validation rejects them.
		b = []byte(err.Error())
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
