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
	// error ends the recommendation. Nil evaluates them here one after the other. These
	// evaluators are trusted: this build's module, here or in another instance.
	Evaluate func(reqs []EvaluationRequest) ([][]byte, error)
	// Remote, when non-nil, evaluates the rounds instead of Evaluate on evaluators that are not
	// trusted (--remote workers): each outcome is checked (CheckOutcome), the outcomes of the
	// written views and a seeded sample of the others are recomputed with Evaluate, and a
	// remote caught answering wrong is distrusted (docs/recommend.md, "Checking remote
	// workers").
	Remote func(reqs []EvaluationRequest) ([]RemoteOutcome, error)
	// Distrust, with Remote, is told of each remote found wrong: send it nothing more.
	Distrust func(remote, reason string)
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
	raw, err := evaluateTrusted(reqs, in)
	if err != nil {
		return nil, err
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

// evaluateTrusted returns the outcome bytes of reqs from in.Evaluate, or evaluated here one
// after the other when it is nil.
func evaluateTrusted(reqs []EvaluationRequest, in RecommendInput) ([][]byte, error) {
	if in.Evaluate == nil || len(reqs) == 0 {
		raw := make([][]byte, len(reqs))
		for i, r := range reqs {
			raw[i] = Evaluate(r, in.Files)
		}
		return raw, nil
	}
	raw, err := in.Evaluate(reqs)
	if err != nil {
		return nil, err
	}
	if len(raw) != len(reqs) {
		return nil, fmt.Errorf("internal error: %d outcomes for %d evaluation requests", len(raw), len(reqs))
	}
	return raw, nil
}

// WorkBudget is the per-candidate work budget of an optimizer section, in event-loop steps.
func WorkBudget(opt spec.Optimizer) int64 {
	return int64(opt.CandidateTimeoutSeconds * WorkStepsPerSecond)
}

// Recommend runs a whole recommendation: rounds of min(parallelism, remaining) proposals,
// each evaluated (in.Remote, in.Evaluate, or here one after the other) and observed in
// proposal order. With in.Remote the outcomes are checked afterwards; when a remote is found
// wrong, the search runs again from the start on corrected outcomes (the ones already known
// are not evaluated again), so the result is the one a local run gives.
func Recommend(in RecommendInput) (*recommend.Result, error) {
	t0 := 0.0
	if in.Clock != nil {
		t0 = in.Clock()
	}
	var check *remoteCheck
	if in.Remote != nil {
		check = newRemoteCheck(in)
	}
	for {
		search, rec, err := runSearch(in, check)
		if err != nil {
			return nil, err
		}
		if check != nil {
			found, err := check.verify(search, rec.Optimizer.Seed, WorkBudget(rec.Optimizer))
			if err != nil {
				return nil, err
			}
			if found {
				continue
			}
		}
		wall := 0.0
		if in.Clock != nil {
			wall = in.Clock() - t0
		}
		if in.FixedWallTimeMs != nil {
			wall = *in.FixedWallTimeMs
		}
		prov := recommend.Provenance{ModuleVersion: in.ModuleVersion, WallTimeMs: wall, WorkBudgetSteps: WorkBudget(rec.Optimizer)}
		if check != nil {
			prov.Distrusted = check.distrusted
		}
		return search.Result(prov)
	}
}

// runSearch proposes and observes every round of one search.
func runSearch(in RecommendInput, check *remoteCheck) (*recommend.Search, *spec.Recommendation, error) {
	search, rec, err := NewRecommendation(in)
	if err != nil {
		return nil, nil, err
	}
	budget := WorkBudget(rec.Optimizer)
	for {
		round, err := search.Propose(rec.Optimizer.Parallelism)
		if err != nil {
			return nil, nil, err
		}
		if len(round) == 0 {
			return search, rec, nil
		}
		var reqs []EvaluationRequest
		for _, p := range round {
			if p.Evaluate {
				reqs = append(reqs, NewEvaluationRequest(in.ConfigName, p.Candidate.Tree, budget))
			}
		}
		var outcomes []recommend.Outcome
		if check != nil {
			outcomes, err = check.evaluateRound(reqs)
		} else {
			outcomes, err = evaluateRound(reqs, in)
		}
		if err != nil {
			return nil, nil, err
		}
		if err := search.Observe(outcomes); err != nil {
			return nil, nil, err
		}
		if in.Progress != nil {
			in.Progress(search.Done(), search.Total(), search.Best())
		}
	}
}
