package recommend

import (
	"math"
	"strconv"

	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// Thresholds of the search's warnings (docs/recommend.md, "How far the search went").
const (
	// SmallCoverage: a search that simulated less than this share of a finite space without
	// screening it first says its answer may not be the space's best.
	SmallCoverage = 0.05
	// LateQuarter: a best first reached after this share of the trials says the search had
	// not settled.
	LateQuarter = 0.75
)

// SearchStats is how far a finished search went: what the answer's reader needs to judge
// whether more trials could change it.
type SearchStats struct {
	// Algorithm is optimizer.algorithm.
	Algorithm string
	// Trials is the number of trials made, Simulated the distinct candidates evaluated.
	Trials, Simulated int
	// SpacePoints is the size of the space (Space.Size; +Inf with a continuous range).
	SpacePoints float64
	// BestTrial is the 1-based trial that first proposed the best-ranked candidate (0 when
	// none is feasible).
	BestTrial int
	// Warnings say when the budget covered a small part of the space, or when the best was
	// still improving in the last quarter of the trials.
	Warnings []string
}

// Stats is the search's SearchStats.
func (s *Search) Stats() SearchStats {
	st := SearchStats{Algorithm: s.opt.Algorithm, Trials: len(s.trials), SpacePoints: s.space.Size()}
	for _, c := range s.cands {
		if c.Summary != nil || c.Status != StatusInfeasible || c.ReasonCategory != "gpus" {
			st.Simulated++
		}
	}
	if ranked := Rank(s.cands); len(ranked) > 0 {
		st.BestTrial = ranked[0].Trials[0] + 1
	}
	if !screens(s.opt) && !math.IsInf(st.SpacePoints, 1) && float64(st.Simulated) < SmallCoverage*st.SpacePoints {
		st.Warnings = append(st.Warnings, "the search simulated "+strconv.Itoa(st.Simulated)+" of the space's "+
			formatPoints(st.SpacePoints)+" points ("+percentOf(float64(st.Simulated), st.SpacePoints)+
			"): another budget or seed may find a better deployment; raise optimizer.max_trials or use optimizer.algorithm: screened")
	}
	if st.BestTrial > 0 && float64(st.BestTrial) > LateQuarter*float64(st.Trials) {
		st.Warnings = append(st.Warnings, "the best candidate was found at trial "+strconv.Itoa(st.BestTrial)+" of "+
			strconv.Itoa(st.Trials)+", in the last quarter: the search was still improving; raise optimizer.max_trials")
	}
	return st
}

// formatPoints prints a space size: a whole number, or "unbounded" for a continuous space.
func formatPoints(n float64) string {
	if math.IsInf(n, 1) {
		return "unbounded"
	}
	return report.FormatCount(n)
}

// percentOf is part/whole as a percentage with two significant digits.
func percentOf(part, whole float64) string {
	return strconv.FormatFloat(100*part/whole, 'g', 2, 64) + " %"
}

// screens reports whether the optimiser prices the whole space before simulating.
func screens(opt spec.Optimizer) bool { return opt.Algorithm == spec.AlgorithmScreened }
