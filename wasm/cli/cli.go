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
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// Version is the program version printed by --version; the Makefile sets it with -ldflags.
var Version = "dev"

// Exit codes of the command (aisimulate-cli.md §1.6).
const (
	ExitOK          = 0   // success
	ExitFailure     = 1   // execution failure
	ExitUsage       = 2   // usage, configuration or output-directory error
	ExitInterrupted = 130 // interrupted (set by the host; the module never sees signals)
)

// captureGCPercent is the collector's GOGC for a --capture-per-request run.
const captureGCPercent = 50

// DefaultOutputDir is the --output-dir default.
const DefaultOutputDir = "./aisimulate-output"

// EnvFixedWallTime is the golden-test hook replacing the measured wall time (outputs.md §3.3).
const EnvFixedWallTime = "AISIMULATE_FIXED_WALL_TIME_MS"

// EnvProgress, when "1", turns progress reports on stderr on (the host sets it when stderr is
// a terminal); --progress does the same.
const EnvProgress = "AISIMULATE_PROGRESS"

// predict is simcore.Predict; tests replace it.
var predict = simcore.Predict

const topUsage = "usage: aisimulate [-h] [--version] {predict,recommend} ...\n"

const predictUsage = `usage: aisimulate predict [-h] -c CONFIG --stack dynamo [--set PATH=YAML_VALUE]
                         [--output-dir OUTPUT_DIR] [--overwrite] [--format {table,json}]
                         [--capture-per-request] [--detail SECTIONS] [--progress]
`

const topHelp = topUsage + `
Predict or recommend an LLM serving configuration.

Simulates an LLM serving deployment (model, GPUs, backend, parallelism, router, planner)
under a workload described in one YAML file and reports TTFT, ITL, end-to-end latency,
throughput, goodput and GPU-hours.

commands:
  predict     simulate one configuration and write prediction.json
  recommend   search configurations (not available in this build)

options:
  -h, --help  show this help message and exit
  --version   print the version and exit

Example:
  aisimulate predict --stack dynamo --config examples/quickstart.yaml

Run 'aisimulate predict --help' for the prediction options.
`

const predictHelp = predictUsage + `
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
  --online              wall-clock paced execution (not supported by the dynamo stack)

Exit status: 0 success, 1 the simulation failed, 2 usage or configuration error,
130 interrupted.

Example:
  aisimulate predict --stack dynamo --config examples/quickstart.yaml \
      --set traffic.load.concurrency=16 --output-dir out --overwrite --format json
`

// usageError is an exit-2 error printed as "usage: …" plus "<prog>: error: <msg>".
type usageError struct {
	usage string
	prog  string
	msg   string
}

func (e *usageError) Error() string { return e.msg }

// options are the parsed `predict` flags.
type options struct {
	config            string
	haveConfig        bool
	stack             string
	sets              []string
	outputDir         string
	overwrite         bool
	format            string
	capturePerRequest bool
	online            bool
	detail            []string
	progress          bool
	help              bool
}

// Main runs `aisimulate` with args (without the program name), the process environment as
// KEY=VALUE strings, and the standard streams; it returns the exit code.
func Main(args []string, env []string, stdin io.Reader, stdout, stderr io.Writer) int {
	_ = stdin
	if len(args) == 0 {
		return fail(stderr, &usageError{topUsage, "aisimulate", "the following arguments are required: command"})
	}
	switch args[0] {
	case "-h", "--help":
		io.WriteString(stdout, topHelp)
		return ExitOK
	case "--version":
		fmt.Fprintf(stdout, "aisimulate %s\n", Version)
		return ExitOK
	case "predict":
		return runPredict(args[1:], env, stdout, stderr)
	case "recommend":
		for _, a := range args[1:] {
			if a == "-h" || a == "--help" {
				io.WriteString(stdout, "usage: aisimulate recommend [-h] ...\n\nSearch serving configurations. Not available in this build: use predict.\n")
				return ExitOK
			}
		}
		return fail(stderr, &usageError{topUsage, "aisimulate", "recommend is not available in this build; use 'aisimulate predict'"})
	}
	if strings.HasPrefix(args[0], "-") {
		return fail(stderr, &usageError{topUsage, "aisimulate", "the following arguments are required: command"})
	}
	return fail(stderr, &usageError{topUsage, "aisimulate",
		fmt.Sprintf("argument command: invalid choice: '%s' (choose from 'predict', 'recommend')", args[0])})
}

// fail prints an error in the format of its kind and returns the exit code.
func fail(stderr io.Writer, err error) int {
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%s%s: error: %s\n", ue.usage, ue.prog, ue.msg)
		return ExitUsage
	}
	fmt.Fprintf(stderr, "aisimulate predict failed: %s\n", err)
	return ExitFailure
}

// configError is an exit-2 error about the configuration: "<config>: <msg>".
func configError(config, msg string) error {
	return &usageError{topUsage, "aisimulate", config + ": " + msg}
}

// predictFlags maps every long option to whether it takes a value.
var predictFlags = map[string]bool{
	"--config": true, "--stack": true, "--set": true, "--output-dir": true, "--overwrite": false,
	"--format": true, "--capture-per-request": false, "--online": false, "--detail": true,
	"--detail-top-n": true, "--diagnostics-top-n": true, "--diagnostics": true,
	"--progress": false, "--help": false,
}

func predictErr(msg string) error { return &usageError{predictUsage, "aisimulate predict", msg} }

// parsePredict parses `predict` arguments like argparse: --opt VALUE, --opt=VALUE, unique
// prefixes of long options, -c VALUE / -cVALUE, and -- ending the options.
func parsePredict(args []string) (*options, error) {
	o := &options{stack: "engine", outputDir: DefaultOutputDir, format: "table"}
	var extra []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			extra = append(extra, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			extra = append(extra, a)
			continue
		}
		name, value, hasValue := a, "", false
		if strings.HasPrefix(a, "--") {
			if eq := strings.IndexByte(a, '='); eq >= 0 {
				name, value, hasValue = a[:eq], a[eq+1:], true
			}
			full, err := resolveLong(name)
			if err != nil {
				return nil, err
			}
			if full == "" {
				extra = append(extra, a)
				continue
			}
			name = full
		} else {
			switch {
			case a == "-h":
				name = "--help"
			case strings.HasPrefix(a, "-c"):
				name = "--config"
				if len(a) > 2 {
					value, hasValue = strings.TrimPrefix(a[2:], "="), true
				}
			default:
				extra = append(extra, a)
				continue
			}
		}
		display := name
		if name == "--config" {
			display = "-c/--config"
		}
		if predictFlags[name] {
			if !hasValue {
				if i+1 >= len(args) || (strings.HasPrefix(args[i+1], "-") && args[i+1] != "-" && !isNegativeNumber(args[i+1])) {
					return nil, predictErr("argument " + display + ": expected one argument")
				}
				i++
				value = args[i]
			}
		} else if hasValue {
			return nil, predictErr("argument " + display + ": ignored explicit argument '" + value + "'")
		}
		switch name {
		case "--help":
			o.help = true
		case "--config":
			o.config, o.haveConfig = value, true
		case "--stack":
			o.stack = value
		case "--set":
			o.sets = append(o.sets, value)
		case "--output-dir":
			o.outputDir = value
		case "--overwrite":
			o.overwrite = true
		case "--format":
			if value != "table" && value != "json" {
				return nil, predictErr(fmt.Sprintf("argument --format: invalid choice: '%s' (choose from 'table', 'json')", value))
			}
			o.format = value
		case "--capture-per-request":
			o.capturePerRequest = true
		case "--online":
			o.online = true
		case "--progress":
			o.progress = true
		case "--detail":
			secs, err := report.ParseDetailSections(value)
			if err != nil {
				return nil, predictErr("argument --detail: " + err.Error())
			}
			o.detail = report.MergeDetailSections(o.detail, secs)
		case "--diagnostics":
			if value != "power" {
				return nil, predictErr(fmt.Sprintf("argument --diagnostics: invalid choice: '%s' (choose from 'power')", value))
			}
			o.detail = report.MergeDetailSections(o.detail, []string{"energy"})
		case "--detail-top-n", "--diagnostics-top-n":
			n, err := strconv.Atoi(value)
			if err != nil || n <= 0 {
				return nil, predictErr(fmt.Sprintf("argument %s: must be a positive integer, got '%s'", name, value))
			}
		}
	}
	if o.help {
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

// resolveLong expands a long option or a unique prefix of one; "" means unknown.
func resolveLong(name string) (string, error) {
	if _, ok := predictFlags[name]; ok {
		return name, nil
	}
	var matches []string
	for _, f := range sortedFlags() {
		if strings.HasPrefix(f, name) {
			matches = append(matches, f)
		}
	}
	switch len(matches) {
	case 0:
		return "", nil
	case 1:
		return matches[0], nil
	}
	return "", predictErr(fmt.Sprintf("ambiguous option: %s could match %s", name, strings.Join(matches, ", ")))
}

func sortedFlags() []string {
	return []string{"--capture-per-request", "--config", "--detail", "--detail-top-n",
		"--diagnostics", "--diagnostics-top-n", "--format", "--help", "--online", "--output-dir",
		"--overwrite", "--progress", "--set", "--stack"}
}

func getenv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

func runPredict(args []string, env []string, stdout, stderr io.Writer) int {
	o, err := parsePredict(args)
	if err != nil {
		return fail(stderr, err)
	}
	if o.help {
		io.WriteString(stdout, predictHelp)
		return ExitOK
	}
	// 1. The stack is resolved before the configuration is read.
	if o.stack != spec.Stack {
		return fail(stderr, &usageError{topUsage, "aisimulate", fmt.Sprintf(
			"stack '%s' is unavailable; installed stacks: %s. Pass --stack %s.", o.stack, spec.Stack, spec.Stack)})
	}
	var fixedWall *float64
	if v, ok := getenv(env, EnvFixedWallTime); ok {
		f, perr := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if perr != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return fail(stderr, &usageError{topUsage, "aisimulate", EnvFixedWallTime + " must be a finite number >= 0, got '" + v + "'"})
		}
		fixedWall = &f
	}
	// 2. Read and validate the configuration (nothing is written on error).
	yamlText, rerr := readConfig(o.config)
	if rerr != nil {
		return fail(stderr, rerr)
	}
	if err := simcore.CheckConfigInput(yamlText, o.sets); err != nil {
		return fail(stderr, configFailure(o.config, err))
	}
	if _, lerr := spec.LoadConfig(yamlText, o.sets); lerr != nil {
		return fail(stderr, configFailure(o.config, lerr))
	}
	if o.online {
		return fail(stderr, configError(o.config, "runner does not support execution mode 'online'"))
	}
	// 3. Check the output directory; it is created only once the run succeeded.
	if err := checkOutputDir(o.outputDir, o.overwrite); err != nil {
		return fail(stderr, err)
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
	if o.capturePerRequest {
		// A captured run keeps a history per request: collecting at 50 % growth instead of
		// 100 % keeps 1,000,000 captured requests under 1 GB (docs/robustness.md, "Memory").
		debug.SetGCPercent(captureGCPercent)
	}
	out, perr := predict(in)
	prog.finish()
	if perr != nil {
		var se *spec.Error
		if errors.As(perr, &se) {
			return fail(stderr, configFailure(o.config, perr))
		}
		return fail(stderr, perr)
	}
	// 5. Write the files atomically, then standard output.
	files := []outputFile{{"prediction.json", out.WritePrediction}}
	if o.capturePerRequest {
		files = append(files, outputFile{"requests.jsonl", out.WriteRequests})
	}
	if err := writeOutputs(o.outputDir, files, o.overwrite); err != nil {
		return fail(stderr, err)
	}
	if o.format == "json" {
		stdout.Write(out.StdoutJSON)
	} else {
		io.WriteString(stdout, report.Table(out.Summary, o.outputDir))
	}
	return ExitOK
}

// configFailure formats a configuration error as "<config>: <dotted.path>: <reason>".
func configFailure(config string, err error) error {
	return configError(config, shortReason(err.Error()))
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
	fmt.Fprintf(p.w, "\rsimulating… %3d%%", pct)
}

func (p *progress) finish() {
	if p != nil && p.shown {
		fmt.Fprintf(p.w, "\rsimulating… done\n")
	}
}

// osFS is the fs.FS handed to the simulator: it opens paths as the operating system does,
// absolute or relative to the working directory (trace paths are relative to the process
// working directory, aisimulate-cli.md §3.1), so it accepts names fs.ValidPath would not.
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
