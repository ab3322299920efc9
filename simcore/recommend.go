package simcore

import (
	"fmt"
	"io/fs"
	"math"

	"aisimulate/simcore/calibration"
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
	// Progress, when non-nil, is called by Recommend after every round with the trials done,
	// the trial budget and the best feasible score so far (−Inf when none).
	Progress func(done, total int, best float64)
	// Evaluate, when non-nil, evaluates Recommend's rounds (see Recommender.Run); nil
	// evaluates them here one after the other. These evaluators are trusted: this build's
	// module, here or in another instance.
	Evaluate func(reqs []EvaluationRequest) ([][]byte, error)
	// Calibrations are calibration profiles (recommend --calibration): every candidate whose
	// model, GPU, backend and mode an entry has uses it (docs/recommend.md, "Calibration").
	Calibrations []NamedFile
	// StrictCalibration makes a candidate the profiles do not cover unsupported.
	StrictCalibration bool
	// Admit, when non-nil, is called once NewRecommender has validated the configuration and
	// built the space, before the screen prices anything, with the configuration and the
	// number of points the screen will price (0 when the search is not screened); an error
	// stops the recommendation there. The edge API charges its work limit with it
	// (docs/web.md, "Recommend").
	Admit func(rec *spec.Recommendation, screenPoints int) error
}

// Recommender is one recommendation in progress, driven in steps: Next hands out the
// evaluation requests of the next round, Observe takes their outcomes, Result encodes the
// finished search. It is the one driver of the search: Recommend (in-process, the CLI, the
// edge) runs it through Run, the browser's coordinator calls the steps from JavaScript. The
// rounds are min(optimizer.parallelism, block) proposals, observed in proposal order, so the
// result does not depend on who evaluates the requests or when (docs/recommend.md, "Rounds").
type Recommender struct {
	search *recommend.Search
	rec    *spec.Recommendation
	in     RecommendInput
	budget int64
	// profiles are the loaded calibration profiles (for the provenance).
	profiles []calibration.ProfileFile
	// t0 is the clock when the first round was handed out; started says it was.
	t0      float64
	started bool
	// pending is the number of requests Next handed out and Observe has not taken yet.
	pending  int
	waiting  bool
	finished bool
	// distrusted are the remotes whose outcomes were replaced, for the provenance
	// (RunChecked).
	distrusted []recommend.Distrusted
}

// NewRecommender validates a recommendation configuration and builds its search (the
// planner's predictor pre-sweep included). A *spec.Error is bad input (exit 2).
func NewRecommender(in RecommendInput) (*Recommender, error) {
	profiles, err := loadProfiles(in.Calibrations)
	if err != nil {
		return nil, err
	}
	if in.StrictCalibration && len(profiles) == 0 {
		return nil, &spec.Error{Path: "--strict-calibration", Msg: "needs --calibration FILE"}
	}
	rec, err := spec.LoadRecommendation(in.ConfigYAML, in.Sets)
	if err != nil {
		return nil, err
	}
	if err := resolveShared(rec, in.Files); err != nil {
		return nil, err
	}
	if err := choosePredictors(rec, in.Files); err != nil {
		return nil, err
	}
	if err := sizeLadder(rec); err != nil {
		return nil, err
	}
	facts := recommend.Facts{Model: func(id string) (*catalog.Model, error) {
		m, err := catalog.LookupModel(id, in.Files)
		return m, configError(err, "")
	}}
	space, err := recommend.NewSpace(rec, facts)
	if err != nil {
		return nil, err
	}
	points, err := screenPlan(rec, space)
	if err != nil {
		return nil, err
	}
	if in.Admit != nil {
		if err := in.Admit(rec, points); err != nil {
			return nil, err
		}
	}
	var priced []recommend.Priced
	if points > 0 {
		if priced, err = runScreen(rec, space, in.Files); err != nil {
			return nil, err
		}
	}
	search := recommend.NewSearch(space, rec.Optimizer)
	if priced != nil {
		search.UseScreen(priced)
	}
	return &Recommender{search: search, rec: rec, in: in, budget: WorkBudget(rec.Optimizer), profiles: profiles}, nil
}

// sizeLadder checks the systems of a hardware domain and sizes the default ladder on the one
// with the most memory per GPU (docs/recommend.md, "Hardware and cost").
func sizeLadder(rec *spec.Recommendation) error {
	var largest *catalog.Hardware
	for i, id := range rec.Optimization.HardwareChoices {
		hw, err := catalog.LookupHardware(id)
		if err != nil {
			return &spec.Error{Path: fmt.Sprintf("optimization.hardware.choices[%d]", i), Msg: err.Error()}
		}
		if largest == nil || hw.MemBytes > largest.MemBytes {
			largest = hw
		}
	}
	if largest != nil {
		rec.SizeLadderOn(largest.ID)
	}
	return nil
}

// screenPlan settles whether the search is screened (docs/recommend.md, "screened") and
// returns the number of points the screen will price, 0 when it is not screened: another
// algorithm is given, or none is and the space cannot be screened (the search is then
// bayesian). An explicit screened on a space it cannot screen is a configuration error.
func screenPlan(rec *spec.Recommendation, space *recommend.Space) (int, error) {
	opt := &rec.Optimizer
	if opt.Algorithm != "" && opt.Algorithm != spec.AlgorithmScreened {
		return 0, nil
	}
	size := space.Size()
	reason := ""
	switch {
	case math.IsInf(size, 1):
		reason = "the space has a continuous range; give it a step or choices"
	case size > recommend.ScreenLimit:
		reason = fmt.Sprintf("the space has %.0f points, more than the %d the screen prices", size, recommend.ScreenLimit)
	case !screenable(rec):
		reason = "the surrogate prices synthetic requests under a concurrency or rate load with the default timing model only"
	}
	if reason == "" {
		return int(size), nil
	}
	if opt.Algorithm == spec.AlgorithmScreened {
		return 0, cannotScreen(reason)
	}
	opt.Algorithm = spec.AlgorithmBayesian
	return 0, nil
}

// runScreen prices every point of the space (screenPlan said the search is screened) and
// returns the prices; when the surrogate priced no point, an explicit screened is a
// configuration error and an implicit one becomes bayesian.
func runScreen(rec *spec.Recommendation, space *recommend.Space, files fs.FS) ([]recommend.Priced, error) {
	opt := &rec.Optimizer
	priced, err := screen(rec, space, files)
	if err != nil {
		return nil, err
	}
	for _, p := range priced {
		if !math.IsNaN(p.Score) {
			opt.Algorithm = spec.AlgorithmScreened
			return priced, nil
		}
	}
	if opt.Algorithm == spec.AlgorithmScreened {
		return nil, cannotScreen("the surrogate could price no point of the space")
	}
	opt.Algorithm = spec.AlgorithmBayesian
	return nil, nil
}

// cannotScreen is the configuration error of an explicit screened on a space it cannot
// screen.
func cannotScreen(reason string) error {
	return &spec.Error{Path: "optimizer.algorithm", Msg: "screened cannot screen this search: " + reason + "; use bayesian or random"}
}

// Recommendation is the validated configuration.
func (r *Recommender) Recommendation() *spec.Recommendation { return r.rec }

// Search is the search being driven (its candidates so far, its space).
func (r *Recommender) Search() *recommend.Search { return r.search }

// Parallelism is optimizer.parallelism: how many candidates a round holds at most, the cap
// of a target's evaluation pool.
func (r *Recommender) Parallelism() int { return r.rec.Optimizer.Parallelism }

// Progress is the trials done, the trial budget and the best feasible score so far (−Inf
// when none).
func (r *Recommender) Progress() (done, total int, best float64) {
	return r.search.Done(), r.search.Total(), r.search.Best()
}

// Next returns the evaluation requests of the next round that needs any; rounds made only of
// cache hits and candidates outside the GPU budget are observed on the way. done is true
// when the search is over (then reqs is empty). Every round Next returns must be observed
// before the next call.
func (r *Recommender) Next() (reqs []EvaluationRequest, done bool, err error) {
	if r.waiting {
		return nil, false, fmt.Errorf("internal error: a round was requested before the previous one was observed")
	}
	if !r.started {
		r.started = true
		if r.in.Clock != nil {
			r.t0 = r.in.Clock()
		}
	}
	for !r.finished {
		round, err := r.search.Propose(r.rec.Optimizer.Parallelism)
		if err != nil {
			return nil, false, err
		}
		if len(round) == 0 {
			r.finished = true
			break
		}
		for _, p := range round {
			if p.Evaluate {
				reqs = append(reqs, r.in.evaluationRequest(p.Candidate.Tree, r.budget))
			}
		}
		if len(reqs) > 0 {
			r.pending, r.waiting = len(reqs), true
			return reqs, false, nil
		}
		if err := r.search.Observe(nil); err != nil {
			return nil, false, err
		}
	}
	return nil, true, nil
}

// Observe takes the outcomes (EncodeOutcome bytes) of the round Next returned, aligned with
// its requests, whatever order they were computed in. Each is decoded from its bytes, so an
// outcome computed here reaches scoring exactly as one computed elsewhere.
func (r *Recommender) Observe(outcomes [][]byte) error {
	if !r.waiting {
		return fmt.Errorf("internal error: outcomes without a round")
	}
	if len(outcomes) != r.pending {
		return fmt.Errorf("internal error: %d outcomes for %d evaluation requests", len(outcomes), r.pending)
	}
	decoded := make([]recommend.Outcome, len(outcomes))
	for i, b := range outcomes {
		o, err := DecodeOutcome(b)
		if err != nil {
			return err
		}
		decoded[i] = o
	}
	if err := r.search.Observe(decoded); err != nil {
		return err
	}
	r.pending, r.waiting = 0, false
	return nil
}

// Result encodes the finished search (Next returned done) with the wall time measured since
// the first round (or the fixed one).
func (r *Recommender) Result() (*recommend.Result, error) {
	if !r.finished {
		return nil, fmt.Errorf("internal error: the search is not finished")
	}
	wall := 0.0
	if r.in.Clock != nil {
		wall = r.in.Clock() - r.t0
	}
	if r.in.FixedWallTimeMs != nil {
		wall = *r.in.FixedWallTimeMs
	}
	prov := recommend.Provenance{ModuleVersion: r.in.ModuleVersion, WallTimeMs: wall, WorkBudgetSteps: r.budget,
		Distrusted: r.distrusted}
	if len(r.profiles) > 0 {
		prov.Calibration = calibration.ProvenanceOf(r.profiles, r.in.StrictCalibration)
	}
	return r.search.Result(prov)
}

// Run drives the whole search: each round's requests go to evaluate (nil evaluates them
// here one after the other), which returns each outcome's bytes aligned with the requests
// (in any order of computation; an error ends the recommendation); progress, when non-nil,
// is called after every evaluated round.
func (r *Recommender) Run(evaluate func([]EvaluationRequest) ([][]byte, error), progress func(done, total int, best float64)) (*recommend.Result, error) {
	if err := r.runRounds(evaluate, progress); err != nil {
		return nil, err
	}
	return r.Result()
}

// runRounds is Run without the result: every round, to the end of the search.
func (r *Recommender) runRounds(evaluate func([]EvaluationRequest) ([][]byte, error), progress func(done, total int, best float64)) error {
	reported := -1
	for {
		reqs, done, err := r.Next()
		if err != nil {
			return err
		}
		if done {
			break
		}
		raw, err := evaluateWith(evaluate, reqs, r.in.Files)
		if err != nil {
			return err
		}
		if err := r.Observe(raw); err != nil {
			return err
		}
		if done, total, best := r.Progress(); progress != nil {
			progress(done, total, best)
			reported = done
		}
	}
	if done, total, best := r.Progress(); progress != nil && done != reported {
		progress(done, total, best) // after trailing rounds that needed no evaluation
	}
	return nil
}

// evaluateWith returns the outcome bytes of reqs from evaluate, or evaluated here one after
// the other (with files) when it is nil.
func evaluateWith(evaluate func([]EvaluationRequest) ([][]byte, error), reqs []EvaluationRequest, files fs.FS) ([][]byte, error) {
	if evaluate == nil {
		raw := make([][]byte, len(reqs))
		for i, q := range reqs {
			raw[i] = Evaluate(q, files)
		}
		return raw, nil
	}
	return evaluate(reqs)
}

// WorkBudget is the per-candidate work budget of an optimizer section, in event-loop steps.
func WorkBudget(opt spec.Optimizer) int64 {
	return int64(opt.CandidateTimeoutSeconds * WorkStepsPerSecond)
}

// Recommend runs a whole recommendation: NewRecommender, then Run with in.Evaluate and
// in.Progress.
func Recommend(in RecommendInput) (*recommend.Result, error) {
	r, err := NewRecommender(in)
	if err != nil {
		return nil, err
	}
	return r.Run(in.Evaluate, in.Progress)
}

// evaluationRequest is the request that evaluates a candidate's concrete configuration in
// this recommendation: with its calibration profiles, so every evaluator applies them.
func (in RecommendInput) evaluationRequest(tree map[string]any, budgetSteps int64) EvaluationRequest {
	req := NewEvaluationRequest(in.ConfigName, tree, budgetSteps)
	req.Calibrations, req.StrictCalibration = in.Calibrations, in.StrictCalibration
	return req
}
