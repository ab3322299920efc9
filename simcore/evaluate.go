package simcore

import (
	"aisimulate/simcore/canon"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"aisimulate/simcore/recommend"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// EvaluationRequest is one candidate evaluation as it crosses a boundary: to another module
// instance of the native host's pool, to a Web Worker of the browser's pool, or to an edge
// worker (`POST /v1/predict?evaluate=…`). It carries the concrete configuration text exactly as
// recommendations/NNNN.yaml holds it, so every evaluator runs the same input
// (docs/recommend.md, "Parallel and remote evaluation").
type EvaluationRequest struct {
	// ConfigName names the configuration in error messages (the --config path).
	ConfigName string `json:"config_name"`
	// ConfigYAML is the concrete predict configuration.
	ConfigYAML string `json:"config_yaml"`
	// BudgetSteps is the work budget in event-loop steps (WorkBudget of the optimizer section).
	BudgetSteps int64 `json:"budget_steps"`
	// Calibrations are the recommendation's calibration profiles (recommend --calibration),
	// their bytes as given, so every evaluator applies the same profiles (docs/recommend.md,
	// "Calibration"); absent without profiles.
	Calibrations []NamedFile `json:"calibrations,omitempty"`
	// StrictCalibration is recommend --strict-calibration: a candidate the profiles do not
	// cover (scope or validity domain) is unsupported.
	StrictCalibration bool `json:"strict_calibration,omitempty"`
}

// wireOutcome is the JSON form of a recommend.Outcome.
type wireOutcome struct {
	Status    string         `json:"status"`
	Reason    string         `json:"reason"`
	Summary   map[string]any `json:"summary"`
	Intervals map[string]any `json:"intervals"`
}

// EncodeOutcome is the canonical JSON of an evaluation outcome (simcore/canon: a float always
// has a '.' or an exponent, an integer never does): what evaluators return. Every outcome,
// even one computed in the same process, is decoded from these bytes, so a summary reaches
// scoring and recommendation.json with the same values and number types whichever evaluator
// produced it.
func EncodeOutcome(o recommend.Outcome) []byte {
	var summary, intervals any
	if o.Summary != nil {
		summary = o.Summary
	}
	if o.Intervals != nil {
		intervals = o.Intervals
	}
	b, err := canon.Compact(map[string]any{"status": o.Status, "reason": o.Reason, "summary": summary, report.KeyIntervals: intervals})
	if err != nil {
		b, _ = canon.Compact(map[string]any{"status": recommend.StatusFailed, "reason": "internal error: " + err.Error(), "summary": nil})
	}
	return b
}

// DecodeOutcome reads bytes written by EncodeOutcome: a number with a '.' or an exponent
// becomes a float64, any other an int, as the prediction's summary held them.
func DecodeOutcome(b []byte) (recommend.Outcome, error) {
	var w wireOutcome
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&w); err != nil {
		return recommend.Outcome{}, fmt.Errorf("malformed evaluation outcome: %v", err)
	}
	for _, m := range []*map[string]any{&w.Summary, &w.Intervals} {
		if *m != nil {
			v, err := typedNumbers(*m)
			if err != nil {
				return recommend.Outcome{}, fmt.Errorf("malformed evaluation outcome: %v", err)
			}
			*m = v.(map[string]any)
		}
	}
	switch w.Status {
	case "", recommend.StatusUnsupported, recommend.StatusTimedOut, recommend.StatusFailed:
	default:
		return recommend.Outcome{}, fmt.Errorf("malformed evaluation outcome: unknown status %q", w.Status)
	}
	if w.Status == "" && w.Summary == nil {
		return recommend.Outcome{}, fmt.Errorf("malformed evaluation outcome: a successful evaluation without a summary")
	}
	return recommend.Outcome{Status: w.Status, Reason: w.Reason, Summary: w.Summary, Intervals: w.Intervals}, nil
}

// typedNumbers replaces every json.Number in v by an int or a float64 (see DecodeOutcome).
func typedNumbers(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return strconv.ParseFloat(string(x), 64)
		}
		return strconv.Atoi(string(x))
	case map[string]any:
		for k, e := range x {
			t, err := typedNumbers(e)
			if err != nil {
				return nil, err
			}
			x[k] = t
		}
	case []any:
		for i, e := range x {
			t, err := typedNumbers(e)
			if err != nil {
				return nil, err
			}
			x[i] = t
		}
	}
	return v, nil
}

// Evaluate runs one evaluation request and returns the outcome's canonical JSON
// (EncodeOutcome): what every evaluator, local or remote, answers.
func Evaluate(req EvaluationRequest, files fs.FS) []byte {
	return EncodeOutcome(evaluateYAML(req, files))
}

// NewEvaluationRequest is the request that evaluates a proposal's concrete configuration.
func NewEvaluationRequest(configName string, tree map[string]any, budgetSteps int64) EvaluationRequest {
	return EvaluationRequest{ConfigName: configName, ConfigYAML: string(spec.EmitYAML(tree)), BudgetSteps: budgetSteps}
}

// EvaluateCandidate evaluates a proposal's concrete configuration here and decodes the
// outcome, exactly as a recommendation does.
func EvaluateCandidate(configName string, tree map[string]any, files fs.FS, budgetSteps int64) recommend.Outcome {
	o, err := DecodeOutcome(Evaluate(NewEvaluationRequest(configName, tree, budgetSteps), files))
	if err != nil {
		return recommend.Outcome{Status: recommend.StatusFailed, Reason: err.Error()}
	}
	return o
}

// Version is the program version: printed by --version, recorded in recommendation.json's
// provenance, and compared by `recommend --remote` with the version an edge worker reports
// (the same version means the same core, hence the same outcomes). Every build sets it with
// -ldflags "-X aisimulate/simcore.Version=…" (Makefile, mk/web.mk).
var Version = "dev"
