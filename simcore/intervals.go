package simcore

import (
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
	"aisimulate/simcore/uncertainty"
)

// intervals is prediction.json's `intervals` object for a prediction of the default timing
// model: the 80 % interval of each mean from the model's held-out error in the prediction's
// group (docs/uncertainty.md), or, when a calibration profile applies (cal non-nil with
// bands), from the profile's residuals under the inflation rule (source "calibration",
// docs/calibration.md). It is nil — `"intervals": null` — when any role's timing is fixed or
// polynomial: those pass times are the user's own, and no measurement says how far they are
// off.
func intervals(cfg *spec.Config, summary map[string]any, cal *calibrated) map[string]any {
	e := cfg.Engine
	for _, w := range []*spec.Worker{e.Aggregated, e.Prefill, e.Decode} {
		if w != nil && w.Timing.Type != spec.TimingDefault {
			return nil
		}
	}
	if cal != nil && cal.ok {
		return uncertainty.Object(summary, cal.bands, report.IntervalSourceCalibration, cal.group)
	}
	g := uncertainty.Group{Backend: e.Backend, Mode: uncertainty.ModeAgg, Regime: uncertainty.RegimeOf(loadInFlight(cfg, summary))}
	if e.Mode == spec.ModeDisaggregated {
		g.Mode = uncertainty.ModeDisagg
	}
	b, ok := uncertainty.Default(g)
	if !ok {
		return nil
	}
	return uncertainty.Object(summary, b, report.IntervalSourceDefault, g.String())
}

// loadInFlight is the load that picks the regime, in the measured runs' terms: the
// configured concurrency of a closed loop, otherwise the mean number of requests in flight
// by Little's law (request throughput × mean E2E latency); per aggregated replica as
// configured, per deployment when disaggregated (the measured runs' concurrency is per
// deployment, and their worker counts are often unrecorded).
func loadInFlight(cfg *spec.Config, summary map[string]any) float64 {
	var load float64
	if l := cfg.Traffic.Load; l.Type == spec.LoadConcurrency {
		load = float64(l.Concurrency)
	} else {
		rps, _ := summary[report.KeyRequestThroughputRPS].(float64)
		e2e, _ := summary[report.E2ELatency.Key(report.Mean)].(float64)
		load = rps * e2e / 1000
	}
	if a := cfg.Engine.Aggregated; a != nil && a.Parallelism.Replicas > 1 {
		load /= float64(a.Parallelism.Replicas)
	}
	return load
}
