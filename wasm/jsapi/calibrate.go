package jsapi

import (
	"fmt"

	"aisimulate/simcore"
	"aisimulate/simcore/spec"
)

// CalibrateRequest is one calibration as a JavaScript target receives it (the browser's
// Predict view calibrates uploaded benchmark files in the page, docs/web.md).
type CalibrateRequest struct {
	// ConfigName and YAML are the deployment (--config); YAML nil for measured-runs CSV
	// rows, which carry their own.
	ConfigName string
	YAML       []byte
	// Measurements are the benchmark files, in order.
	Measurements []simcore.NamedFile
	// Files are uploaded files the configuration names (local model directories).
	Files map[string][]byte
	// Lengths is the length draw of the files that record none, as calibrate's --lengths
	// text (nil: constant lengths; docs/calibration.md, "Length draws").
	Lengths []byte
}

// CalibrateResult is the outcome of Calibrate: the profile and the fit report, or Err.
type CalibrateResult struct {
	// ProfileJSON is calibration.json.
	ProfileJSON string
	// Table and StdoutJSON are the fit report as `calibrate` prints it.
	Table, StdoutJSON string
	// Warnings are what `calibrate` says on stderr (simcore.CalibrateOutput.Warnings).
	Warnings []string
	// Err is non-nil when the calibration failed (KindConfig for a bad file or
	// configuration).
	Err *Error
}

// Calibrate runs simcore.Calibrate and never panics.
func Calibrate(r CalibrateRequest) (res CalibrateResult) {
	name := r.ConfigName
	if name == "" {
		name = "deployment.yaml"
	}
	defer func() {
		if p := recover(); p != nil {
			msg := fmt.Sprintf("aisimulate calibrate failed: internal error: %v", p)
			res = CalibrateResult{Err: &Error{Kind: KindFailed, Msg: msg, Message: msg}}
		}
	}()
	in := simcore.CalibrateInput{ConfigName: name, ConfigYAML: r.YAML, Measurements: r.Measurements}
	if r.Lengths != nil {
		l, err := spec.ParseLengths("lengths", r.Lengths)
		if err != nil {
			se := err.(*spec.Error)
			return CalibrateResult{Err: &Error{Kind: KindConfig, Path: se.Path, Msg: se.Msg, Message: se.Error()}}
		}
		in.Lengths = l
	}
	if len(r.Files) > 0 {
		in.Files = NewMemFS(r.Files)
	}
	out, err := simcore.Calibrate(in)
	if err != nil {
		return CalibrateResult{Err: Classify(name, err)}
	}
	return CalibrateResult{ProfileJSON: string(out.ProfileJSON), Table: out.Table, StdoutJSON: string(out.StdoutJSON), Warnings: out.Warnings}
}
