package calibration

import (
	"fmt"
	"strings"

	"aisimulate/simcore/spec"
)

// FitRow is one measurement in the fit report: its measured means, the default model's
// replay (uncalibrated) and the replay under its entry's fitted parameters (calibrated).
type FitRow struct {
	Measurement                        string
	Entry                              int
	Measured, Uncalibrated, Calibrated Metrics
	// AtBound names the entry's parameters that ended on a physical bound.
	AtBound []string
}

// Keys of the fit report's JSON (`calibrate --format json`).
const (
	keyMeasurements = "measurements"
	keyEntries      = "entries"
	keyName         = "measurement"
	keyEntry        = "entry"
	keyMeasured     = "measured"
	keyUncalibrated = "uncalibrated"
	keyCalibrated   = "calibrated"
	keyResidual     = "residual"
	keyParameters   = "parameters"
	keyAtBound      = "at_bound"
	keyScope        = "scope"
	// keyWarnings (section.go) names the warnings, as in prediction.json's calibration section.
)

// metricKeys name Metrics fields in the report, as prediction.json's summary keys name the
// same means.
var metricKeys = [4]string{"mean_ttft_ms", "mean_tpot_ms", "mean_e2e_latency_ms", "output_throughput_tok_s"}

func (m Metrics) values() [4]float64 { return [4]float64{m.TTFT, m.TPOT, m.E2E, m.OutputThroughput} }

func (m Metrics) tree() map[string]any {
	t := map[string]any{}
	for i, v := range m.values() {
		t[metricKeys[i]] = v
	}
	return t
}

// FitJSON is the fit report as one JSON object: every measurement's measured,
// uncalibrated and calibrated means and the calibrated relative residual (calibrated /
// measured − 1), every entry's scope, parameters and bound parameters, and the warnings
// about the measurements (always an array, empty when there are none).
func FitJSON(rows []FitRow, entries []spec.ProfileEntry, warnings []string) map[string]any {
	ms := make([]any, len(rows))
	for i, r := range rows {
		res := map[string]any{}
		cal, mea := r.Calibrated.values(), r.Measured.values()
		for k := range metricKeys {
			res[metricKeys[k]] = cal[k]/mea[k] - 1
		}
		ms[i] = map[string]any{keyName: r.Measurement, keyEntry: r.Entry, keyMeasured: r.Measured.tree(),
			keyUncalibrated: r.Uncalibrated.tree(), keyCalibrated: r.Calibrated.tree(), keyResidual: res}
	}
	es := make([]any, len(entries))
	for i, e := range entries {
		p := FromProfile(e.Parameters)
		params := p.Tree()
		bound := []string{}
		for _, r := range rows {
			if r.Entry == i {
				bound = append(bound, r.AtBound...)
				break
			}
		}
		es[i] = map[string]any{keyScope: scopeText(e.Scope), keyParameters: params, keyAtBound: bound}
	}
	ws := make([]any, len(warnings))
	for i, w := range warnings {
		ws[i] = w
	}
	return map[string]any{keyMeasurements: ms, keyEntries: es, keyWarnings: ws}
}

// scopeText is a one-line description of a scope (its length draw when not constant).
func scopeText(s spec.ProfileScope) string {
	v := s.BackendVersion
	if v != "" {
		v = " " + v
	}
	lengths := ""
	if s.Lengths != nil {
		lengths = ", lengths " + s.Lengths.String()
	}
	return fmt.Sprintf("%s on %s, %s%s, %s%s", s.Model, s.Hardware, s.Backend, v, s.Mode, lengths)
}

// Table is the fit report for the terminal: per entry its scope and parameters, then per
// measurement the mean TTFT and TPOT measured, uncalibrated, calibrated and the calibrated
// residual.
func Table(rows []FitRow, entries []spec.ProfileEntry) string {
	var b strings.Builder
	for i, e := range entries {
		p := FromProfile(e.Parameters)
		fmt.Fprintf(&b, "entry %d: %s\n  parameters:", i, scopeText(e.Scope))
		p.Fields(func(name string, v float64) { fmt.Fprintf(&b, " %s %.4g", name, v) })
		b.WriteString("\n")
		for _, r := range rows {
			if r.Entry == i && len(r.AtBound) > 0 {
				fmt.Fprintf(&b, "  at a physical bound: %s\n", strings.Join(r.AtBound, ", "))
				break
			}
		}
	}
	fmt.Fprintf(&b, "\n%-40s %5s | %10s %10s %10s %7s | %9s %9s %9s %7s\n", "measurement", "entry",
		"TTFT ms", "uncal.", "calib.", "resid.", "TPOT ms", "uncal.", "calib.", "resid.")
	for _, r := range rows {
		name := r.Measurement
		if len(name) > 40 {
			name = "…" + name[len(name)-39:]
		}
		fmt.Fprintf(&b, "%-40s %5d | %10.1f %10.1f %10.1f %+6.1f%% | %9.2f %9.2f %9.2f %+6.1f%%\n", name, r.Entry,
			r.Measured.TTFT, r.Uncalibrated.TTFT, r.Calibrated.TTFT, 100*(r.Calibrated.TTFT/r.Measured.TTFT-1),
			r.Measured.TPOT, r.Uncalibrated.TPOT, r.Calibrated.TPOT, 100*(r.Calibrated.TPOT/r.Measured.TPOT-1))
	}
	return b.String()
}
