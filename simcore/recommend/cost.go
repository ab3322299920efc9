package recommend

import (
	"math"

	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// RoleHardware names the systems of a candidate's roles: Decode is the aggregated or the
// decode role's, Prefill the prefill role's ("" when aggregated).
type RoleHardware struct{ Prefill, Decode string }

// HardwareOf reads a concrete configuration's role systems (a role's own hardware, else
// engine.hardware).
func HardwareOf(tree map[string]any) RoleHardware {
	get := func(role string) string {
		if v, ok := spec.GetPath(tree, spec.WorkerPath(role, "hardware")); ok {
			if s, isStr := v.(string); isStr {
				return s
			}
		}
		v, _ := spec.GetPath(tree, spec.PathHardware)
		s, _ := v.(string)
		return s
	}
	if m, _ := spec.GetPath(tree, "engine.mode"); m == spec.ModeDisaggregated {
		return RoleHardware{Prefill: get(spec.RolePrefill), Decode: get(spec.RoleDecode)}
	}
	return RoleHardware{Decode: get(spec.RoleAggregated)}
}

// Cost is what a run costs at optimization.gpu_hour_cost (docs/recommend.md, "Hardware and
// cost"): USD = (prefill_worker_seconds × prefill_gpus_per_worker × price(prefill system) +
// decode_worker_seconds × decode_gpus_per_worker × price(decode or aggregated system)) / 3600,
// the summary's GPU-hours priced per role (docs/semantics/outputs.md §3.2).
type Cost struct {
	// USDPerHour is USD over the run's duration (duration_ms / 3.6e6 hours).
	USDPerHour float64
	// USDPerMTok is USD per million output tokens (total_output_tokens); USDPerGoodMTok per
	// million output tokens of requests that met the SLA (goodput_output_throughput_tok_s ×
	// duration); +Inf when there are none.
	USDPerMTok, USDPerGoodMTok float64
}

// CostOf prices a summary of a candidate on systems hw; ok is false without
// optimization.gpu_hour_cost.
func CostOf(rec *spec.Recommendation, hw RoleHardware, summary map[string]any) (c Cost, ok bool) {
	prices := rec.Optimization.GPUHourCost
	if prices == nil {
		return Cost{}, false
	}
	get := func(k string) float64 { v, _ := summaryNumber(summary, k); return v }
	usd := (get(report.KeyPrefillWorkerSeconds)*get(report.KeyPrefillGPUsPerWorker)*prices[hw.Prefill] +
		get(report.KeyDecodeWorkerSeconds)*get(report.KeyDecodeGPUsPerWorker)*prices[hw.Decode]) / 3600
	durationMs := get(report.KeyDurationMs)
	c.USDPerHour = math.NaN()
	if durationMs > 0 {
		c.USDPerHour = usd / (durationMs / 3.6e6)
	}
	perMillion := func(tokens float64) float64 {
		if !(tokens > 0) {
			return math.Inf(1)
		}
		return usd / tokens * 1e6
	}
	c.USDPerMTok = perMillion(get(report.KeyTotalOutputTokens))
	c.USDPerGoodMTok = perMillion(get(report.KeyGoodputOutputThroughputTokS) * durationMs / 1000)
	return c, true
}

// costJSON is a candidate's `cost` in recommendation.json.
func costJSON(c *Cost) any {
	if c == nil {
		return nil
	}
	return map[string]any{"usd_per_hour": finiteOrNil(c.USDPerHour), "usd_per_million_output_tokens": finiteOrNil(c.USDPerMTok),
		"usd_per_million_good_output_tokens": finiteOrNil(c.USDPerGoodMTok)}
}
