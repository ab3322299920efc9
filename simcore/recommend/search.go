package recommend

import (
	"fmt"
	"math"
	"strconv"

	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// Block is the number of trials between two refits of the model-based optimiser: the
// proposals of trials [k·Block, (k+1)·Block) see the results of the trials before k·Block
// only, so the proposals never depend on how many candidates run at once; a round never
// crosses a block boundary (docs/recommend.md, "Rounds").
const Block = 16

// Candidate is one distinct concrete configuration the search proposed.
type Candidate struct {
	// ID is candidate-NNNNNN, numbered in order of first proposal from 1.
	ID string
	// Tree is the concrete predict configuration; Key its canonical JSON.
	Tree map[string]any
	Key  string
	// Point is the search-space position of its first proposal.
	Point Point
	// Trials are the 0-based trial indices that proposed it (the first evaluated it, the
	// others were cache hits).
	Trials   []int
	UsedGPUs int
	// Status, ReasonCategory and Reason say how the evaluation ended.
	Status         string
	ReasonCategory string
	Reason         string
	// Summary is the prediction's summary (nil when it was not simulated).
	Summary map[string]any
	// Intervals is the prediction's `intervals` object (nil when it has none).
	Intervals map[string]any
	// Score and Objectives (aligned with spec.Recommendation.Objectives) of a simulated candidate.
	Score      float64
	Objectives []float64
	// Cost is the simulated summary priced at optimization.gpu_hour_cost (nil without
	// prices or a summary).
	Cost *Cost
	// Screen is the screen's score of its point (screened searches; NaN otherwise).
	Screen   float64
	observed bool
}

// Proposal is one trial of a round.
type Proposal struct {
	// Trial is the 0-based trial index.
	Trial int
	// Candidate is the configuration; several proposals may share one (cache hits).
	Candidate *Candidate
	// Evaluate is true when the target must run the prediction (the first proposal of a
	// concrete configuration within the GPU budget); false for cache hits and candidates
	// outside the budget, which need no simulation.
	Evaluate bool
}

// Outcome is the result of evaluating one proposal with Evaluate set.
type Outcome struct {
	// Summary is the prediction summary; nil when the evaluation did not succeed.
	Summary map[string]any
	// Intervals is the prediction's `intervals` object (docs/uncertainty.md); nil when it
	// has none.
	Intervals map[string]any
	// Status is "" for a successful prediction (scoring decides feasibility), else
	// StatusUnsupported (a configuration error), StatusTimedOut or StatusFailed.
	Status string
	// Reason explains a non-empty Status.
	Reason string
}

// Search proposes candidates in rounds and observes their results in proposal order.
type Search struct {
	space      *Space
	opt        spec.Optimizer
	trials     []*Candidate // per trial
	points     []Point      // per trial
	cands      []*Candidate // distinct, in order of first proposal
	byKey      map[string]*Candidate
	cover      []coverItem
	observed   int
	pendingEva []*Candidate
	// screen is the screened optimiser's plan (nil for the other optimisers).
	screen *screenState
}

// coverItem forces one value of a preset parameter in a coverage trial.
type coverItem struct{ param, value int }

// NewSearch starts a search over space with the optimizer settings.
func NewSearch(space *Space, opt spec.Optimizer) *Search {
	s := &Search{space: space, opt: opt, byKey: map[string]*Candidate{}}
	if opt.Algorithm != spec.AlgorithmScreened {
		// The screen prices every preset entry instead (docs/recommend.md, "screened").
		s.cover = coverage(space, opt)
	}
	return s
}

// Total is the trial budget (optimizer.max_trials).
func (s *Search) Total() int { return s.opt.MaxTrials }

// Done is the number of trials proposed so far.
func (s *Search) Done() int { return len(s.trials) }

// Candidates are the distinct candidates so far, in order of first proposal.
func (s *Search) Candidates() []*Candidate { return s.cands }

// Propose returns the next round: min(n, remaining trials, trials left in the current
// block) proposals. Every earlier round must have been observed. An empty round means the
// search is over.
func (s *Search) Propose(n int) ([]Proposal, error) {
	if s.observed != len(s.trials) {
		return nil, fmt.Errorf("internal error: a round was proposed before the previous one was observed")
	}
	t0 := len(s.trials)
	k := min(n, s.opt.MaxTrials-t0, Block-t0%Block)
	var out []Proposal
	s.pendingEva = s.pendingEva[:0]
	for i := 0; i < k; i++ {
		t := t0 + i
		pt := s.propose(t)
		tree, key, err := s.space.Concrete(pt)
		if err != nil {
			return nil, err
		}
		c, seen := s.byKey[key]
		eval := false
		if !seen {
			c = &Candidate{ID: fmt.Sprintf("candidate-%06d", len(s.cands)+1), Tree: tree, Key: key, Point: pt, UsedGPUs: spec.UsedGPUs(tree), Screen: math.NaN()}
			if s.screen != nil {
				c.Screen = s.screen.trialScr[t]
			}
			s.cands = append(s.cands, c)
			s.byKey[key] = c
			op := s.space.Rec.Optimization
			if c.UsedGPUs > op.MaxGPUs || c.UsedGPUs < op.MinGPUs {
				c.Status, c.ReasonCategory = StatusInfeasible, "gpus"
				c.Reason = "used_gpus " + strconv.Itoa(c.UsedGPUs) + " is outside optimization.constraints [" +
					strconv.Itoa(max(op.MinGPUs, 1)) + ", " + strconv.Itoa(op.MaxGPUs) + "]"
				c.Score, c.observed = math.Inf(-1), true
			} else {
				eval = true
				s.pendingEva = append(s.pendingEva, c)
			}
		}
		c.Trials = append(c.Trials, t)
		s.trials = append(s.trials, c)
		s.points = append(s.points, pt)
		out = append(out, Proposal{Trial: t, Candidate: c, Evaluate: eval})
	}
	return out, nil
}

// Observe records the outcomes of the last round's proposals with Evaluate set, in
// proposal order.
func (s *Search) Observe(outcomes []Outcome) error {
	if len(outcomes) != len(s.pendingEva) {
		return fmt.Errorf("internal error: %d outcomes for %d evaluations", len(outcomes), len(s.pendingEva))
	}
	for i, o := range outcomes {
		c := s.pendingEva[i]
		c.observed = true
		c.Score = math.Inf(-1)
		if o.Status != "" {
			c.Status, c.Reason = o.Status, o.Reason
			c.ReasonCategory = o.Status
			continue
		}
		c.Summary, c.Intervals = o.Summary, o.Intervals
		sc := scoreSummary(s.space.Rec, o.Summary, c.UsedGPUs, HardwareOf(c.Tree))
		c.Status, c.ReasonCategory, c.Reason = sc.status, sc.category, sc.reason
		c.Objectives, c.Cost = sc.objectives, sc.cost
		if sc.status == StatusFeasible {
			c.Score = sc.score
		}
	}
	s.pendingEva = s.pendingEva[:0]
	s.observed = len(s.trials)
	return nil
}

// Best is the best feasible score so far (−Inf when none).
func (s *Search) Best() float64 {
	best := math.Inf(-1)
	for _, c := range s.cands {
		if c.observed && c.Status == StatusFeasible && c.Score > best {
			best = c.Score
		}
	}
	return best
}

// trialStream is the random stream of one trial: derived from the seed and the trial index
// only, so a trial's draws do not depend on any other trial's.
func trialStream(seed uint64, t int) *rng.Stream {
	return rng.New(seed^(uint64(t+1)*0x9e3779b97f4a7c15), "recommend.trial")
}

// propose makes trial t's point: a coverage trial, else the optimiser's.
func (s *Search) propose(t int) Point {
	r := trialStream(s.opt.Seed, t)
	if s.screen != nil {
		pt, score, _ := s.screenedPoint(t, func(n int) int { return int(r.UniformInt(uint64(n))) })
		s.screen.trialScr = append(s.screen.trialScr, score)
		if pt == nil {
			return s.space.randomPoint(r, nil)
		}
		return pt
	}
	if t < len(s.cover) {
		return s.space.randomPoint(r, &s.cover[t])
	}
	if s.opt.Algorithm == spec.AlgorithmRandom {
		return s.space.randomPoint(r, nil)
	}
	if t < Block {
		return s.designPoint(r, t)
	}
	return s.tpePoint(r, t)
}

// designPoint is trial t of the model-based optimiser's initial design (the first block,
// before any result): a Latin hypercube over the Block trials — each parameter's range is cut
// into Block strata, visited in a seeded order of the parameter's own, a categorical
// parameter's values taking balanced turns — so the first block spreads over every
// parameter's values where random draws repeat some and miss others. A point outside the
// GPU budget, or proposed before, is replaced by the first fresh in-budget random draw.
func (s *Search) designPoint(r *rng.Stream, t int) Point {
	sp := s.space
	pt := make(Point, len(sp.Params))
	for i := range sp.Params {
		pt[i] = math.NaN()
		if !sp.active(i, pt) {
			continue
		}
		p := &sp.Params[i]
		perm := make([]int, Block)
		for j := range perm {
			perm[j] = j
		}
		pr := rng.New(s.opt.Seed^uint64(i+1)*0x9e3779b97f4a7c15, "recommend.design")
		for j := Block - 1; j > 0; j-- {
			k := int(pr.UniformInt(uint64(j + 1)))
			perm[j], perm[k] = perm[k], perm[j]
		}
		u := (float64(perm[t]) + r.Uniform01()) / Block
		if p.Continuous {
			pt[i] = drawContinuous(p, u)
			continue
		}
		v := min(int(u*float64(len(p.Values))), len(p.Values)-1)
		if ok := sp.runnable(i, pt); ok != nil && !ok[v] {
			pt[i] = drawAmong(r, ok, len(p.Values))
			continue
		}
		pt[i] = float64(v)
	}
	if fresh, inBudget := s.judge(pt); fresh && inBudget {
		return pt
	}
	for k := 0; k < tpeRandomTries; k++ {
		if q := sp.randomPoint(r, nil); s.fresh(q) {
			return q
		}
	}
	return pt
}

// judge reports whether a point's concrete configuration was not proposed before and lies
// within the GPU budget (a configuration outside it is infeasible without simulation).
func (s *Search) judge(pt Point) (fresh, inBudget bool) {
	tree, key, err := s.space.Concrete(pt)
	if err != nil {
		return false, false
	}
	_, seen := s.byKey[key]
	used, op := spec.UsedGPUs(tree), s.space.Rec.Optimization
	return !seen, used <= op.MaxGPUs && used >= op.MinGPUs
}

// fresh reports whether a point is worth a model-based trial: not proposed before and within
// the GPU budget.
func (s *Search) fresh(pt Point) bool {
	f, in := s.judge(pt)
	return f && in
}

// coverage lists the coverage trials, in a seeded shuffled order: every parallelism preset
// entry once when they all fit in the budget (none otherwise), then the entries of each
// planner sub-item, one sub-item after another while they still fit. What is not covered
// the optimiser samples like any other parameter.
func coverage(space *Space, opt spec.Optimizer) []coverItem {
	var items []coverItem
	add := func(planner bool) {
		for i, p := range space.Params {
			if !p.Branch || (p.Labels != nil) != planner {
				continue
			}
			if planner && len(items)+len(p.Values) > opt.MaxTrials {
				return
			}
			for v := range p.Values {
				items = append(items, coverItem{i, v})
			}
		}
	}
	add(false)
	if len(items) > opt.MaxTrials {
		items = nil
	}
	add(true)
	if len(items) == 0 {
		return nil
	}
	r := rng.New(opt.Seed, "recommend.coverage")
	for i := len(items) - 1; i > 0; i-- {
		j := int(r.UniformInt(uint64(i + 1)))
		items[i], items[j] = items[j], items[i]
	}
	return items
}

// randomPoint draws every active parameter uniformly (continuous: uniform, or log-uniform
// for log scale); force, when set, fixes one preset value and the values of the conditions
// it depends on, up the chain (a planner sub-item needs its scaling policy, which needs an
// enabled planner).
func (s *Space) randomPoint(r *rng.Stream, force *coverItem) Point {
	pt := make(Point, len(s.Params))
	need := map[int][]bool{}
	if force != nil {
		fp := &s.Params[force.param]
		if fp.fitsOn != nil {
			need[fp.onBackend] = fp.fitsOn[force.value] // a backend the forced shape fits
		}
		for c := force.param; s.Params[c].when >= 0; c = s.Params[c].when {
			need[s.Params[c].when] = s.Params[c].whenOK
		}
	}
	for i := range s.Params {
		pt[i] = math.NaN()
		if !s.active(i, pt) {
			continue
		}
		p := &s.Params[i]
		needOK, needed := need[i]
		switch {
		case force != nil && i == force.param:
			pt[i] = float64(force.value)
		case needed:
			// Draw among the values that activate the forced parameter.
			var ok []int
			for v, good := range needOK {
				if good {
					ok = append(ok, v)
				}
			}
			pt[i] = float64(ok[r.UniformInt(uint64(len(ok)))])
		case p.Continuous:
			pt[i] = drawContinuous(p, r.Uniform01())
		default:
			pt[i] = drawAmong(r, s.runnable(i, pt), len(p.Values))
		}
	}
	return pt
}

// drawAmong draws a value uniformly among those ok allows (all n when ok is nil).
func drawAmong(r *rng.Stream, ok []bool, n int) float64 {
	if ok == nil {
		return float64(r.UniformInt(uint64(n)))
	}
	var vals []int
	for v, good := range ok {
		if good {
			vals = append(vals, v)
		}
	}
	return float64(vals[r.UniformInt(uint64(len(vals)))])
}

// drawContinuous maps u ∈ [0,1) onto the range (log-uniform on a log scale).
func drawContinuous(p *Param, u float64) float64 {
	if p.Log {
		return xmath.Exp(xmath.Log(p.Min) + u*(xmath.Log(p.Max)-xmath.Log(p.Min)))
	}
	return p.Min + u*(p.Max-p.Min)
}

// Space is the search space being searched.
func (s *Search) Space() *Space { return s.space }

// ScoreOutcome is the ranking score one outcome of a configuration would get (−Inf when it
// is not feasible), as the search scores it.
func ScoreOutcome(rec *spec.Recommendation, tree map[string]any, o Outcome) float64 {
	if o.Status != "" {
		return math.Inf(-1)
	}
	return ScoreSummary(rec, o.Summary, spec.UsedGPUs(tree), HardwareOf(tree))
}

// ScoreSummary is the ranking score a summary of a candidate with usedGPUs GPUs on systems
// hw would get (−Inf when it is outside the GPU budget or not feasible): how the screen
// scores its estimated summaries.
func ScoreSummary(rec *spec.Recommendation, summary map[string]any, usedGPUs int, hw RoleHardware) float64 {
	if usedGPUs > rec.Optimization.MaxGPUs || usedGPUs < rec.Optimization.MinGPUs {
		return math.Inf(-1)
	}
	sc := scoreSummary(rec, summary, usedGPUs, hw)
	if sc.status != StatusFeasible {
		return math.Inf(-1)
	}
	return sc.score
}
