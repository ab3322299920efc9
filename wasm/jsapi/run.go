// Package jsapi is the glue between simcore.Predict and the JavaScript targets (the browser
// Web Worker, node, the edge worker): it turns uploaded files into an fs.FS, classifies errors
// into bad input versus failure, enforces caller limits, and never lets a panic escape. The
// syscall/js bindings live in bindings_js.go; everything here is plain Go so it is tested
// natively.
package jsapi

import (
	"encoding/json"
	"errors"
	"fmt"

	"aisimulate/simcore"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// Error kinds reported to JavaScript callers.
const (
	// KindConfig is bad input (a *spec.Error): shown at the field, HTTP 400.
	KindConfig = "config"
	// KindLimit is a caller-imposed limit (CPU time, request count): HTTP 413/503.
	KindLimit = "limit"
	// KindFailed is any other error or a panic inside the simulator: HTTP 500.
	KindFailed = "failed"
)

// Request is one prediction as a JavaScript target receives it.
type Request struct {
	// ConfigName names the configuration in error messages ("" → "prediction.yaml").
	ConfigName string
	// YAML is the configuration text.
	YAML []byte
	// Sets are --set PATH=YAML_VALUE assignments, applied left to right.
	Sets []string
	// CapturePerRequest asks for requests.jsonl.
	CapturePerRequest bool
	// Detail is a --detail value: a comma list of report.DetailSections names or "all"
	// ("" = no details object).
	Detail string
	// Files are uploaded files (trace files) by name.
	Files map[string][]byte
	// FixedWallTimeMs replaces the measured wall time (test hook), nil = measure.
	FixedWallTimeMs *float64
	// Clock is a monotonic millisecond clock (performance.now in JS), nil = no clock.
	Clock func() float64
	// Progress receives the fraction of work done, nil = ignore.
	Progress func(fraction float64)
	// MemoryBudget is simcore.Input.MemoryBudget: the memory a run may need by the estimate
	// made before it starts (0 = the module's default).
	MemoryBudget int64
	// MaxRequests is simcore.Input.MaxRequests: more requests are refused with KindLimit
	// (0 = no limit).
	MaxRequests int
	// Check, when non-nil, is called with every progress report; a non-nil error aborts the
	// run with KindLimit (a hook for time or work budgets; it can only fire while simcore
	// reports progress).
	Check func() error
	// Calibrations are calibration profiles (--calibration), in order; StrictCalibration is
	// --strict-calibration (docs/calibration.md).
	Calibrations      []simcore.NamedFile
	StrictCalibration bool
}

// Error is a failed prediction as reported to JavaScript.
type Error struct {
	// Kind is KindConfig, KindLimit or KindFailed.
	Kind string `json:"kind"`
	// Path is the dotted config path of a config error ("" for whole-file errors).
	Path string `json:"path"`
	// Msg is the message without the path.
	Msg string `json:"msg"`
	// Message is the full human message (`<config>: <path>: <msg>` for config errors).
	Message string `json:"message"`
}

// Result is the outcome of Run: either the output texts or Err.
type Result struct {
	// PredictionJSON is prediction.json.
	PredictionJSON string
	// RequestsJSONL is requests.jsonl ("" without capture).
	RequestsJSONL string
	// SummaryJSON is the compact summary line.
	SummaryJSON string
	// StdoutJSON is what `--format json` prints: SummaryJSON, or the details and the summary
	// when Detail was given.
	StdoutJSON string
	// SaturationText is the saturation section in one sentence (report.SaturationSentence,
	// docs/semantics/outputs.md §3.4), for the docs embed.
	SaturationText string
	// OverviewJSON is the run's report.Overview (the deployment with the catalog ids it
	// resolved to, and the SLA attainment per bound) as encoding/json writes it, for the
	// browser app's deployment line and SLA cards.
	OverviewJSON string
	// HeadlineJSON is the run's report.Headline (the embed cards scaled for display, the SLA
	// cards and the deployment line) as encoding/json writes it, for the docs embed.
	HeadlineJSON string
	// Err is non-nil when the prediction failed.
	Err *Error
}

// limitPanic carries a Check error out of simcore through the Progress callback.
type limitPanic struct{ err error }

// Run performs one prediction and never panics.
func Run(r Request) (res Result) {
	name := r.ConfigName
	if name == "" {
		name = "prediction.yaml"
	}
	defer func() {
		if p := recover(); p != nil {
			if lp, ok := p.(limitPanic); ok {
				res = Result{Err: &Error{Kind: KindLimit, Msg: lp.err.Error(), Message: lp.err.Error()}}
				return
			}
			msg := fmt.Sprintf("aisimulate predict failed: internal error: %v", p)
			res = Result{Err: &Error{Kind: KindFailed, Msg: msg, Message: msg}}
		}
	}()
	progress := r.Progress
	if r.Check != nil {
		progress = func(f float64) {
			if err := r.Check(); err != nil {
				panic(limitPanic{err})
			}
			if r.Progress != nil {
				r.Progress(f)
			}
		}
	}
	var detail []string
	if r.Detail != "" {
		var err error
		if detail, err = report.ParseDetailSections(r.Detail); err != nil {
			msg := "detail: " + err.Error()
			return Result{Err: &Error{Kind: KindConfig, Msg: msg, Message: msg}}
		}
	}
	in := simcore.Input{
		ConfigName:        name,
		Detail:            detail,
		ConfigYAML:        r.YAML,
		Sets:              r.Sets,
		CapturePerRequest: r.CapturePerRequest,
		Clock:             r.Clock,
		FixedWallTimeMs:   r.FixedWallTimeMs,
		Progress:          progress,
		MemoryBudget:      r.MemoryBudget,
		MaxRequests:       r.MaxRequests,
		Calibrations:      r.Calibrations,
		StrictCalibration: r.StrictCalibration,
	}
	if len(r.Files) > 0 {
		in.Files = NewMemFS(r.Files)
	}
	out, err := simcore.Predict(in)
	if err != nil {
		return Result{Err: Classify(name, err)}
	}
	overview, err := json.Marshal(out.Overview)
	if err != nil {
		return Result{Err: Classify(name, err)}
	}
	headline, err := json.Marshal(report.NewHeadline(out.Summary, out.Overview))
	if err != nil {
		return Result{Err: Classify(name, err)}
	}
	return Result{
		HeadlineJSON:   string(headline),
		OverviewJSON:   string(overview),
		PredictionJSON: string(out.PredictionJSON),
		RequestsJSONL:  string(out.RequestsJSONL),
		SummaryJSON:    string(out.SummaryJSON),
		StdoutJSON:     string(out.StdoutJSON),
		SaturationText: report.SaturationSentence(out.Saturation),
	}
}

// Classify turns a Predict error into an Error: *spec.Error is bad input at a field of the
// configuration, *measure.Error bad input in a named file (a calibration profile or a
// measurement: the message names the file and the field, as the CLI's does), the rest
// failures.
func Classify(configName string, err error) *Error {
	var le *simcore.LimitError
	if errors.As(err, &le) {
		return &Error{Kind: KindLimit, Path: le.Path, Msg: le.Msg, Message: configName + ": " + le.Error()}
	}
	var me *measure.Error
	if errors.As(err, &me) {
		return &Error{Kind: KindConfig, Path: me.Field, Msg: me.Msg, Message: me.Error()}
	}
	var se *spec.Error
	if errors.As(err, &se) {
		return &Error{Kind: KindConfig, Path: se.Path, Msg: se.Msg, Message: configName + ": " + se.Error()}
	}
	msg := "aisimulate predict failed: " + err.Error()
	return &Error{Kind: KindFailed, Msg: err.Error(), Message: msg}
}
