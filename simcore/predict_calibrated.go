package simcore

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
	"aisimulate/simcore/uncertainty"
)

// calibrated is calibration profiles applied to one prediction (docs/calibration.md, "Using
// a profile"), in three stages that predictTuned runs: prepare matches every role of the
// configuration to a profile entry and returns the tuning; checkFloors refuses parameters
// below a lowered role's physical floor; finish checks the run's workload against the
// entries' validity domains and builds the calibration section and the calibrated bands.
type calibrated struct {
	files []calibration.ProfileFile
	// strict refuses (a *measure.Error) a role outside its entry's scope or domain.
	strict bool
	// sameEngine applies an entry to a role only when the entry's model, GPU, backend and
	// mode are the deployment's (recommend's candidates); otherwise the best entry always
	// applies (predict).
	sameEngine bool
	// uncalibrated is the default model's summary (nil in a candidate evaluation).
	uncalibrated map[string]any

	matches  map[string]calibration.Match
	warnings []string
	// section, bands, group and ok are finish's: the calibration section and the
	// `intervals` bands and group (ok false when no role uses a profile).
	section map[string]any
	bands   uncertainty.Bands
	group   string
	ok      bool
}

// engineFields are the scope fields an entry must share with a recommend candidate to apply
// to it: a profile corrects one engine on one GPU for one model (docs/calibration.md,
// "recommend").
var engineFields = []string{"model", "hardware", "backend", "mode"}

// loadProfiles validates --calibration files: a bad profile is a *measure.Error naming the
// file and the field (exit 2).
func loadProfiles(named []NamedFile) ([]calibration.ProfileFile, error) {
	var files []calibration.ProfileFile
	for _, f := range named {
		p, err := spec.LoadProfile(f.Data)
		if err != nil {
			return nil, &measure.Error{File: f.Name, Field: err.Path, Msg: err.Msg}
		}
		sum := sha256.Sum256(f.Data)
		files = append(files, calibration.ProfileFile{Name: f.Name, SHA256: hex.EncodeToString(sum[:]), Profile: p})
	}
	return files, nil
}

// newCalibrated loads the profiles of a prediction or a candidate evaluation.
func newCalibrated(named []NamedFile, strict, sameEngine bool) (*calibrated, error) {
	files, err := loadProfiles(named)
	if err != nil {
		return nil, err
	}
	return &calibrated{files: files, strict: strict, sameEngine: sameEngine}, nil
}

// predictCalibrated is Predict with calibration profiles: the default model's prediction
// (the uncalibrated summary), then the calibrated one, whose prediction.json holds both and
// the calibration section. A role outside its entry's scope or validity domain still uses
// it, with a warning (an error with StrictCalibration).
func predictCalibrated(in Input) (*Output, error) {
	cal, err := newCalibrated(in.Calibrations, in.StrictCalibration, false)
	if err != nil {
		return nil, err
	}
	base, err := predictWith(in, nil)
	if err != nil {
		return nil, err
	}
	cal.uncalibrated = base.Summary
	out, err := predictTuned(in, nil, nil, cal)
	if err != nil {
		return nil, err
	}
	out.Warnings = cal.warnings
	return out, nil
}

// prepare matches every role of the configuration to the entry whose scope matches it best
// (calibration.Best) and returns the tuning the lowering applies. A role of another timing
// model gets no calibration (a warning); with sameEngine a role whose best entry is of
// another model, GPU, backend or mode gets none either (no warning: a search proposes such
// candidates by design; with strict it is refused).
func (c *calibrated) prepare(cfg *spec.Config, in *Input) (*tuning, error) {
	scope, err := deploymentScope(cfg, in.Files)
	if err != nil {
		return nil, err
	}
	profiles := make([]*spec.Profile, len(c.files))
	for i, f := range c.files {
		profiles[i] = f.Profile
	}
	c.matches = map[string]calibration.Match{}
	tune := &tuning{roles: map[string]perf.Correction{}, capacity: map[string]float64{}}
	workers := roleWorkers(&cfg.Engine)
	for _, role := range sortedRoles(cfg) {
		if workers[role].Timing.Type != spec.TimingDefault {
			c.warnings = append(c.warnings, "role "+role+" does not use the default timing model: no calibration applies to it")
			continue
		}
		m := calibration.Best(profiles, scope, role)
		if c.sameEngine && m.MismatchesAny(engineFields) {
			if c.strict {
				return nil, &measure.Error{File: c.files[m.Profile].Name, Msg: "--strict-calibration: no entry is of this deployment's model, GPU, backend and mode (role " + role + ")"}
			}
			continue
		}
		f := c.files[m.Profile]
		if !m.InScope() {
			c.warnings = append(c.warnings, f.Name+": role "+role+" is outside the scope of "+entryPath(m.Entry, "scope")+" (differs in "+strings.Join(m.Mismatched, ", ")+lengthsDetail(m, f.Profile.Entries[m.Entry].Scope, scope)+"); its parameters are applied anyway and its bands doubled (docs/calibration.md)")
		}
		p := calibration.FromProfile(f.Profile.Entries[m.Entry].Parameters)
		c.matches[role] = m
		tune.roles[role] = p.Correction()
		if s := p[calibration.KVCapacityScale]; s != 1 {
			tune.capacity[role] = s
		}
		if role == spec.RoleDecode || role == spec.RoleAggregated {
			tune.handoffMs = p[calibration.HandoffMs]
		}
		if role == spec.RolePrefill || role == spec.RoleAggregated {
			// The frontend queue is in front of the pool requests enter (docs/calibration.md,
			// "Frontend queue").
			tune.frontendServiceMs = p[calibration.FrontendServiceMs]
		}
		if role == spec.RoleDecode {
			tune.decodeMaxSequences = int(p[calibration.DecodeMaxSequences])
		}
	}
	return tune, c.strictError()
}

// checkFloors refuses a matched role whose parameters lie below the lowered role's physical
// floor (perf.Default.CorrectionFloor; the hand-off may lose at most its whole default,
// handoffMs: the deployment's hand-off latency before the profile's term is added, as the
// fit's floor has it).
func (c *calibrated) checkFloors(plan *replay.Plan, handoffMs float64) error {
	pools := map[string]*poolTiming{spec.RoleAggregated: {plan.Agg}, spec.RolePrefill: {plan.Prefill}, spec.RoleDecode: {plan.Decode}}
	for _, role := range sortedKeys(c.matches) {
		m := c.matches[role]
		d := pools[role].defaultModel()
		if d == nil {
			continue
		}
		f := c.files[m.Profile]
		p := calibration.FromProfile(f.Profile.Entries[m.Entry].Parameters)
		if name, v, lo := p.Below(calibration.Floor(d.CorrectionFloor(), handoffMs)); name != "" {
			return &measure.Error{File: f.Name, Field: entryPath(m.Entry, "parameters."+name),
				Msg: "is " + strconv.FormatFloat(v, 'g', 6, 64) + ", below " + strconv.FormatFloat(lo, 'g', 6, 64) + ", the physical floor for role " + role + " of this deployment (a pass faster than the GPU's peak, or a negative latency); the profile was not fitted on this deployment's model"}
		}
	}
	return nil
}

// finish checks the run's workload (the configured concurrency or rate and the run's mean
// lengths) against every matched entry's validity domain, then builds the calibration
// section and the bands of the `intervals` object.
func (c *calibrated) finish(cfg *spec.Config, summary map[string]any) error {
	w := workloadOf(cfg, summary)
	for _, role := range sortedKeys(c.matches) {
		m := c.matches[role]
		e := c.files[m.Profile].Profile.Entries[m.Entry]
		m.Outside, m.OutsideLog = calibration.OutsideDomain(e.Domain, w), calibration.OutsideLog(e.Domain, w)
		if len(m.Outside) > 0 {
			c.warnings = append(c.warnings, c.files[m.Profile].Name+": role "+role+" is outside the validity domain of "+entryPath(m.Entry, "domain")+" ("+strings.Join(m.Outside, "; ")+"); its parameters are applied anyway and its bands widened (docs/calibration.md)")
		}
		c.matches[role] = m
	}
	if err := c.strictError(); err != nil {
		return err
	}
	c.section = calibration.Section(c.files, c.matches, c.warnings)
	c.bands, c.group, c.ok = calibration.Intervals(c.files, c.matches)
	return nil
}

// lengthsDetail says how the length draws differ when a match's scope differs in them: a
// profile fitted on one draw is only right for predictions of that draw (docs/calibration.md,
// "Length draws").
func lengthsDetail(m calibration.Match, entry, deployment spec.ProfileScope) string {
	if !m.MismatchesAny([]string{"lengths"}) {
		return ""
	}
	return ": the prediction draws lengths " + deployment.Lengths.String() + ", the entry was fitted on " + entry.Lengths.String()
}

// strictError is the error of a strict calibration with warnings, nil otherwise.
func (c *calibrated) strictError() error {
	if !c.strict || len(c.warnings) == 0 {
		return nil
	}
	return &measure.Error{File: c.files[0].Name, Msg: "--strict-calibration: " + strings.Join(c.warnings, "; ")}
}

// workloadOf is the workload a prediction's validity domain is checked against: the
// configured concurrency or rate, and the mean lengths the run had, or for a synthetic source
// that draws its lengths the configured lengths the draw is around (as the domain records
// them, calibration.Domain).
func workloadOf(cfg *spec.Config, summary map[string]any) calibration.Workload {
	f := func(k string) float64 { v, _ := report.Number(summary[k]); return v }
	var w calibration.Workload
	if l := cfg.Traffic.Load; l.Type == spec.LoadConcurrency {
		w.Concurrency = float64(l.Concurrency)
	} else if l.RequestsPerSecond != nil {
		w.RequestRate = *l.RequestsPerSecond
	}
	if src := cfg.Traffic.Source; !src.Lengths.Constant() {
		w.ISL, w.OSL = float64(src.InputTokens), float64(src.OutputTokens)
		return w
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
	return sortedKeys(roleWorkers(&cfg.Engine))
}

// sortedKeys are a map's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// entryPath is the dotted path of a field of the i-th profile entry.
func entryPath(i int, field string) string {
	return "entries[" + strconv.Itoa(i) + "]." + field
}
