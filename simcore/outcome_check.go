package simcore

import (
	"fmt"
	"math"

	"aisimulate/simcore/recommend"
	"aisimulate/simcore/report"
)

// CheckOutcome checks that a decoded outcome could have come from Evaluate: the shape of a
// summary, the ranges its values can take and its intervals' order (docs/recommend.md, "Checking remote workers").
// Every outcome this build computes passes; one that fails came from an evaluator that did
// not run this build's simulation faithfully.
func CheckOutcome(o recommend.Outcome) error {
	if o.Status != "" {
		return nil // DecodeOutcome checked the status; a failed evaluation carries only its reason
	}
	s := o.Summary
	for k, v := range s {
		switch x := v.(type) {
		case nil:
		case int:
			if x < 0 {
				return fmt.Errorf("summary.%s is %d, below 0", k, x)
			}
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
				return fmt.Errorf("summary.%s is %v, outside [0, +inf)", k, x)
			}
		default:
			return fmt.Errorf("summary.%s is not a number", k)
		}
	}
	for _, k := range []string{report.KeyNumRequests, report.KeyCompletedRequests, report.KeyDurationMs, report.KeyGPUHours} {
		if _, ok := report.Number(s[k]); !ok {
			return fmt.Errorf("summary.%s is missing", k)
		}
	}
	// Counts nest: goodput requests are completed requests, completed requests are requests.
	if err := notAbove(s, report.KeyGoodputCompletedRequests, report.KeyCompletedRequests); err != nil {
		return err
	}
	if err := notAbove(s, report.KeyCompletedRequests, report.KeyNumRequests); err != nil {
		return err
	}
	// Goodput is the part of the throughput that met the SLA (docs/semantics/outputs.md §3.2).
	if err := notAbove(s, report.KeyGoodputOutputThroughputTokS, report.KeyOutputThroughputTokS); err != nil {
		return err
	}
	if err := notAbove(s, report.KeyGoodputRequestThroughputRPS, report.KeyRequestThroughputRPS); err != nil {
		return err
	}
	for _, k := range []string{report.KeyPrefixCacheReusedRatio, report.KeyFirstAdmissionPrefixCacheReusedRatio} {
		if r, ok := report.Number(s[k]); ok && r > 1 {
			return fmt.Errorf("summary.%s is %v, above 1", k, r)
		}
	}
	// An 80 % interval is v·e^P10 … v·e^P90 of a value v ≥ 0 with P10 ≤ P90
	// (docs/uncertainty.md): two finite numbers, 0 ≤ p10 ≤ p90.
	for _, k := range report.IntervalKeys {
		if _, ok := o.Intervals[k]; !ok {
			continue
		}
		p10, p90, ok := report.IntervalOf(o.Intervals, k)
		if !ok || math.IsInf(p90, 0) || math.IsNaN(p10) || math.IsNaN(p90) || p10 < 0 || p10 > p90 {
			return fmt.Errorf("intervals.%s is not an interval 0 <= p10 <= p90", k)
		}
	}
	// A distribution's statistics lie between its minimum and maximum.
	for _, d := range []report.Distribution{report.TTFT, report.TTST, report.TPOT, report.ITL, report.E2ELatency,
		report.OutputTokenThroughputPerUser, report.TrajectoryE2ELatency} {
		lo, okLo := report.Number(s[d.Key(report.Min)])
		hi, okHi := report.Number(s[d.Key(report.Max)])
		if !okLo || !okHi {
			continue
		}
		for _, st := range []report.Statistic{report.Mean, report.Median, report.P75, report.P90, report.P95, report.P99} {
			v, ok := report.Number(s[d.Key(st)])
			if ok && (v < lo-outcomeSlack(lo) || v > hi+outcomeSlack(hi)) {
				return fmt.Errorf("summary.%s is %v, outside [%s, %s] = [%v, %v]", d.Key(st), v, d.Key(report.Min), d.Key(report.Max), lo, hi)
			}
		}
	}
	return nil
}

// notAbove checks summary[small] ≤ summary[large] when both are present (with the rounding
// slack of outcomeSlack).
func notAbove(s map[string]any, small, large string) error {
	a, okA := report.Number(s[small])
	b, okB := report.Number(s[large])
	if okA && okB && a > b+outcomeSlack(b) {
		return fmt.Errorf("summary.%s is %v, above summary.%s = %v", small, a, large, b)
	}
	return nil
}

// outcomeSlack is the rounding a mean or a rate may carry past a bound: a few units in the
// last place of a float64 (2^-52 ≈ 2.2e-16 relative), taken as 1e-9 relative to stay clear
// of summed errors.
func outcomeSlack(x float64) float64 { return math.Abs(x) * 1e-9 }
