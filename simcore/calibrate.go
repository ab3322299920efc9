package simcore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/canon"
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// NamedFile is a file handed to the core: the name it was given as and its bytes.
type NamedFile struct {
	Name string `json:"name"`
	// Data is the file's bytes (base64 in JSON, so they cross a boundary exactly).
	Data []byte `json:"data"`
}

// CalibrateInput is everything one calibration needs (`aisimulate calibrate`,
// docs/calibration.md).
type CalibrateInput struct {
	// ConfigName and ConfigYAML are the deployment (--config); ConfigYAML nil when none was
	// given (measured-runs CSV rows carry their own deployment).
	ConfigName string
	ConfigYAML []byte
	// Measurements are the measurement files, in the order given.
	Measurements []NamedFile
	// Files opens local model directories the configuration names (as Input.Files).
	Files fs.FS
	// Lengths is the length draw of the measurements whose files record none (--lengths;
	// docs/calibration.md, "Length draws"); the zero value is constant lengths.
	Lengths spec.Lengths
}

// CalibrateOutput is the result of a calibration.
type CalibrateOutput struct {
	// ProfileJSON is calibration.json (pretty canonical JSON).
	ProfileJSON []byte
	// RowConfigs are the prediction configurations of measured-runs CSV rows, named
	// "configs/<row id>.yaml".
	RowConfigs []NamedFile
	// Fit is every measurement's fit report, in input order.
	Fit []calibration.FitRow
	// Warnings are about the measurements themselves (loadWarnings): said on stderr by the
	// CLI, in the `--format json` report and shown by the browser; the fit is the same
	// without them.
	Warnings []string
	// Table is the fit report for the terminal; StdoutJSON the `--format json` line.
	Table      string
	StdoutJSON []byte
}

// RowConfigDir is the directory of the CSV rows' configurations inside the output directory.
const RowConfigDir = "configs"

// Calibrate reads the measurements, replays each one's workload on its deployment, fits one
// set of parameters per deployment and returns the profile (docs/calibration.md). A
// *spec.Error or *measure.Error is bad input (exit 2); nothing is returned half-done.
func Calibrate(in CalibrateInput) (*CalibrateOutput, error) {
	points, inputs, err := readMeasurements(&in)
	if err != nil {
		return nil, err
	}
	out := &CalibrateOutput{Warnings: loadWarnings(points)}
	if err := rowConfigs(points, out); err != nil {
		return nil, err
	}
	keys, groups := byDeployment(points)
	prof := spec.Profile{SchemaVersion: spec.ProfileSchemaVersion, Program: "aisimulate " + Version}
	rows := make(map[*measuredPoint]calibration.FitRow, len(points))
	for entry, key := range keys {
		e, fit, err := fitDeployment(groups[key], inputs)
		if err != nil {
			return nil, err
		}
		prof.Entries = append(prof.Entries, *e)
		ws, err := floorWarnings(groups[key], fit.Uncalibrated)
		if err != nil {
			return nil, err
		}
		out.Warnings = append(out.Warnings, ws...)
		out.Warnings = append(out.Warnings, unexplainedWarnings(groups[key], fit.Calibrated)...)
		for i, p := range groups[key] {
			rows[p] = calibration.FitRow{Measurement: p.m.Name(), Entry: entry, Measured: calibration.MeasuredMetrics(p.m),
				Uncalibrated: fit.Uncalibrated[i], Calibrated: fit.Calibrated[i], AtBound: fit.AtBound}
		}
	}
	for _, p := range points {
		out.Fit = append(out.Fit, rows[p])
	}
	if out.ProfileJSON, err = encodeProfile(&prof); err != nil {
		return nil, err
	}
	out.Table = calibration.Table(out.Fit, prof.Entries)
	if out.StdoutJSON, err = canon.Compact(calibration.FitJSON(out.Fit, prof.Entries, out.Warnings)); err != nil {
		return nil, err
	}
	out.StdoutJSON = append(out.StdoutJSON, '\n')
	return out, nil
}

// MeasurementWarnings are the warnings Calibrate gives about the measurements themselves
// (CalibrateOutput.Warnings), without fitting: the measurements are read and checked as
// Calibrate reads them, those with a length draw are replayed under the default model (and
// at its physical floor where they could be below it, floorWarnings), and an error is
// Calibrate's.
func MeasurementWarnings(in CalibrateInput) ([]string, error) {
	points, _, err := readMeasurements(&in)
	if err != nil {
		return nil, err
	}
	ws := loadWarnings(points)
	keys, groups := byDeployment(points)
	for _, key := range keys {
		ps := groups[key]
		uncal := make([]calibration.Metrics, len(ps))
		for i, p := range ps {
			if !floorChecked(p) {
				continue
			}
			if uncal[i], err = replayMeasurement(p, calibration.Identity); err != nil {
				return nil, err
			}
		}
		fw, err := floorWarnings(ps, uncal)
		if err != nil {
			return nil, err
		}
		ws = append(ws, fw...)
	}
	return ws, nil
}

// byDeployment groups the measurements by deployment (profile entry), the deployments in the
// order they first appear.
func byDeployment(points []*measuredPoint) (keys []string, groups map[string][]*measuredPoint) {
	groups = map[string][]*measuredPoint{}
	for _, p := range points {
		if _, ok := groups[p.key]; !ok {
			keys = append(keys, p.key)
		}
		groups[p.key] = append(groups[p.key], p)
	}
	return keys, groups
}

// readMeasurements reads every measurement file and pairs each measurement with its replay
// configuration, checking that its deployment can hold its load; inputs are the files'
// provenance by name.
func readMeasurements(in *CalibrateInput) (points []*measuredPoint, inputs map[string]spec.ProfileInput, err error) {
	if len(in.Measurements) == 0 {
		return nil, nil, &spec.Error{Path: "--measurements", Msg: "give at least one measurement file"}
	}
	inputs = map[string]spec.ProfileInput{}
	for _, f := range in.Measurements {
		ms, err := measure.Read(f.Name, f.Data)
		if err != nil {
			return nil, nil, err
		}
		sum := sha256.Sum256(f.Data)
		inputs[f.Name] = spec.ProfileInput{File: f.Name, Format: ms[0].Format, SHA256: hex.EncodeToString(sum[:])}
		for i := range ms {
			p, err := prepareMeasurement(in, &ms[i])
			if err != nil {
				return nil, nil, err
			}
			if err := checkHoldsLoad(p); err != nil {
				return nil, nil, err
			}
			points = append(points, p)
		}
	}
	return points, inputs, nil
}

// measuredPoint is one measurement with the configuration that replays it.
type measuredPoint struct {
	m          *measure.Measurement
	configName string
	configYAML []byte
	sets       []string
	cfg        *spec.Config
	scope      spec.ProfileScope
	key        string // the scope's canonical JSON: the deployment it belongs to
	files      fs.FS
	// stopWindows is where the replays stop (replay.StopRule.Windows): 0 until the first
	// replay settles it, -1 for a replay that runs to the end.
	stopWindows int
}

// prepareMeasurement pairs a measurement with its replay configuration: the --config
// deployment under the measurement's workload, or for a CSV row without --config the row's
// own deployment. A measurement that contradicts --config (another model, GPU, backend or
// mode) is refused naming the file and the field.
func prepareMeasurement(in *CalibrateInput, m *measure.Measurement) (*measuredPoint, error) {
	p := &measuredPoint{m: m}
	if err := applyLengths(m, in.Lengths); err != nil {
		return nil, err
	}
	switch {
	case in.ConfigYAML != nil:
		p.configName, p.configYAML, p.sets = in.ConfigName, in.ConfigYAML, calibration.TrafficSets(m)
	case m.Row != nil:
		p.configName, p.configYAML = m.Name(), spec.EmitYAML(calibration.RowConfig(m))
	default:
		return nil, &measure.Error{File: m.File, Msg: measure.NoDeploymentMsg}
	}
	p.files = in.Files
	cfg, err := spec.LoadConfig(p.configYAML, p.sets)
	if err != nil {
		return nil, rowError(m, in, err)
	}
	p.cfg = cfg
	for name, w := range roleWorkers(&cfg.Engine) {
		if w.Timing.Type != spec.TimingDefault {
			return nil, &spec.Error{Path: spec.WorkerPath(name, "timing.type"), Msg: "calibration corrects the default timing model; this role uses " + w.Timing.Type + " timing"}
		}
	}
	if p.scope, err = deploymentScope(cfg, in.Files); err != nil {
		return nil, rowError(m, in, err)
	}
	if err := contradiction(m, p.scope, in.Files); err != nil {
		return nil, err
	}
	key, _ := json.Marshal(p.scope)
	p.key = string(key)
	return p, nil
}

// applyLengths gives a measurement whose file records no length draw the --lengths one
// (docs/calibration.md, "Length draws"). A file that records a draw other than a given
// --lengths is refused: one of the two is wrong about how the run was measured.
func applyLengths(m *measure.Measurement, l spec.Lengths) error {
	if !m.LengthsRecorded {
		m.Lengths = l
		return nil
	}
	if !l.Constant() && l.String() != m.Lengths.String() {
		return &measure.Error{File: m.File, Field: m.ID, Msg: "the file records the length draw " + m.Lengths.String() + " but --lengths gives " + l.String() + "; calibrate this file without --lengths"}
	}
	return nil
}

// rowError places an error of a CSV row's own configuration at the row.
func rowError(m *measure.Measurement, in *CalibrateInput, err error) error {
	if in.ConfigYAML == nil && m.Row != nil {
		return &measure.Error{File: m.File, Field: "row " + m.ID, Msg: err.Error()}
	}
	return err
}

// contradiction refuses a measurement whose recorded model (when both names resolve to
// catalog models), GPU, backend or mode differs from the deployment it is replayed on.
func contradiction(m *measure.Measurement, s spec.ProfileScope, files fs.FS) error {
	field, has, want := "", "", ""
	if m.Model != "" {
		got, err1 := catalog.LookupModel(m.Model, files)
		cfg, err2 := catalog.LookupModel(s.Model, files)
		if err1 == nil && err2 == nil && !sameArchitecture(got, cfg) {
			field, has, want = "model", got.ID, s.Model
		}
	}
	if r := m.Row; r != nil && field == "" {
		mode := spec.ModeAggregated
		if r.Mode == measure.ModeDisagg {
			mode = spec.ModeDisaggregated
		}
		switch {
		case r.System != s.Hardware:
			field, has, want = "system", r.System, s.Hardware
		case r.Backend != s.Backend:
			field, has, want = "backend", r.Backend, s.Backend
		case mode != s.Mode:
			field, has, want = "mode", r.Mode, s.Mode
		}
	}
	if field == "" {
		return nil
	}
	if m.Row != nil {
		field = "row " + m.ID + ": " + field
	}
	return &measure.Error{File: m.File, Field: field, Msg: fmt.Sprintf("the measurement is of %q but --config describes %q; calibrate each deployment with its own configuration", has, want)}
}

// sameArchitecture reports whether two catalog models have the same shape for the timing
// model (an instruction-tuned release and its base model do; another size does not).
func sameArchitecture(a, b *catalog.Model) bool {
	return a.Arch == b.Arch && a.Layers == b.Layers && a.Hidden == b.Hidden && a.Heads == b.Heads &&
		a.KVHeads == b.KVHeads && a.HeadDim == b.HeadDim && a.Experts == b.Experts && a.TopK == b.TopK
}

// rowConfigs adds the configuration of every CSV row replayed on its own deployment,
// refusing two rows of one id (their files would collide).
func rowConfigs(points []*measuredPoint, out *CalibrateOutput) error {
	seen := map[string]string{}
	for _, p := range points {
		if p.m.Row == nil || p.sets != nil {
			continue
		}
		name := RowConfigDir + "/" + safeFileName(p.m.ID) + ".yaml"
		if other, ok := seen[name]; ok {
			return &measure.Error{File: p.m.File, Field: "row " + p.m.ID, Msg: "its configuration file " + name + " would replace that of row " + other + "; give rows distinct ids"}
		}
		seen[name] = p.m.ID
		out.RowConfigs = append(out.RowConfigs, NamedFile{Name: name, Data: p.configYAML})
	}
	return nil
}

// safeFileName turns a row id into a file name that stays in its directory: letters,
// digits, '-', '_' and '.' are kept, anything else (a '/', a space) becomes '_', and a
// leading '.' becomes '_' (no "..", no hidden file).
func safeFileName(id string) string {
	b := []byte(id)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok || (i == 0 && c == '.') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "_"
	}
	return string(b)
}

// fitDeployment fits the parameters of one deployment's measurements and builds its entry.
func fitDeployment(ps []*measuredPoint, inputs map[string]spec.ProfileInput) (*spec.ProfileEntry, *calibration.Fitted, error) {
	floor, err := physicalFloor(ps[0])
	if err != nil {
		return nil, nil, err
	}
	points := make([]calibration.Point, len(ps))
	measured := make([]calibration.Metrics, len(ps))
	for i, p := range ps {
		p := p
		measured[i] = calibration.MeasuredMetrics(p.m)
		sur, err := measurementSurrogate(p)
		if err != nil {
			return nil, nil, err
		}
		points[i] = calibration.Point{Measured: measured[i], Disaggregated: p.scope.Mode == spec.ModeDisaggregated,
			Replay: func(q calibration.Params) (calibration.Metrics, error) { return replayMeasurement(p, q) }, Surrogate: sur}
	}
	fit, err := fitWithCapacity(ps, points, floor)
	if err != nil {
		return nil, nil, err
	}
	e := &spec.ProfileEntry{Scope: ps[0].scope, Parameters: fit.Params.Profile(), Residuals: calibration.Residuals(measured, fit.Calibrated)}
	ms := make([]*measure.Measurement, len(ps))
	seenFile, seenDate := map[string]bool{}, map[string]bool{}
	for i, p := range ps {
		ms[i] = p.m
		if !seenFile[p.m.File] {
			seenFile[p.m.File] = true
			e.Provenance.Inputs = append(e.Provenance.Inputs, inputs[p.m.File])
		}
		if d := p.m.Date; d != "" && !seenDate[d] {
			seenDate[d] = true
			e.Provenance.MeasuredOn = append(e.Provenance.MeasuredOn, d)
		}
	}
	sort.Strings(e.Provenance.MeasuredOn)
	if e.Provenance.MeasuredOn == nil {
		e.Provenance.MeasuredOn = []string{}
	}
	e.Domain = calibration.Domain(ms)
	return e, fit, nil
}

// physicalFloor is the lowest physical value of every parameter on a deployment: the
// tighter of its roles' floors (perf.Default.CorrectionFloor) and the removal of at most
// the whole default hand-off latency.
func physicalFloor(p *measuredPoint) (calibration.Params, error) {
	in := Input{ConfigName: p.configName, ConfigYAML: p.configYAML, Sets: p.sets, Files: p.files}
	plan, _, err := lower(p.cfg, &in)
	if err != nil {
		return calibration.Params{}, rowError(p.m, &CalibrateInput{}, err)
	}
	floor := calibration.Params{}
	first := true
	for _, pool := range []*poolTiming{{plan.Agg}, {plan.Prefill}, {plan.Decode}} {
		d := pool.defaultModel()
		if d == nil {
			continue
		}
		f := calibration.Floor(d.CorrectionFloor(), plan.Transfer.HandoffMs)
		if first {
			floor, first = f, false
		} else {
			floor = floor.Tighter(f)
		}
	}
	if first {
		return calibration.Params{}, errors.New("internal error: a default-timing deployment without a default timing model")
	}
	return floor, nil
}

// replayMeasurement simulates a measurement's workload on its deployment under the
// parameters and returns the replay's means.
func replayMeasurement(p *measuredPoint, q calibration.Params) (calibration.Metrics, error) {
	collectBetweenReplays() // the previous replay's memory is garbage now
	zero := 0.0
	in := Input{ConfigName: p.configName, ConfigYAML: p.configYAML, Sets: p.sets, Files: p.files, FixedWallTimeMs: &zero}
	t := paramsTuning(q)
	var stop *replay.StopRule
	if p.stopWindows >= 0 {
		stop = replayStop(p.m, p.stopWindows)
	}
	out, err := predictTuned(in, t, func(plan *replay.Plan) { plan.Stop = stop }, nil)
	if err != nil {
		return calibration.Metrics{}, rowError(p.m, &CalibrateInput{}, err)
	}
	if stop != nil && p.stopWindows == 0 {
		// The first replay (the default model's) decides where every later one stops, so
		// their means move smoothly with the parameters; one that ran to the end stops no
		// later one (-1).
		p.stopWindows = -1
		if stop.Stopped {
			p.stopWindows = stop.Settled
		}
	}
	x := replayMetrics(out.Summary, stop)
	if x.TTFT <= 0 || x.TPOT <= 0 {
		return calibration.Metrics{}, &measure.Error{File: p.m.File, Field: p.m.ID, Msg: "its replay completed no request with a first token and a second; check the lengths"}
	}
	return x, nil
}

// paramsTuning is the tuning of a deployment whose every role takes the parameters q.
func paramsTuning(q calibration.Params) *tuning {
	c := q.Correction()
	t := &tuning{roles: map[string]perf.Correction{spec.RoleAggregated: c, spec.RolePrefill: c, spec.RoleDecode: c}, handoffMs: q[calibration.HandoffMs],
		frontendServiceMs: q[calibration.FrontendServiceMs]}
	if s := q[calibration.KVCapacityScale]; s != 1 {
		t.capacity = map[string]float64{spec.RoleAggregated: s, spec.RolePrefill: s, spec.RoleDecode: s}
	}
	t.decodeMaxSequences = int(q[calibration.DecodeMaxSequences])
	return t
}

// replayStop is the stopping rule of a measurement's replay (docs/calibration.md, "Stopping
// a replay early"): a closed loop stops once its means settle (windows = 0) or after that
// many windows; an open loop runs to the end (nil).
func replayStop(m *measure.Measurement, windows int) *replay.StopRule {
	if m.Concurrency == 0 {
		return nil
	}
	return &replay.StopRule{Window: min(m.Concurrency, calibration.StopWindowMax), Warmup: m.Concurrency, MinWindows: calibration.StopMinWindows, Tolerance: calibration.StopTolerance,
		Total: calibration.ReplayRequests(m), Windows: windows}
}

// replayMetrics are a replay's means: the summary's, or when the stopping rule stopped it,
// the whole replay's TTFT, TPOT and E2E it estimates (the throughput stays the replayed
// requests').
func replayMetrics(s map[string]any, stop *replay.StopRule) calibration.Metrics {
	x := summaryMetrics(s)
	if stop != nil && stop.Stopped {
		e := stop.Means()
		x.TTFT, x.TPOT, x.E2E = e.TTFT, e.TPOT, e.E2E
	}
	return x
}

// summaryMetrics reads the fitted means from a prediction's summary.
func summaryMetrics(s map[string]any) calibration.Metrics {
	f := func(k string) float64 { v, _ := report.Number(s[k]); return v }
	return calibration.Metrics{TTFT: f(report.TTFT.Key(report.Mean)), TPOT: f(report.TPOT.Key(report.Mean)),
		E2E: f(report.E2ELatency.Key(report.Mean)), OutputThroughput: f(report.KeyOutputThroughputTokS)}
}

// encodeProfile writes a profile as pretty canonical JSON: the struct's JSON keys, numbers
// as canon writes them (integers without a '.', floats with one).
func encodeProfile(p *spec.Profile) ([]byte, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	if tree, err = typedNumbers(tree); err != nil {
		return nil, err
	}
	return canon.Pretty(tree)
}
