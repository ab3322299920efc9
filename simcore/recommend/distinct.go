package recommend

import (
	"reflect"
	"sort"

	"aisimulate/simcore/canon"
)

// Deployment is one distinct deployment among ranked candidates: its best-ranked candidate,
// and the later candidates folded into it because they have the same deployment
// (DeploymentSummary) and exactly the same metrics, so that what sets them apart (Knobs)
// changed nothing in the simulation (docs/recommend.md, "The answer at a terminal").
type Deployment struct {
	// Rank is the 1-based rank of Best among the candidates Distinct was given.
	Rank int
	Best *Candidate
	// Summary is DeploymentSummary of Best.
	Summary string
	// Alike are the folded candidates, in rank order.
	Alike []*Candidate
	// Knobs are the search-space paths on which some folded candidate differs from Best,
	// sorted.
	Knobs []string
}

// Distinct folds ranked candidates (best first) into distinct deployments, in the order of
// their best candidates. A candidate folds into an earlier deployment when its deployment
// summary and its metrics (the summary without the wall-clock keys, compared as canonical
// JSON) equal that deployment's best candidate's.
func (s *Space) Distinct(ranked []*Candidate) []Deployment {
	var out []Deployment
	index := map[[2]string]int{}
	for i, c := range ranked {
		key := [2]string{DeploymentSummary(c.Tree), metricsKey(c)}
		if j, ok := index[key]; ok {
			d := &out[j]
			d.Alike = append(d.Alike, c)
			d.Knobs = mergeKnobs(d.Knobs, s.differingKnobs(d.Best, c))
			continue
		}
		index[key] = len(out)
		out = append(out, Deployment{Rank: i + 1, Best: c, Summary: key[0]})
	}
	return out
}

// metricsKey is the canonical JSON of a candidate's metrics (recommendation.json's
// `metrics`); "" when it was not simulated.
func metricsKey(c *Candidate) string {
	m := candidateMetrics(c)
	if m == nil {
		return ""
	}
	b, err := canon.Compact(m)
	if err != nil {
		return c.Key // not comparable: never folds
	}
	return string(b)
}

// differingKnobs are the search-space paths whose values differ between a and b.
func (s *Space) differingKnobs(a, b *Candidate) []string {
	ca, cb := s.ConfigOf(a.Point), s.ConfigOf(b.Point)
	var out []string
	for k, v := range ca {
		if w, ok := cb[k]; !ok || !reflect.DeepEqual(v, w) {
			out = append(out, k)
		}
	}
	for k := range cb {
		if _, ok := ca[k]; !ok {
			out = append(out, k)
		}
	}
	return out
}

// mergeKnobs is the sorted union of two path lists.
func mergeKnobs(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range append(append([]string(nil), a...), b...) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
