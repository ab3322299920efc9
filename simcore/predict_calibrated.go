package simcore

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
	"aisimulate/simcore/uncertainty"
)

// calibrated is what a calibration profile adds to prediction.json: the uncalibrated
// summary and the calibration section, and the bands and group of the `intervals` object
// (source "calibration"; ok false when no role uses a profile).
type calibrated struct {
	uncalibrated, section map[string]any
	bands                 uncertainty.Bands
	group                 string
	ok                    bool
}

// predictCalibrated is Predict with calibration profiles (docs/calibration.md, "Using a
// profile"): every role of the deployment uses the profile entry whose scope matches it
// best; a role outside that entry's scope or validity domain still uses it, with a warning
// (an error with StrictCalibration); parameters below the role's physical floor are refused.
// prediction.json holds the calibrated summary, the default model's (uncalibrated) and the
// calibration section.
func predictCalibrated(in Input) (*Output, error) {
	var files []calibration.ProfileFile
	var profiles []*spec.Profile
	for _, f := range in.Calibrations {
		p, err := spec.LoadProfile(f.Data)
		if err != nil {
			return nil, &measure.Error{File: f.Name, Field: err.Path, Msg: err.Msg}
		}
		sum := sha256.Sum256(f.Data)
		files = append(files, calibration.ProfileFile{Name: f.Name, SHA256: hex.EncodeToString(sum[:]), Profile: p})
		profiles = append(profiles, p)
	}
	cfg, err := spec.LoadConfig(in.ConfigYAML, in.Sets)
	if err != nil {
		return nil, err
	}
	scope, err := deploymentScope(cfg, in.Files)
	if err != nil {
		return nil, err
	}
	plan, _, err := lower(cfg, &in)
	if err != nil {
		return nil, err
	}
	base, err := predictWith(in, nil)
	if err != nil {
		return nil, err
	}
	w := workloadOf(cfg, base.Summary)
	matches := map[string]calibration.Match{}
	tune := &tuning{roles: map[string]perf.Correction{}}
	var warnings []string
	pools := map[string]*poolTiming{spec.RoleAggregated: {plan.Agg}, spec.RolePrefill: {plan.Prefill}, spec.RoleDecode: {plan.Decode}}
	for _, role := range sortedRoles(cfg) {
		d := pools[role].defaultModel()
		if d == nil {
			warnings = append(warnings, "role "+role+" does not use the default timing model: no calibration applies to it")
			continue
		}
		m := calibration.Best(profiles, scope, role)
		f := files[m.Profile]
		e := f.Profile.Entries[m.Entry]
		p := calibration.FromProfile(e.Parameters)
		if name, v, lo := p.Below(calibration.Floor(d.CorrectionFloor(), plan.Transfer.HandoffMs)); name != "" {
			return nil, &measure.Error{File: f.Name, Field: entryPath(m.Entry, "parameters."+name),
				Msg: "is " + strconv.FormatFloat(v, 'g', 6, 64) + ", below " + strconv.FormatFloat(lo, 'g', 6, 64) + ", the physical floor for role " + role + " of this deployment (a pass faster than the GPU's peak, or a negative latency); the profile was not fitted on this deployment's model"}
		}
		m.Outside, m.OutsideLog = calibration.OutsideDomain(e.Domain, w), calibration.OutsideLog(e.Domain, w)
		if !m.InScope() {
			warnings = append(warnings, f.Name+": role "+role+" is outside the scope of "+entryPath(m.Entry, "scope")+" (differs in "+strings.Join(m.Mismatched, ", ")+"); its parameters are applied anyway and its bands doubled (docs/calibration.md)")
		}
		if len(m.Outside) > 0 {
			warnings = append(warnings, f.Name+": role "+role+" is outside the validity domain of "+entryPath(m.Entry, "domain")+" ("+strings.Join(m.Outside, "; ")+"); its parameters are applied anyway and its bands widened (docs/calibration.md)")
		}
		matches[role] = m
		tune.roles[role] = p.Correction()
		if role == spec.RoleDecode || role == spec.RoleAggregated {
			tune.handoffMs = p[calibration.HandoffMs]
		}
	}
	if in.StrictCalibration && len(warnings) > 0 {
		return nil, &measure.Error{File: files[0].Name, Msg: "--strict-calibration: " + strings.Join(warnings, "; ")}
	}
	cal := &calibrated{uncalibrated: base.Summary, section: calibration.Section(files, matches, warnings)}
	cal.bands, cal.group, cal.ok = calibration.Intervals(files, matches)
	out, err := predictTuned(in, tune, nil, cal)
	if err != nil {
		return nil, err
	}
	out.Warnings = warnings
	return out, nil
}

// workloadOf is the workload a prediction's validity domain is checked against: the
// configured concurrency or rate, and the mean lengths the run had.
func workloadOf(cfg *spec.Config, summary map[string]any) calibration.Workload {
	f := func(k string) float64 { v, _ := report.Number(summary[k]); return v }
	var w calibration.Workload
	if l := cfg.Traffic.Load; l.Type == spec.LoadConcurrency {
		w.Concurrency = float64(l.Concurrency)
	} else if l.RequestsPerSecond != nil {
		w.RequestRate = *l.RequestsPerSecond
	}
	if n := f(report.KeyNumRequests); n > 0 {
		w.ISL = float64(int(f(report.KeyTotalInputTokens)/n + 0.5))
	}
	if n := f(report.KeyCompletedRequests); n > 0 {
		w.OSL = float64(int(f(report.KeyTotalOutputTokens)/n + 0.5))
	}
	return w
}

// sortedRoles are the configuration's roles in name order.
func sortedRoles(cfg *spec.Config) []string {
	var roles []string
	for r := range roleWorkers(&cfg.Engine) {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	return roles
}

// entryPath is the dotted path of a field of the i-th profile entry.
func entryPath(i int, field string) string {
	return "entries[" + strconv.Itoa(i) + "]." + field
}
