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
	// Score and Objectives (aligned with ObjectiveNames) of a simulated candidate.
	Score      float64
	Objectives []float64
	observed   bool
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
}

// coverItem forces one value of a preset parameter in a coverage trial.
type coverItem struct{ param, value int }

// NewSearch starts a search over space with the optimizer settings.
func NewSearch(space *Space, opt spec.Optimizer) *Search {
	s := &Search{space: space, opt: opt, byKey: map[string]*Candidate{}}
	s.cover = coverage(space, opt)
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
			c = &Candidate{ID: fmt.Sprintf("candidate-%06d", len(s.cands)+1), Tree: tree, Key: key, Point: pt, UsedGPUs: spec.UsedGPUs(tree)}
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
		sc := scoreSummary(s.space.Rec, o.Summary, c.UsedGPUs)
		c.Status, c.ReasonCategory, c.Reason = sc.status, sc.category, sc.reason
		c.Objectives = sc.objectives
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
	if t < len(s.cover) {
		return s.space.randomPoint(r, &s.cover[t])
	}
	if s.opt.Algorithm == spec.AlgorithmRandom {
		return s.space.randomPoint(r, nil)
	}
	return s.tpePoint(r, t)
}

// coverage lists the coverage trials: every value of every preset parameter once, in a
// seeded shuffled order, when they all fit in the budget; none otherwise (then the
// optimiser samples the presets like any other parameter).
func coverage(space *Space, opt spec.Optimizer) []coverItem {
	var items []coverItem
	for i, p := range space.Params {
		if !p.Branch {
			continue
		}
		for v := range p.Values {
			items = append(items, coverItem{i, v})
		}
	}
	if len(items) > opt.MaxTrials {
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
// for log scale); force, when set, fixes one preset value and the value of its condition.
func (s *Space) randomPoint(r *rng.Stream, force *coverItem) Point {
	pt := make(Point, len(s.Params))
	var need int = -1
	var needOK []bool
	if force != nil {
		fp := s.Params[force.param]
		need, needOK = fp.when, fp.whenOK
	}
	for i := range s.Params {
		pt[i] = math.NaN()
		if !s.active(i, pt) {
			continue
		}
		p := &s.Params[i]
		switch {
		case force != nil && i == force.param:
			pt[i] = float64(force.value)
		case i == need:
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
			pt[i] = float64(r.UniformInt(uint64(len(p.Values))))
		}
	}
	return pt
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
	used := spec.UsedGPUs(tree)
	if used > rec.Optimization.MaxGPUs || used < rec.Optimization.MinGPUs {
		return math.Inf(-1)
	}
	sc := scoreSummary(rec, o.Summary, used)
	if sc.status != StatusFeasible {
		return math.Inf(-1)
	}
	return sc.score
}
