package recommend

import (
	"aisimulate/simcore/report"
	"math"
	"sort"

	"aisimulate/simcore/spec"
)

// Candidate statuses (docs/recommend.md, "Scoring and ranking").
const (
	StatusFeasible    = "feasible"
	StatusInfeasible  = "infeasible"
	StatusUnsupported = "unsupported"
	StatusTimedOut    = "timed_out"
	StatusFailed      = "failed"
)

// summaryNumber reads a summary number (float64 or an integer type); ok is false when absent.
func summaryNumber(summary map[string]any, key string) (float64, bool) {
	return report.Number(summary[key])
}

// avgGPUs is the time-averaged provisioned GPUs: gpu_hours / (duration_ms / 3.6e6)
// (docs/recommend.md, "Scoring and ranking"); with a Planner it differs from used_gpus.
func avgGPUs(summary map[string]any) float64 {
	h, _ := summaryNumber(summary, report.KeyGPUHours)
	d, _ := summaryNumber(summary, report.KeyDurationMs)
	if d <= 0 {
		return math.NaN()
	}
	return h / (d / 3.6e6)
}

// ObjectiveValue is one named objective (a target name) of a summary, as scoring computes it
// (docs/recommend.md, "Scoring and ranking"); targets also use it to place a candidate on
// other objective axes, such as the browser's Pareto chart:
// throughput = output_throughput_tok_s, *_per_gpu divide by avgGPUs, throughput_per_user =
// mean_output_token_throughput_per_user, goodput = goodput_output_throughput_tok_s, ttft =
// mean_ttft_ms (+Inf without TTFT samples), e2e_latency = mean_e2e_latency_ms, min_gpus =
// used_gpus. NaN when the summary lacks the metric.
func ObjectiveValue(name string, summary map[string]any, usedGPUs int) float64 {
	get := func(k string) float64 { return SummaryNumber(summary, k) }
	switch name {
	case spec.TargetThroughput:
		return get(report.KeyOutputThroughputTokS)
	case spec.TargetThroughputPerGPU:
		return get(report.KeyOutputThroughputTokS) / avgGPUs(summary)
	case spec.TargetThroughputPerUser:
		return get(report.OutputTokenThroughputPerUser.Key(report.Mean))
	case spec.TargetGoodput:
		return get(report.KeyGoodputOutputThroughputTokS)
	case spec.TargetGoodputPerGPU:
		return get(report.KeyGoodputOutputThroughputTokS) / avgGPUs(summary)
	case spec.TargetTTFT:
		if n, _ := summaryNumber(summary, report.KeyNumTTFTSamples); n <= 0 {
			return math.Inf(1)
		}
		return get(report.TTFT.Key(report.Mean))
	case spec.TargetE2ELatency:
		return get(report.E2ELatency.Key(report.Mean))
	case spec.TargetMinGPUs:
		return float64(usedGPUs)
	}
	return math.NaN()
}

// minimised are the targets whose score is −metric.
func minimised(target string) bool {
	switch target {
	case spec.TargetTTFT, spec.TargetE2ELatency, spec.TargetMinGPUs, spec.TargetCost, spec.TargetGoodCost:
		return true
	}
	return false
}

// objective is ObjectiveValue with the cost targets, which need the candidate's prices.
func objective(name string, summary map[string]any, usedGPUs int, cost *Cost) float64 {
	switch name {
	case spec.TargetCost, spec.TargetGoodCost:
		if cost == nil {
			return math.NaN()
		}
		if name == spec.TargetCost {
			return cost.USDPerMTok
		}
		return cost.USDPerGoodMTok
	}
	return ObjectiveValue(name, summary, usedGPUs)
}

// scored is what scoring makes of one evaluated summary.
type scored struct {
	status, category, reason string
	score                    float64
	objectives               []float64
	// cost is the summary priced at optimization.gpu_hour_cost (nil without prices).
	cost *Cost
}

// scoreSummary scores a candidate's summary on systems hw: objectives, score (metric, or
// −metric for minimised targets; pareto: the first objective), cost, and feasibility under
// strict_sla and min_goodput_rps.
func scoreSummary(rec *spec.Recommendation, summary map[string]any, usedGPUs int, hw RoleHardware) scored {
	op := rec.Optimization
	names := rec.Objectives()
	sc := scored{status: StatusFeasible}
	if c, ok := CostOf(rec, hw, summary); ok {
		sc.cost = &c
	}
	for _, n := range names {
		sc.objectives = append(sc.objectives, objective(n, summary, usedGPUs, sc.cost))
	}
	sc.score = sc.objectives[0]
	if minimised(op.Target) {
		sc.score = -sc.score
	}
	if math.IsNaN(sc.score) {
		sc.status, sc.category, sc.reason = StatusFailed, "metrics", "the prediction has no value for the objective (no completed requests or zero duration)"
		return sc
	}
	if op.StrictSLA && rec.SLA != nil {
		checks := []struct {
			bound *float64
			key   string
			name  string
		}{{rec.SLA.TTFTMs, report.TTFT.Key(report.Mean), "ttft_ms"}, {rec.SLA.ITLMs, report.TPOT.Key(report.Mean), "itl_ms"},
			{rec.SLA.E2EMs, report.E2ELatency.Key(report.Mean), "e2e_ms"}}
		for _, c := range checks {
			if c.bound == nil {
				continue
			}
			v, ok := summaryNumber(summary, c.key)
			if !ok {
				sc.status, sc.category, sc.reason = StatusInfeasible, "sla", c.key+" has no samples to check evaluation.sla."+c.name
				return sc
			}
			if v > *c.bound {
				sc.status, sc.category = StatusInfeasible, "sla"
				sc.reason = c.key + " " + fmtG(v) + " exceeds evaluation.sla." + c.name + " " + fmtG(*c.bound)
				return sc
			}
		}
	}
	if op.MinGoodputRPS != nil {
		v, _ := summaryNumber(summary, report.KeyGoodputRequestThroughputRPS)
		if v < *op.MinGoodputRPS {
			sc.status, sc.category = StatusInfeasible, "goodput"
			sc.reason = "goodput_request_throughput_rps " + fmtG(v) + " is below optimization.constraints.min_goodput_rps " + fmtG(*op.MinGoodputRPS)
		}
	}
	return sc
}

// rankLess is the ranking key (−score, used_gpus, canonical config JSON) ascending.
func rankLess(a, b *Candidate) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.UsedGPUs != b.UsedGPUs {
		return a.UsedGPUs < b.UsedGPUs
	}
	return a.Key < b.Key
}

// Rank orders the feasible candidates by the ranking key.
func Rank(cands []*Candidate) []*Candidate {
	var out []*Candidate
	for _, c := range cands {
		if c.Status == StatusFeasible {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return rankLess(out[i], out[j]) })
	return out
}

// dominates: a is at least as good on every objective and better on one (all maximised
// except the minimised targets, which only occur alone).
func dominates(a, b []float64) bool {
	better := false
	for i := range a {
		if a[i] < b[i] {
			return false
		}
		if a[i] > b[i] {
			better = true
		}
	}
	return better
}

// ParetoFront keeps the non-dominated feasible candidates, sorted by the last objective
// ascending, ties by the ranking key (docs/recommend.md, "Scoring and ranking").
func ParetoFront(cands []*Candidate) []*Candidate {
	ranked := Rank(cands)
	var front []*Candidate
	for _, c := range ranked {
		dominated := false
		for _, o := range ranked {
			if o != c && dominates(o.Objectives, c.Objectives) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, c)
		}
	}
	sort.SliceStable(front, func(i, j int) bool {
		a, b := front[i].Objectives, front[j].Objectives
		if a[len(a)-1] != b[len(b)-1] {
			return a[len(a)-1] < b[len(b)-1]
		}
		return rankLess(front[i], front[j])
	})
	return front
}
