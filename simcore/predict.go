// Package simcore is the simulator: one entry point, Predict, that every target (the wasip1
// CLI module, the browser worker, the edge worker) calls with the same inputs and that
// returns the same bytes everywhere. It performs no I/O of its own: files come in through an
// fs.FS and the wall clock through a function.
package simcore

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/outputs"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// Input is everything one prediction needs.
type Input struct {
	// ConfigName names the configuration in error messages (the --config path).
	ConfigName string
	// ConfigYAML is the configuration text.
	ConfigYAML []byte
	// Sets are --set PATH=YAML_VALUE assignments, applied left to right.
	Sets []string
	// CapturePerRequest asks for per-request records (requests.jsonl, per_request).
	CapturePerRequest bool
	// Detail lists the requested detail sections (report.DetailSections names, as
	// report.ParseDetailSections returns them); none means no `details` object.
	Detail []string
	// Files opens trace paths and local model directories exactly as the configuration
	// writes them (the CLI opens them like the OS, relative to its working directory; the
	// browser and the edge serve uploaded files by name); nil means no files.
	Files fs.FS
	// Clock returns a monotonic time in milliseconds for the wall-time keys; nil → 0.
	Clock func() float64
	// FixedWallTimeMs, when non-nil, replaces the measured wall time (golden-test hook,
	// EnvFixedWallTimeMs).
	FixedWallTimeMs *float64
	// Progress, when non-nil, is called now and then with the fraction of work done (0..1).
	Progress func(fraction float64)
	// MemoryBudget is the memory, in bytes, the run may need by the estimate made before it
	// starts (budget.go); a larger run is refused with a *spec.Error. 0 = DefaultMemoryBudget.
	MemoryBudget int64
	// MaxRequests, when positive, refuses with a *LimitError a run of more requests (a
	// synthetic stop rule's count, a trace's requests after decompression and expansion).
	MaxRequests int
	// StreamOutputs leaves Output.PredictionJSON and Output.RequestsJSONL nil: the caller
	// writes them with Output.WriteOutputs (the CLI, into its temporary files).
	StreamOutputs bool
	// Calibrations are calibration profiles (--calibration, docs/calibration.md): every role
	// uses the entry matching it best, and prediction.json gains the uncalibrated summary
	// and a calibration section.
	Calibrations []NamedFile
	// StrictCalibration refuses (a *measure.Error, exit 2) a prediction outside a profile's
	// scope or validity domain instead of warning.
	StrictCalibration bool
}

// EnvFixedWallTimeMs names the environment variable (CLI) or deployment binding (edge) that
// sets Input.FixedWallTimeMs: the golden-test hook replacing the measured wall time
// (docs/semantics/outputs.md §3.3).
const EnvFixedWallTimeMs = "AISIMULATE_FIXED_WALL_TIME_MS"

// ProgressSteps is the number of event-loop steps between two Progress calls, so a caller can
// turn the number of calls into a work budget.
const ProgressSteps = replay.ProgressSteps

// Output is the result of a successful prediction.
type Output struct {
	// PredictionJSON is prediction.json: pretty canonical JSON ending in one newline; nil
	// with Input.StreamOutputs.
	PredictionJSON []byte
	// RequestsJSONL is requests.jsonl (one compact record per line), nil without capture
	// and with Input.StreamOutputs.
	RequestsJSONL []byte
	// WriteOutputs writes prediction.json to its first writer and, with capture,
	// requests.jsonl to its second (the same bytes as PredictionJSON and RequestsJSONL),
	// encoding one per-request record at a time, once for both files, so captured records
	// are never all held in memory (docs/robustness.md, "Memory").
	WriteOutputs func(pred, reqs io.Writer) error
	// SummaryJSON is the summary object in compact canonical JSON plus a newline.
	SummaryJSON []byte
	// StdoutJSON is the `--format json` standard output: SummaryJSON, or the details and
	// the summary when detail sections were requested (docs/semantics/outputs.md §7.1).
	StdoutJSON []byte
	// Summary is the summary object itself (for the table view and the UI).
	Summary map[string]any
	// Overview is the deployment and the SLA attainment, for the readable table.
	Overview *report.Overview
	// Saturation is the saturation section of prediction.json (docs/semantics/outputs.md
	// §3.4), for the tables and report.SaturationSentence.
	Saturation map[string]any
	// Steps is the event-loop steps the simulation took (replay.Result.Steps), which a
	// candidate's work budget is checked against once the run is over.
	Steps int64
	// Intervals is prediction.json's `intervals` object (docs/uncertainty.md), nil for a
	// timing that is not the default model's.
	Intervals map[string]any
	// Warnings are said on stderr by the CLI (and are in prediction.json's calibration
	// section): a calibration profile applied outside its scope or validity domain.
	Warnings []string
}

// Predict runs one prediction: decode and validate the configuration, resolve model,
// hardware and traffic, simulate, and encode the outputs. A *spec.Error is bad input
// (exit 2); any other error is an execution failure (exit 1).
func Predict(in Input) (*Output, error) {
	if len(in.Calibrations) > 0 {
		return predictCalibrated(in)
	}
	return predictWith(in, nil)
}

// predictWith is Predict with a hook that may adjust the lowered plan (tests).
func predictWith(in Input, adjust func(*replay.Plan)) (*Output, error) {
	return predictTuned(in, nil, adjust, nil)
}

// predictTuned is predictWith with a tuning applied (nil: the default model), or with
// calibration profiles (cal non-nil: their tuning, their bands in `intervals`, and with an
// uncalibrated summary the calibration sections of prediction.json).
func predictTuned(in Input, tune *tuning, adjust func(*replay.Plan), cal *calibrated) (*Output, error) {
	details, err := outputs.Details(in.Detail)
	if err != nil {
		return nil, spec.At("", err) // a bad --detail value is bad input (exit 2)
	}
	cfg, err := spec.LoadConfig(in.ConfigYAML, in.Sets)
	if err != nil {
		return nil, err
	}
	if cal != nil {
		if tune, err = cal.prepare(cfg, &in); err != nil {
			return nil, err
		}
	}
	plan, acc, err := lowerTuned(cfg, &in, tune)
	if err != nil {
		return nil, err
	}
	if cal != nil {
		if err := cal.checkFloors(plan, plan.Transfer.HandoffMs-tune.handoff()); err != nil {
			return nil, err
		}
	}
	if adjust != nil {
		adjust(plan)
	}
	if err := checkPlanMemory(cfg, plan, &in); err != nil {
		return nil, err
	}
	t0 := 0.0
	if in.Clock != nil {
		t0 = in.Clock()
	}
	res := replay.Run(plan)
	if plan.CutoffMs == 0 && (plan.Stop == nil || !plan.Stop.Stopped) {
		// Without a virtual-time cutoff (or a stop rule that stopped the run: calibration's
		// replays) every request must reach a terminal state; anything
		// else is a simulator defect, reported instead of a silently wrong prediction.
		pending := 0
		for i := 0; i < res.Outcomes.Len(); i++ {
			if res.Outcomes.At(i).Status == engine.Pending {
				pending++
			}
		}
		if pending > 0 {
			return nil, fmt.Errorf("internal error: the simulation ended with %d of %d requests unfinished; please report this configuration", pending, res.Outcomes.Len())
		}
	}
	wall := 0.0
	if in.Clock != nil {
		wall = in.Clock() - t0
	}
	if in.FixedWallTimeMs != nil {
		wall = *in.FixedWallTimeMs
	}
	acc.WallTimeMs = wall
	summary := outputs.Summary(res, acc)
	doc := &outputs.Document{
		CapturePerRequest: in.CapturePerRequest,
		Summary:           summary,
		Saturation:        outputs.Saturation(res, plan.Disaggregated, summary[report.KeyRequestThroughputRPS].(float64)),
		Details:           details,
	}
	if res.PlannerSection != nil {
		doc.Planner = res.PlannerSection // a disabled planner's section stays null
	}
	if cal != nil {
		if err := cal.finish(cfg, summary); err != nil {
			return nil, err
		}
		if cal.uncalibrated != nil {
			doc.Uncalibrated, doc.Calibration = cal.uncalibrated, cal.section
		}
	}
	doc.Intervals = intervals(cfg, doc.Summary, cal)
	out := &Output{Summary: doc.Summary, Intervals: doc.Intervals, Overview: outputs.NewOverview(cfg, acc, res), Saturation: doc.Saturation,
		WriteOutputs: doc.WriteOutputs, Steps: res.Steps}
	out.Overview.Intervals = doc.Intervals
	if cal != nil {
		out.Overview.Uncalibrated = cal.uncalibrated
	}
	if in.CapturePerRequest {
		order := outputs.RecordOrder(res)
		var h engine.History
		doc.Stream = &outputs.RecordStream{Len: len(order), Append: func(compact, pretty []byte, i int) ([]byte, []byte, error) {
			return outputs.AppendRecordBoth(compact, pretty, res, order[i], plan.Disaggregated, &h)
		}}
	}
	if !in.StreamOutputs {
		var b, r bytes.Buffer
		if err := doc.WriteOutputs(&b, &r); err != nil {
			return nil, err
		}
		out.PredictionJSON = b.Bytes()
		if in.CapturePerRequest {
			out.RequestsJSONL = r.Bytes()
		}
	}
	if out.SummaryJSON, err = doc.SummaryJSON(); err != nil {
		return nil, err
	}
	if out.StdoutJSON, err = doc.StdoutJSON(); err != nil {
		return nil, err
	}
	return out, nil
}
