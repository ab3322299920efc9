package simcore

import (
	"fmt"
	"io/fs"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/recommend"
	"aisimulate/simcore/spec"
)

// WorkStepsPerSecond converts optimizer.candidate_timeout_seconds into a work budget: a
// candidate whose simulation takes more than timeout × WorkStepsPerSecond event-loop steps
// ends as timed_out. It is the order of steps per second the module runs on one core of a
// small VM, so the budget means roughly the wall time the notes intend, while the outcome
// depends only on the inputs (docs/recommend.md, "Timeouts").
const WorkStepsPerSecond = 1_000_000

// RecommendInput is everything one recommendation needs.
type RecommendInput struct {
	// ConfigName names the configuration in error messages (the --config path).
	ConfigName string
	// ConfigYAML is the recommendation configuration text.
	ConfigYAML []byte
	// Sets are --set PATH=YAML_VALUE assignments (optimization and optimizer included).
	Sets []string
	// Files opens trace paths and local model directories (see Input.Files).
	Files fs.FS
	// ModuleVersion is recorded in the result's provenance.
	ModuleVersion string
	// Clock returns a monotonic time in milliseconds for provenance.wall_time_ms; nil → 0.
	Clock func() float64
	// FixedWallTimeMs, when non-nil, replaces the measured wall time (golden-test hook).
	FixedWallTimeMs *float64
	// Progress, when non-nil, is called after every round with the trials done, the trial
	// budget and the best feasible score so far (−Inf when none).
	Progress func(done, total int, best float64)
	// Evaluate, when non-nil, evaluates one round's requests (in any order, at once or not)
	// and returns each outcome's canonical JSON (EncodeOutcome) aligned with the requests; an
	// error ends the recommendation. Nil evaluates them here one after the other.
	Evaluate func(reqs []EvaluationRequest) ([][]byte, error)
}

// NewRecommendation validates a recommendation configuration and builds its search: the
// first half of Recommend, for targets that evaluate the rounds themselves (Propose, run
// EvaluateCandidate on each proposal with Evaluate set, Observe the outcomes in proposal
// order). A *spec.Error is bad input (exit 2).
func NewRecommendation(in RecommendInput) (*recommend.Search, *spec.Recommendation, error) {
	rec, err := spec.LoadRecommendation(in.ConfigYAML, in.Sets)
	if err != nil {
		return nil, nil, err
	}
	if err := resolveShared(rec, in.Files); err != nil {
		return nil, nil, err
	}
	if err := choosePredictors(rec, in.Files); err != nil {
		return nil, nil, err
	}
	facts := recommend.Facts{Model: func(id string) (*catalog.Model, error) {
		m, err := catalog.LookupModel(id, in.Files)
		return m, configError(err, "")
	}}
	space, err := recommend.NewSpace(rec, facts)
	if err != nil {
		return nil, nil, err
	}
	return recommend.NewSearch(space, rec.Optimizer), rec, nil
}

// evaluateRound evaluates one round's requests with in.Evaluate (here, one after the other,
// when nil) and decodes the outcomes in request order.
func evaluateRound(reqs []EvaluationRequest, in RecommendInput) ([]recommend.Outcome, error) {
	var raw [][]byte
	if in.Evaluate != nil && len(reqs) > 0 {
		var err error
		if raw, err = in.Evaluate(reqs); err != nil {
			return nil, err
		}
		if len(raw) != len(reqs) {
			return nil, fmt.Errorf("internal error: %d outcomes for %d evaluation requests", len(raw), len(reqs))
		}
	} else {
		for _, r := range reqs {
			raw = append(raw, Evaluate(r, in.Files))
		}
	}
	outcomes := make([]recommend.Outcome, len(raw))
	for i, b := range raw {
		o, err := DecodeOutcome(b)
		if err != nil {
			return nil, err
		}
		outcomes[i] = o
	}
	return outcomes, nil
}

// WorkBudget is the per-candidate work budget of an optimizer section, in event-loop steps.
func WorkBudget(opt spec.Optimizer) int64 {
	return int64(opt.CandidateTimeoutSeconds * WorkStepsPerSecond)
}

// Recommend runs a whole recommendation in-process: rounds of min(parallelism, remaining)
// proposals, each evaluated here one after the other and observed in proposal order.
func Recommend(in RecommendInput) (*recommend.Result, error) {
	search, rec, err := NewRecommendation(in)
	if err != nil {
		return nil, err
	}
	t0 := 0.0
	if in.Clock != nil {
		t0 = in.Clock()
	}
	budget := WorkBudget(rec.Optimizer)
	for {
		round, err := search.Propose(rec.Optimizer.Parallelism)
		if err != nil {
			return nil, err
		}
		if len(round) == 0 {
			break
		}
		var reqs []EvaluationRequest
		for _, p := range round {
			if p.Evaluate {
				reqs = append(reqs, NewEvaluationRequest(in.ConfigName, p.Candidate.Tree, budget))
			}
		}
		outcomes, err := evaluateRound(reqs, in)
		if err != nil {
			return nil, err
		}
		if err := search.Observe(outcomes); err != nil {
			return nil, err
		}
		if in.Progress != nil {
			in.Progress(search.Done(), search.Total(), search.Best())
		}
	}
	wall := 0.0
	if in.Clock != nil {
		wall = in.Clock() - t0
	}
	if in.FixedWallTimeMs != nil {
		wall = *in.FixedWallTimeMs
	}
	return search.Result(recommend.Provenance{ModuleVersion: in.ModuleVersion, WallTimeMs: wall, WorkBudgetSteps: budget})
}
