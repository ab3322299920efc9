package recommend

import (
	"math"
	"strconv"
	"strings"

	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// objectiveBand names, per objective, the interval key whose band the objective moves with
// and whether it moves inversely (docs/uncertainty.md, "Recommend"): throughputs and goodputs
// scale with the output throughput (per GPU the divisor is exact), the per-user rate with
// 1 / TPOT, the latency targets with their own means. min_gpus is exact and has none.
var objectiveBand = map[string]struct {
	key     string
	inverse bool
}{
	spec.TargetThroughput:        {report.KeyOutputThroughputTokS, false},
	spec.TargetThroughputPerGPU:  {report.KeyOutputThroughputTokS, false},
	spec.TargetGoodput:           {report.KeyOutputThroughputTokS, false},
	spec.TargetGoodputPerGPU:     {report.KeyOutputThroughputTokS, false},
	spec.TargetThroughputPerUser: {report.TPOT.Key(report.Mean), true},
	spec.TargetTTFT:              {report.TTFT.Key(report.Mean), false},
	spec.TargetE2ELatency:        {report.E2ELatency.Key(report.Mean), false},
}

// ObjectiveInterval is the 80 % interval of a simulated candidate's objective i: the
// objective scaled by the ratio of its metric's interval to the metric's predicted value
// (inverted for the per-user rate). ok is false for an objective without a band, a candidate
// without intervals, or a zero or non-finite value (a goodput of 0 — no request met the SLA —
// is not a measurement a band can scale: how many would meet it is not in the band).
func ObjectiveInterval(c *Candidate, names []string, i int) (lo, hi float64, ok bool) {
	if c == nil || i >= len(c.Objectives) || i >= len(names) {
		return 0, 0, false
	}
	ob, has := objectiveBand[names[i]]
	v := c.Objectives[i]
	mean := SummaryNumber(c.Summary, ob.key)
	p10, p90, found := report.IntervalOf(c.Intervals, ob.key)
	if !has || !found || !(mean > 0) || v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, 0, false
	}
	if ob.inverse {
		return v * mean / p90, v * mean / p10, true
	}
	return v * p10 / mean, v * p90 / mean, true
}

// WithinError lists the ranked candidates after the first whose interval of the first
// objective overlaps the first candidate's: their order against the first is within the
// model's error (docs/uncertainty.md, "Recommend"). Empty for a Pareto front (it has no
// order), an objective without a band, or when nothing overlaps. The bands of similar
// deployments err alike, so an overlap says the order is not proven, not that it is wrong.
func WithinError(rows []Row, target string, names []string) []*Candidate {
	if target == spec.TargetPareto || len(rows) < 2 {
		return nil
	}
	lo0, hi0, ok := ObjectiveInterval(rows[0].Candidate, names, 0)
	if !ok {
		return nil
	}
	var out []*Candidate
	for _, r := range rows[1:] {
		if lo, hi, ok := ObjectiveInterval(r.Candidate, names, 0); ok && lo <= hi0 && lo0 <= hi {
			out = append(out, r.Candidate)
		}
	}
	return out
}

// WithinErrorText is the printed answer's sentence about WithinError, "" when nothing
// overlaps: which ranks are within the model's error of rank 1.
func WithinErrorText(rows []Row, within []*Candidate, objective string) string {
	if len(within) == 0 {
		return ""
	}
	in := map[*Candidate]bool{}
	for _, c := range within {
		in[c] = true
	}
	var ranks []string
	for _, r := range rows {
		if in[r.Candidate] {
			ranks = append(ranks, strconv.Itoa(r.Rank))
		}
	}
	which := "of rank " + ranks[0] + " overlaps"
	if len(ranks) > 1 {
		which = "of ranks " + strings.Join(ranks, ", ") + " overlap"
	}
	return "Within the model's error: the 80 % interval of " + objective + " " + which +
		" rank 1's, so their order against rank 1 is not proven (docs/uncertainty.md)"
}

// calibratedCandidates counts the evaluated candidates whose intervals come from a
// calibration profile (the candidates a profile applied to, docs/recommend.md,
// "Calibration").
func (s *Search) calibratedCandidates() int {
	n := 0
	for _, c := range s.cands {
		if c.Intervals != nil && c.Intervals[report.KeyIntervalSource] == report.IntervalSourceCalibration {
			n++
		}
	}
	return n
}
