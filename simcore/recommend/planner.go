package recommend

import "aisimulate/simcore/spec"

// addPlannerParams adds one categorical parameter per searched planner sub-item
// (docs/recommend.md, "Planner search"): each value writes all of the sub-item's knobs. The
// scaling policy is searched where the planner is enabled; FPM sampling and the load
// sensitivity only where the chosen scaling policy enables throughput or load scaling. Each
// is a preset branch: coverage gives each of its entries a trial when the budget allows.
func (s *Space) addPlannerParams() {
	ps := s.Rec.Planner
	if ps == nil {
		return
	}
	for _, g := range ps.Groups {
		p := Param{Name: "planner." + g.Item, when: -1, Branch: true}
		for _, k := range g.Keys {
			p.Paths = append(p.Paths, "planner."+k)
		}
		for _, e := range g.Entries {
			p.Values = append(p.Values, e.Values)
			p.Labels = append(p.Labels, e.Label)
			p.Shows = append(p.Shows, e.Show)
		}
		when := ps.PolicyWhen
		if g.Needs != "" {
			when = &spec.Condition{Path: "planner." + spec.PlannerScalingPolicy}
			for _, e := range ps.Groups[0].Entries {
				if g.Needs == spec.PlannerNeedsThroughput && e.Throughput() || g.Needs == spec.PlannerNeedsLoad && e.Load() {
					when.Values = append(when.Values, e.Label)
				}
			}
		}
		if s.resolveWhen(&p, when) {
			s.Params = append(s.Params, p)
		}
	}
}
