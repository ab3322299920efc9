// Package cli is the whole aisimulate command line: flag parsing, configuration reading,
// output-directory rules, atomic output files and standard output. It runs inside the wasip1
// module (wasm/wasip1), so the native binary only hosts it; it is plain Go over package os
// and is tested natively too.
package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"aisimulate/host/wire"
	"aisimulate/internal/termsafe"
	"aisimulate/simcore"
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// Exit codes of the command (README.md, "Exit codes").
const (
	ExitOK          = 0   // success
	ExitFailure     = 1   // execution failure
	ExitUsage       = 2   // usage, configuration or output-directory error
	ExitInterrupted = 130 // interrupted (set by the host; the module never sees signals)
)

// DefaultOutputDir is the --output-dir default.
const DefaultOutputDir = "./aisimulate-output"

// EnvProgress, when "1", turns progress reports on stderr on (the host sets it when stderr is
// a terminal); --progress does the same.
const EnvProgress = "AISIMULATE_PROGRESS"

// EnvTable selects the `--format table` style: "readable" (ReadableTable, the host sets it
// when standard output is a terminal) or "aiperf" (docs/semantics/outputs.md §7.2, the default otherwise).
const EnvTable = "AISIMULATE_TABLE"

// EnvColumns is the terminal width the readable table fits (the host sets it from the
// terminal when it is not in the environment); 80 when absent or not a positive number.
const EnvColumns = "COLUMNS"

// memoryBudget is the estimate's budget when the host reserved less than 4 GiB for the
// module (wire.EnvMemoryBytes): three quarters of it, the share simcore.DefaultMemoryBudget
// takes of 4 GiB; 0 (the default budget) otherwise.
func memoryBudget(env []string) int64 {
	v, _ := getenv(env, wire.EnvMemoryBytes)
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return min(simcore.DefaultMemoryBudget, n/4*3)
}

// predict is simcore.Predict; tests replace it.
var predict = simcore.Predict

const topUsage = "usage: aisimulate [-h] [--version] {predict,recommend,calibrate} ...\n"

const predictUsage = `usage: aisimulate predict [-h] -c CONFIG --stack dynamo [--set PATH=YAML_VALUE]
                         [--output-dir OUTPUT_DIR] [--overwrite] [--format {table,json}]
                         [--capture-per-request] [--detail SECTIONS] [--progress]
                         [--calibration FILE ...] [--strict-calibration]
                         [--artifacts]
`

const topHelp = topUsage + `
Predict or recommend an LLM serving configuration.

Simulates an LLM serving deployment (model, GPUs, backend, parallelism, router, planner)
under a workload described in one YAML file and reports TTFT, ITL, end-to-end latency,
throughput, goodput and GPU-hours.

commands:
  predict     simulate one configuration and write prediction.json
  recommend   search configurations and write recommendation.json
  calibrate   fit a calibration profile to your benchmark results (calibration.json)

options:
  -h, --help  show this help message and exit
  --version   print the version and exit

Example:
  aisimulate predict --stack dynamo --config examples/quickstart.yaml

Run 'aisimulate predict --help' for the prediction options and the catalog's hardware,
'aisimulate predict --list-models' for the models; docs/config.md documents the YAML.
`

// predictHelp is `predict --help`: the options, where the configuration is documented, the
// catalog's hardware ids and how to list its models, and an example.
func predictHelp() string {
	return predictUsage + `
Simulate one serving configuration and write <output-dir>/prediction.json.

options:
  -h, --help            show this help message and exit
  -c, --config CONFIG   prediction YAML file (traffic, engine, router, planner, evaluation)
  --stack STACK         execution stack; this build provides only 'dynamo' (default: engine,
                        which is not installed here, so pass --stack dynamo)
  --set PATH=YAML_VALUE
                        override one configuration value after loading, e.g.
                        --set traffic.load.concurrency=8; repeatable, applied left to right;
                        the whole leaf is replaced (mappings are not merged)
  --output-dir OUTPUT_DIR
                        directory for prediction.json and requests.jsonl, created if missing
                        (default: ./aisimulate-output)
  --overwrite           allow a non-empty output directory; only known AISimulate outputs
                        are replaced, every other file is kept
  --format {table,json}
                        standard output: a metrics table (default) or the summary as one
                        JSON line; the files written are the same
  --capture-per-request
                        also write requests.jsonl, one record per finished request
  --detail SECTIONS     comma list of summary,memory,time,energy,source,all: add a 'details'
                        object to prediction.json and JSON output
  --detail-top-n N      rows of detail tables (accepted for compatibility)
  --progress            report progress on stderr (on by default when stderr is a terminal)
  --calibration FILE    a calibration profile (aisimulate calibrate's calibration.json);
                        repeatable; every role uses the entry matching it best, and
                        prediction.json adds the uncalibrated summary (docs/calibration.md)
  --strict-calibration  exit 2 instead of warning when the deployment or workload is
                        outside a profile's scope or validity domain
  --artifacts           also write deploy/0001/: a Dynamo DynamoGraphDeployment manifest,
                        the engine launch command of every worker role and a README with
                        the predicted figures (docs/artifacts.md)
  --online              wall-clock paced execution (not supported by the dynamo stack)
  --list-models         print the catalog's model ids (engine.model) and exit
  --list-hardware       print the catalog's hardware ids (engine.hardware) and exit

Exit status: 0 success, 1 the simulation failed, 2 usage or configuration error,
130 interrupted.

Example:
  aisimulate predict --stack dynamo --config examples/quickstart.yaml \
      --set traffic.load.concurrency=16 --output-dir out --overwrite --format json

The configuration is documented in docs/config.md (schema, defaults, validation); the
quickstart, examples/quickstart.yaml, is a complete one to start from.

engine.model: one of ` + strconv.Itoa(len(catalog.Models())) + ` catalog models (--list-models), e.g.
  ` + strings.Join(catalog.SuggestModels("llama3")[1:3], ", ") + `
engine.hardware: ` + wrapIDs(catalog.HardwareIDs(), 17, 90) + `
`
}

// usageError is an exit-2 error printed as "usage: …" plus "<prog>: error: <msg>".
type usageError struct {
	usage string
	prog  string
	msg   string
}

func (e *usageError) Error() string { return e.msg }

// options are the parsed `predict` flags.
type options struct {
	commonOptions
	capturePerRequest bool
	online            bool
	detail            []string
	// listModels / listHardware print the catalog instead of predicting.
	listModels, listHardware bool
	// calibrations are --calibration profiles; strictCalibration is --strict-calibration.
	calibrations      []string
	strictCalibration bool
	// artifacts is --artifacts: also write deploy/0001/.
	artifacts bool
}

// Main runs `aisimulate` with args (without the program name), the process environment as
// KEY=VALUE strings, and the standard streams; it returns the exit code.
func Main(args []string, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		return fail(stderr, &usageError{topUsage, "aisimulate", "the following arguments are required: command"})
	}
	switch args[0] {
	case "-h", "--help":
		io.WriteString(stdout, topHelp)
		return ExitOK
	case "--version":
		fmt.Fprintf(stdout, "aisimulate %s\n", simcore.Version)
		return ExitOK
	case "predict":
		return runPredict(args[1:], env, stdout, stderr)
	case "recommend":
		return runRecommend(args[1:], env, stdout, stderr)
	case "calibrate":
		return runCalibrate(args[1:], env, stdout, stderr)
	case wire.EvaluateCommand:
		return runEvaluator(stdin, stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") {
		return fail(stderr, &usageError{topUsage, "aisimulate", "the following arguments are required: command"})
	}
	return fail(stderr, &usageError{topUsage, "aisimulate",
		fmt.Sprintf("argument command: invalid choice: '%s' (choose from 'predict', 'recommend', 'calibrate')", args[0])})
}

// fail prints an error in the format of its kind and returns the exit code.
func fail(stderr io.Writer, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s%s: error: %s\n", ue.usage, ue.prog, termsafe.EscapeLines(ue.msg))
		return ExitUsage
	}
	fmt.Fprintf(stderr, "aisimulate predict failed: %s\n", termsafe.EscapeLines(err.Error()))
	return ExitFailure
}

// configError is an exit-2 error about the configuration: "<config>: <msg>".
func configError(config, msg string) error {
	return &usageError{topUsage, "aisimulate", config + ": " + msg}
}

// predictArgs reads predict's options; the map says whether each takes a value.
var predictArgs = argParser{usage: predictErr, flags: map[string]bool{
	"--config": true, "--stack": true, "--set": true, "--output-dir": true, "--overwrite": false,
	"--format": true, "--capture-per-request": false, "--online": false, "--detail": true,
	"--detail-top-n": true, "--diagnostics-top-n": true, "--diagnostics": true,
	"--progress": false, "--help": false, "--list-models": false, "--list-hardware": false,
	"--calibration": true, "--strict-calibration": false,
	"--artifacts": false,
}}

func predictErr(msg string) error { return &usageError{predictUsage, "aisimulate predict", msg} }

// parsePredict parses `predict` arguments like argparse: --opt VALUE, --opt=VALUE, unique
// prefixes of long options, -c VALUE / -cVALUE, and -- ending the options.
func parsePredict(args []string) (*options, error) {
	o := &options{commonOptions: newCommonOptions()}
	extra, err := predictArgs.parse(args, func(name, value string) error {
		if handled, err := o.set(name, value, predictErr); handled {
			return err
		}
		switch name {
		case "--calibration":
			o.calibrations = append(o.calibrations, value)
		case "--strict-calibration":
			o.strictCalibration = true
		case "--list-models":
			o.listModels = true
		case "--list-hardware":
			o.listHardware = true
		case "--capture-per-request":
			o.capturePerRequest = true
		case "--online":
			o.online = true
		case "--artifacts":
			o.artifacts = true
		case "--progress":
			o.progress = true
		case "--detail":
			secs, err := report.ParseDetailSections(value)
			if err != nil {
				return predictErr("argument --detail: " + err.Error())
			}
			o.detail = report.MergeDetailSections(o.detail, secs)
		case "--diagnostics":
			if value != "power" {
				return predictErr(fmt.Sprintf("argument --diagnostics: invalid choice: '%s' (choose from 'power')", value))
			}
			o.detail = report.MergeDetailSections(o.detail, []string{"energy"})
		case "--detail-top-n", "--diagnostics-top-n":
			n, err := strconv.Atoi(value)
			if err != nil || n <= 0 {
				return predictErr(fmt.Sprintf("argument %s: must be a positive integer, got '%s'", name, value))
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if o.help || o.listModels || o.listHardware {
		return o, nil
	}
	if len(extra) > 0 {
		return nil, &usageError{topUsage, "aisimulate", "unrecognized arguments: " + strings.Join(extra, " ")}
	}
	if !o.haveConfig {
		return nil, predictErr("the following arguments are required: -c/--config")
	}
	return o, nil
}

func isNegativeNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

func getenv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// failPredict prints an error of `predict`: usage errors show predict's usage line (the error
// line keeps the "aisimulate: error:" form of the original) [decision, docs/config.md].
func failPredict(stderr io.Writer, err error) int {
	var ue *usageError
	if errors.As(err, &ue) && ue.usage == topUsage {
		ue.usage = predictUsage
	}
	return fail(stderr, err)
}

func runPredict(args []string, env []string, stdout, stderr io.Writer) int {
	o, err := parsePredict(args)
	if err != nil {
		return failPredict(stderr, err)
	}
	if o.help {
		io.WriteString(stdout, predictHelp())
		return ExitOK
	}
	if o.listModels || o.listHardware {
		writeCatalog(stdout, o.listModels, o.listHardware)
		return ExitOK
	}
	// 1. The stack is resolved before the configuration is read.
	fixedWall, err := o.checkRun(env)
	if err != nil {
		return failPredict(stderr, err)
	}
	// 2. Read and validate the configuration (nothing is written on error).
	yamlText, rerr := readConfig(o.config)
	if rerr != nil {
		return failPredict(stderr, rerr)
	}
	if _, lerr := spec.LoadConfig(yamlText, o.sets); lerr != nil {
		return failPredict(stderr, configFailure(o.config, lerr))
	}
	if o.online {
		return failPredict(stderr, configError(o.config, "runner does not support execution mode 'online'"))
	}
	profiles, err := readProfiles(o.calibrations)
	if err != nil {
		return failPredict(stderr, err)
	}
	// 3. Check the output directory; it is created only once the run succeeded.
	if err := checkOutputDir(o.outputDir, o.overwrite); err != nil {
		return failPredict(stderr, err)
	}
	if o.artifacts {
		if err := checkDeployDir(o.outputDir); err != nil {
			return failPredict(stderr, err)
		}
	}
	// 4. Run.
	start := time.Now()
	in := simcore.Input{
		ConfigName:        o.config,
		ConfigYAML:        yamlText,
		Sets:              o.sets,
		CapturePerRequest: o.capturePerRequest,
		Detail:            o.detail,
		Files:             osFS{},
		Clock:             func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 },
		FixedWallTimeMs:   fixedWall,
		StreamOutputs:     true,
		MemoryBudget:      memoryBudget(env),
		Calibrations:      profiles,
		StrictCalibration: o.strictCalibration,
	}
	var prog *progress
	if o.progress {
		prog = &progress{w: stderr, start: start}
	} else if v, _ := getenv(env, EnvProgress); v == "1" {
		prog = &progress{w: stderr, start: start}
	}
	if prog != nil {
		in.Progress = prog.report
	}
	out, perr := predict(in)
	prog.finish()
	if perr != nil {
		var se *spec.Error
		var me *measure.Error
		switch {
		case errors.As(perr, &me):
			return failPredict(stderr, &usageError{"", "aisimulate", shortReason(me.Error())})
		case errors.As(perr, &se):
			return failPredict(stderr, configFailure(o.config, perr))
		}
		return failPredict(stderr, perr)
	}
	printWarnings(stderr, out.Warnings)
	// 5. Write the files atomically, then standard output.
	files := outputFiles{[]string{"prediction.json"}, func(ws []io.Writer) error { return out.WriteOutputs(ws[0], nil) }}
	if o.capturePerRequest {
		files = outputFiles{[]string{"prediction.json", "requests.jsonl"}, func(ws []io.Writer) error { return out.WriteOutputs(ws[0], ws[1]) }}
	}
	groups := []outputFiles{files}
	if o.artifacts {
		af, aerr := predictionArtifacts(o.config, yamlText, o.sets, out)
		if aerr != nil {
			return failPredict(stderr, aerr)
		}
		groups = append(groups, af...)
	}
	if err := writeOutputs(o.outputDir, groups, o.overwrite); err != nil {
		return failPredict(stderr, err)
	}
	if o.format == "json" {
		stdout.Write(out.StdoutJSON)
	} else {
		io.WriteString(stdout, table(out, env, o.outputDir))
	}
	return ExitOK
}

// table renders the `--format table` output in the style EnvTable selects.
func table(out *simcore.Output, env []string, outputDir string) string {
	columns, readable := readableColumns(env)
	if !readable {
		return report.Table(out.Summary, out.Saturation, outputDir)
	}
	return report.ReadableTable(out.Summary, out.Overview, out.Saturation, columns, outputDir)
}

// readableColumns says whether EnvTable selects the readable table, and the width it fits
// (EnvColumns, 80 when unset or not a positive number).
func readableColumns(env []string) (columns int, readable bool) {
	if style, _ := getenv(env, EnvTable); style != report.TableReadable {
		return 0, false
	}
	columns = 80
	if v, ok := getenv(env, EnvColumns); ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			columns = n
		}
	}
	return columns, true
}

// configFailure formats a configuration error as "<config>: <dotted.path>: <reason>". An
// unknown model also names the CLI's other way to give one, a local directory (the browser
// and the edge have no file system to read it from); when the value was already written as a
// path, it says where a relative path is read from instead (docs/config.md, "Paths").
func configFailure(config string, err error) error {
	msg := err.Error()
	var se *spec.Error
	if errors.As(err, &se) && se.Path == "engine.model" && strings.HasPrefix(se.Msg, catalog.UnknownModelPrefix) {
		if writtenAsPath(strings.TrimPrefix(se.Msg, catalog.UnknownModelPrefix)) {
			msg += "; no directory with a config.json at that path (a relative path is read from the working directory, not from the configuration file's directory)"
		} else {
			msg += "; or pass a local directory containing config.json"
		}
	}
	return configError(config, shortReason(msg))
}

// writtenAsPath says whether the engine.model value quoted at the start of msg is written as
// a file-system path (absolute, or starting with ./ or ../), which no catalog id or alias is.
func writtenAsPath(msg string) bool {
	quoted, err := strconv.QuotedPrefix(msg)
	if err != nil {
		return false
	}
	id, _ := strconv.Unquote(quoted)
	return strings.HasPrefix(id, "/") || strings.HasPrefix(id, "./") || strings.HasPrefix(id, "../")
}

// writeCatalog prints the catalog's model ids and/or hardware ids (with memory per GPU and
// GPUs per node), one per line.
func writeCatalog(w io.Writer, models, hardware bool) {
	if models {
		for _, id := range catalog.Models() {
			fmt.Fprintln(w, id)
		}
	}
	if hardware {
		for _, id := range catalog.HardwareIDs() {
			h, err := catalog.LookupHardware(id)
			if err != nil {
				continue
			}
			fmt.Fprintf(w, "%-20s %6.1f GiB per GPU, %d GPUs per node\n", id, float64(h.MemBytes)/(1<<30), h.GPUsPerNode)
		}
	}
}

// wrapIDs joins ids with ", ", breaking lines before width and indenting continuations.
func wrapIDs(ids []string, indent, width int) string {
	var b strings.Builder
	col := indent
	for i, id := range ids {
		if i > 0 {
			b.WriteString(",")
			col++
			if col+1+len(id) > width {
				b.WriteString("\n" + strings.Repeat(" ", indent))
				col = indent
			} else {
				b.WriteString(" ")
				col++
			}
		}
		b.WriteString(id)
		col += len(id)
	}
	return b.String()
}

// errText is the operating-system reason of a file error, without the repeated path.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return err.Error()
}

// checkOutputDir applies the output-directory rules without changing anything: an existing
// path must be a directory, empty unless overwrite; a missing one must be creatable below its
// nearest existing ancestor.
func checkOutputDir(dir string, overwrite bool) error {
	st, err := os.Stat(dir)
	if err == nil {
		if !st.IsDir() {
			return &usageError{topUsage, "aisimulate", "output directory " + dir + " is not a directory"}
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return &usageError{topUsage, "aisimulate", "output directory " + dir + ": " + errText(err)}
		}
		if len(entries) > 0 && !overwrite {
			return &usageError{topUsage, "aisimulate", "output directory " + dir + " is not empty; pass --overwrite to replace known AISimulate outputs"}
		}
		return nil
	}
	statErr := err
	// Missing (or below a non-directory): find the nearest existing ancestor.
	for p := filepath.Dir(filepath.Clean(dir)); ; p = filepath.Dir(p) {
		st, err := os.Stat(p)
		if err == nil {
			if !st.IsDir() {
				return &usageError{topUsage, "aisimulate", "output directory " + dir + " cannot be created: " + p + " is not a directory"}
			}
			break
		}
		if next := filepath.Dir(p); next == p {
			break
		}
	}
	if !errors.Is(statErr, fs.ErrNotExist) {
		return &usageError{topUsage, "aisimulate", "output directory " + dir + ": " + errText(statErr)}
	}
	return nil
}

// progress prints "simulating… N%" on stderr at most every 200 ms.
type progress struct {
	w       io.Writer
	start   time.Time
	last    time.Time
	shown   bool
	percent int
}

func (p *progress) report(fraction float64) {
	now := time.Now()
	pct := int(math.Max(0, math.Min(1, fraction)) * 100)
	if now.Sub(p.start) < 500*time.Millisecond || now.Sub(p.last) < 200*time.Millisecond || (p.shown && pct == p.percent) {
		return
	}
	p.last, p.shown, p.percent = now, true, pct
	fmt.Fprintf(p.w, "\rsimulating… %3d%%%s", pct, eta(now.Sub(p.start), fraction))
}

// eta is the remaining-time part of a progress line, "  ETA 12 s", extrapolating the time
// so far linearly over the fraction done (elapsed × (1 − f) / f); padded so a shorter ETA
// overwrites a longer one; blank until 1% is done.
func eta(elapsed time.Duration, fraction float64) string {
	if fraction < 0.01 || fraction >= 1 {
		return strings.Repeat(" ", 15)
	}
	left := elapsed.Seconds() * (1 - fraction) / fraction
	var s string
	switch {
	case left < 60:
		s = fmt.Sprintf("%d s", int(math.Ceil(left)))
	case left < 3600:
		s = fmt.Sprintf("%d min %02d s", int(left)/60, int(left)%60)
	default:
		s = fmt.Sprintf("%d h %02d min", int(left)/3600, int(left)%3600/60)
	}
	return fmt.Sprintf("  ETA %-9s", s)
}

func (p *progress) finish() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\rsimulating… done%s\n", strings.Repeat(" ", 15))
	}
}

// osFS is the fs.FS handed to the simulator: it opens paths as the operating system does,
// absolute or relative to the working directory (trace paths and local model directories
// are relative to the process working directory, docs/config.md, "File paths"), so it
// accepts names fs.ValidPath would not.
type osFS struct{}

func (osFS) Open(name string) (fs.File, error) { return os.Open(filepath.FromSlash(name)) }

// ReadFile implements fs.ReadFileFS.
func (osFS) ReadFile(name string) ([]byte, error) { return os.ReadFile(filepath.FromSlash(name)) }

// Stat implements fs.StatFS.
func (osFS) Stat(name string) (fs.FileInfo, error) { return os.Stat(filepath.FromSlash(name)) }

// ReadDir implements fs.ReadDirFS.
func (osFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return os.ReadDir(filepath.FromSlash(name))
}

// printWarnings says a run's warnings on stderr, one line each: "aisimulate: warning: …".
func printWarnings(stderr io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintf(stderr, "aisimulate: warning: %s\n", w)
	}
}
