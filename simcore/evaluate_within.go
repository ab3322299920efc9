package simcore

import (
	"errors"
	"fmt"
	"io/fs"

	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/recommend"
	"aisimulate/simcore/spec"
)

// EvaluatorLimits bound what an evaluator itself spends on one evaluation (an edge worker's
// limits), as opposed to the candidate's own budget (EvaluationRequest.BudgetSteps), whose
// overrun is a timed_out outcome. Passing an evaluator's limit is not an outcome: another
// evaluator with more room (the CLI's) gives the outcome instead (docs/web.md, "Evaluate").
type EvaluatorLimits struct {
	// MaxSteps is the most event-loop steps the evaluation may be charged (see
	// EvaluateWithin); 0 = no bound.
	MaxSteps int64
	// MemoryBudget is the memory the run may need by the estimate Predict makes before it
	// runs (budget.go); 0 = no bound beyond the candidate's own (DefaultMemoryBudget).
	MemoryBudget int64
}

// The limits an *EvaluatorLimitError names.
const (
	// LimitWork is EvaluatorLimits.MaxSteps.
	LimitWork = "work"
	// LimitMemory is EvaluatorLimits.MemoryBudget.
	LimitMemory = "memory"
)

// EvaluatorLimitError is an evaluation an evaluator will not finish because of its own
// limits (EvaluatorLimits), not because of the candidate.
type EvaluatorLimitError struct {
	// Limit is LimitWork or LimitMemory.
	Limit string
	// Path is the candidate configuration's field that sets the size ("" for work).
	Path string
	// Msg says which limit was passed and by how much.
	Msg string
}

func (e *EvaluatorLimitError) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// EvaluateWithin is Evaluate run by an evaluator with limits of its own. It returns the
// outcome's canonical JSON (the bytes Evaluate returns) and the event-loop steps the
// evaluation is charged: its progress reports plus one, times ProgressSteps, an upper bound
// of the steps it ran that counts every evaluation, even one that never simulates, so a sum
// over many candidates is a real bound. When the run would pass lim before the candidate's
// own budget runs out it returns an *EvaluatorLimitError instead: a memory estimate over
// lim.MemoryBudget that DefaultMemoryBudget admits (over both, the outcome is unsupported, as
// everywhere), or a charge over lim.MaxSteps.
func EvaluateWithin(req EvaluationRequest, files fs.FS, lim EvaluatorLimits) (outcome []byte, steps int64, err error) {
	o, steps, lerr := evaluateMetered(req, files, lim)
	if lerr != nil {
		return nil, steps, lerr
	}
	return EncodeOutcome(o), steps, nil
}

// timeoutSignal carries a work-budget overrun out of Predict through its Progress callback.
type timeoutSignal struct{}

// evaluatorLimitSignal carries an evaluator's limit out of Predict.
type evaluatorLimitSignal struct{ err *EvaluatorLimitError }

// evaluateYAML predicts one candidate configuration exactly as `predict` would predict
// its recommendations/NNNN.yaml (the same text through the same loader, with the same
// calibration profiles), with the wall time fixed at 0 and a work budget of
// req.BudgetSteps event-loop steps.
func evaluateYAML(req EvaluationRequest, files fs.FS) recommend.Outcome {
	out, _, _ := evaluateMetered(req, files, EvaluatorLimits{})
	return out
}

// evaluateMetered is evaluateYAML within an evaluator's limits (see EvaluateWithin); it also
// returns the steps charged.
func evaluateMetered(req EvaluationRequest, files fs.FS, lim EvaluatorLimits) (out recommend.Outcome, charged int64, lerr *EvaluatorLimitError) {
	configName, yamlText, budgetSteps := req.ConfigName, []byte(req.ConfigYAML), req.BudgetSteps
	zero := 0.0
	steps := int64(0)
	// charged counts the progress report about to come: every evaluation pays one chunk.
	charged = ProgressSteps
	overWork := func() *EvaluatorLimitError {
		return &EvaluatorLimitError{Limit: LimitWork, Msg: fmt.Sprintf(
			"the evaluation needs more than the %d event-loop steps this evaluator may run (its own budget is %d steps)", lim.MaxSteps, budgetSteps)}
	}
	if lim.MaxSteps > 0 && charged > lim.MaxSteps {
		return recommend.Outcome{}, 0, overWork()
	}
	in := Input{
		ConfigName:      configName,
		ConfigYAML:      yamlText,
		Files:           files,
		FixedWallTimeMs: &zero,
		Progress: func(float64) {
			steps += ProgressSteps
			// The candidate's own budget first: when both run out at once, the candidate
			// has timed out wherever it runs.
			if steps > budgetSteps {
				panic(timeoutSignal{})
			}
			if lim.MaxSteps > 0 && charged+ProgressSteps > lim.MaxSteps {
				panic(evaluatorLimitSignal{overWork()})
			}
			charged += ProgressSteps
		},
	}
	defer func() {
		if p := recover(); p != nil {
			switch s := p.(type) {
			case timeoutSignal:
				out = timedOut(budgetSteps)
			case evaluatorLimitSignal:
				out, lerr = recommend.Outcome{}, s.err
			default:
				out = recommend.Outcome{Status: recommend.StatusFailed, Reason: fmt.Sprintf("internal error: %v", p)}
			}
		}
	}()
	var adjust func(*replay.Plan)
	if lim.MemoryBudget > 0 {
		adjust = func(plan *replay.Plan) { checkEvaluatorMemory(yamlText, plan, lim.MemoryBudget) }
	}
	var cal *calibrated
	if len(req.Calibrations) > 0 {
		var err error
		if cal, err = newCalibrated(req.Calibrations, req.StrictCalibration, true); err != nil {
			return recommend.Outcome{Status: recommend.StatusFailed, Reason: err.Error()}, charged, nil
		}
	}
	res, err := predictTuned(in, nil, adjust, cal)
	if err != nil {
		var se *spec.Error
		if errors.As(err, &se) {
			return recommend.Outcome{Status: recommend.StatusUnsupported, Reason: se.Error()}, charged, nil
		}
		// A calibration that does not hold for the candidate (--strict-calibration outside
		// the profiles, a parameter below the candidate's physical floor).
		var me *measure.Error
		if errors.As(err, &me) {
			return recommend.Outcome{Status: recommend.StatusUnsupported, Reason: me.Error()}, charged, nil
		}
		return recommend.Outcome{Status: recommend.StatusFailed, Reason: err.Error()}, charged, nil
	}
	// The progress reports stop a run early, a chunk of ProgressSteps at a time; the run's
	// own count settles the rest, so the budget holds to the step whatever its size.
	if res.Steps > budgetSteps {
		return timedOut(budgetSteps), charged, nil
	}
	return recommend.Outcome{Summary: res.Summary, Intervals: res.Intervals}, charged, nil
}

// checkEvaluatorMemory panics with an evaluatorLimitSignal when the lowered plan's memory
// estimate exceeds the evaluator's budget but not DefaultMemoryBudget, the budget the
// candidate's own outcome is judged by (over that, Predict's own check makes it unsupported).
// The configuration has just been loaded from the same text by Predict, so it loads again.
func checkEvaluatorMemory(yamlText []byte, plan *replay.Plan, budget int64) {
	cfg, err := spec.LoadConfig(yamlText, nil)
	if err != nil {
		return
	}
	over := checkPlanMemory(cfg, plan, &Input{MemoryBudget: budget})
	if over == nil || checkPlanMemory(cfg, plan, &Input{}) != nil {
		return
	}
	le := &EvaluatorLimitError{Limit: LimitMemory, Msg: over.Error()}
	var se *spec.Error
	if errors.As(over, &se) {
		le.Path, le.Msg = se.Path, se.Msg
	}
	panic(evaluatorLimitSignal{le})
}

// timedOut is the outcome of a candidate whose simulation exceeded its work budget.
func timedOut(budgetSteps int64) recommend.Outcome {
	return recommend.Outcome{Status: recommend.StatusTimedOut,
		Reason: fmt.Sprintf("the simulation exceeded the work budget of %d event-loop steps (optimizer.candidate_timeout_seconds)", budgetSteps)}
}
