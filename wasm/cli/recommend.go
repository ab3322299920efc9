package cli

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"aisimulate/host/wire"
	"aisimulate/internal/termsafe"
	"aisimulate/simcore"
	"aisimulate/simcore/deploy"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/recommend"
	"aisimulate/simcore/spec"
)

const recommendUsage = `usage: aisimulate recommend [-h] -c CONFIG --stack dynamo [--set PATH=YAML_VALUE]
                           [--output-dir OUTPUT_DIR] [--overwrite] [--format {table,json}]
                           [--progress] [--remote URL] [--remote-concurrency N]
                           [--remote-timeout SECONDS] [--strict-remote]
                           [--calibration FILE ...] [--strict-calibration]
                           [--artifacts] [--artifacts-top N]
`

var recommendHelp = recommendUsage + `
Search serving configurations for the best ones under an objective, and write
<output-dir>/recommendation.json, recommendation.csv and recommendations/NNNN.yaml (each a
concrete configuration that 'aisimulate predict' reproduces exactly).

options:
  -h, --help            show this help message and exit
  -c, --config CONFIG   recommendation YAML file: a prediction configuration whose searchable
                        fields may hold domains ({choices: [...]} or {range: {...}}), plus
                        optimization (target, constraints) and optimizer (algorithm, budget)
  --stack STACK         execution stack; this build provides only 'dynamo'
  --set PATH=YAML_VALUE
                        override one value after loading, e.g. --set optimization.target=pareto;
                        repeatable, applied left to right; the whole leaf is replaced
  --output-dir OUTPUT_DIR
                        directory for the result files, created if missing
                        (default: ./aisimulate-output)
  --overwrite           allow a non-empty output directory; only known AISimulate outputs
                        are replaced, every other file is kept
  --format {table,json}
                        standard output: one line per recommendation (default) or a JSON array
  --progress            report trials, best score and time on stderr (on by default when
                        stderr is a terminal)
  --remote URL          evaluate the candidates on a deployed aisimulate edge worker (the
                        same build, ` + "`make worker`" + `) instead of local module instances;
                        repeatable. Candidates over a worker's limits run locally. Without
                        it, min(optimizer.parallelism, cores) local instances evaluate them.
                        The result is the same either way.
  --remote-concurrency N
                        requests in flight per remote URL (default: 4)
  --remote-timeout SECONDS
                        the longest one request to a remote worker may take, answer
                        included; a worker past it is dropped and its requests go to the
                        others (default: 120)
  --strict-remote       exit 1 when a remote worker answered an outcome that this build
                        does not reproduce (the result, recomputed locally, is still written)
  --calibration FILE    a calibration profile (aisimulate calibrate's calibration.json);
                        repeatable; every candidate whose model, GPU, backend and mode an
                        entry has is predicted with it (docs/recommend.md, "Calibration")
  --strict-calibration  candidates outside the profiles' scope or validity domain are
                        unsupported instead of calibrated with wider intervals
  --artifacts           also write deploy/NNNN/ for the first recommendations: a Dynamo
                        DynamoGraphDeployment manifest, the engine launch command of every
                        worker role and a README with the predicted figures (docs/artifacts.md)
  --artifacts-top N     how many recommendations --artifacts writes (default: ` + strconv.Itoa(deploy.DefaultTop) + `)

Exit status: 0 at least one feasible candidate, 1 none is feasible (the result is still
written), 2 usage or configuration error, 130 interrupted.

Example:
  aisimulate recommend --stack dynamo --config examples/recommend-seed.yaml \
      --set optimizer.max_trials=64 --output-dir out --overwrite
`

// recommendArgs reads recommend's options; the map says whether each takes a value.
var recommendArgs = argParser{usage: recommendErr, flags: map[string]bool{
	"--config": true, "--stack": true, "--set": true, "--output-dir": true, "--overwrite": false,
	"--format": true, "--progress": false, "--help": false, "--remote": true, "--remote-concurrency": true,
	"--remote-timeout": true, "--strict-remote": false,
	"--calibration": true, "--strict-calibration": false,
	"--artifacts": false, "--artifacts-top": true,
}}

// recommendOptions are the parsed `recommend` flags.
type recommendOptions struct {
	commonOptions
	// remote are the --remote URLs, in order; remoteConcurrency is --remote-concurrency.
	remote            []string
	remoteConcurrency int
	// remoteTimeout is --remote-timeout in seconds (0: the host's default); strictRemote
	// is --strict-remote.
	remoteTimeout float64
	strictRemote  bool
	// calibrations are --calibration profiles; strictCalibration is --strict-calibration.
	calibrations      []string
	strictCalibration bool
	// artifacts is --artifacts; artifactsTop is --artifacts-top.
	artifacts    bool
	artifactsTop int
}

func recommendErr(msg string) error {
	return &usageError{recommendUsage, "aisimulate recommend", msg}
}

// parseRecommend parses `recommend` arguments with the argparse conventions of predict:
// --opt VALUE, --opt=VALUE, unique prefixes of long options, -c VALUE / -cVALUE, and --.
func parseRecommend(args []string) (*recommendOptions, error) {
	o := &recommendOptions{commonOptions: newCommonOptions(), remoteConcurrency: DefaultRemoteConcurrency, artifactsTop: deploy.DefaultTop}
	extra, err := recommendArgs.parse(args, func(name, value string) error {
		switch name {
		case "--remote":
			o.remote = append(o.remote, value)
			return nil
		case "--remote-concurrency":
			n, err := parseRemoteConcurrency(value)
			o.remoteConcurrency = n
			return err
		case "--calibration":
			o.calibrations = append(o.calibrations, value)
			return nil
		case "--strict-calibration":
			o.strictCalibration = true
			return nil
		case "--remote-timeout":
			sec, err := parseRemoteTimeout(value)
			o.remoteTimeout = sec
			return err
		case "--strict-remote":
			o.strictRemote = true
			return nil
		case "--artifacts":
			o.artifacts = true
			return nil
		case "--artifacts-top":
			n, err := parseArtifactsTop(value)
			o.artifactsTop = n
			return err
		}
		_, err := o.set(name, value, recommendErr)
		return err
	})
	if err != nil {
		return nil, err
	}
	if o.help {
		return o, nil
	}
	if len(extra) > 0 {
		return nil, &usageError{topUsage, "aisimulate", "unrecognized arguments: " + strings.Join(extra, " ")}
	}
	if !o.haveConfig {
		return nil, recommendErr("the following arguments are required: -c/--config")
	}
	if o.strictCalibration && len(o.calibrations) == 0 {
		return nil, recommendErr("argument --strict-calibration: needs --calibration FILE")
	}
	return o, nil
}

// runRecommend is `aisimulate recommend`: validate, check the output directory, search,
// write the result files atomically, print.
func runRecommend(args []string, env []string, stdout, stderr io.Writer) int {
	o, err := parseRecommend(args)
	if err != nil {
		return fail(stderr, err)
	}
	if o.help {
		io.WriteString(stdout, recommendHelp)
		return ExitOK
	}
	fixedWall, err := o.checkRun(env)
	if err != nil {
		return fail(stderr, err)
	}
	yamlText, rerr := os.ReadFile(o.config)
	if rerr != nil {
		return fail(stderr, &usageError{topUsage, "aisimulate", "could not read configuration " + o.config + ": " + errText(rerr)})
	}
	profiles, err := readProfiles(o.calibrations)
	if err != nil {
		return fail(stderr, err)
	}
	start := time.Now()
	in := simcore.RecommendInput{
		ConfigName:        o.config,
		ConfigYAML:        yamlText,
		Sets:              o.sets,
		Files:             osFS{},
		ModuleVersion:     simcore.Version,
		Clock:             func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 },
		FixedWallTimeMs:   fixedWall,
		Calibrations:      profiles,
		StrictCalibration: o.strictCalibration,
	}
	// Configuration errors (domains, the ladder's model and hardware) before anything else;
	// the search built here is the one that runs.
	rc, err := simcore.NewRecommender(in)
	if err != nil {
		return failRecommend(stderr, o.config, err)
	}
	if err := checkOutputDir(o.outputDir, o.overwrite); err != nil {
		return fail(stderr, err)
	}
	if err := checkRecommendationsDir(o.outputDir); err != nil {
		return fail(stderr, err)
	}
	if o.artifacts {
		if err := checkDeployDir(o.outputDir); err != nil {
			return fail(stderr, err)
		}
	}
	// The evaluators (local module instances, remote workers) before the sweep: a remote
	// that cannot be reached or runs another build is a usage error.
	evals, err := startEvaluators(wire.Start{Parallelism: rc.Parallelism(), Remote: o.remote,
		RemoteConcurrency: o.remoteConcurrency, RemoteTimeoutSeconds: o.remoteTimeout, ModuleVersion: simcore.Version})
	if err != nil {
		return fail(stderr, err)
	}
	var evaluate func([]simcore.EvaluationRequest) ([][]byte, error)
	if evals != nil {
		evaluate = evals.evaluate
	}
	var prog *searchProgress
	var report func(done, total int, best float64)
	if v, _ := getenv(env, EnvProgress); o.progress || v == "1" {
		prog = &searchProgress{w: stderr, start: time.Now()}
		report = prog.report
	}
	var res *recommend.Result
	if evals != nil && len(o.remote) > 0 {
		res, err = rc.RunChecked(simcore.Remote{Evaluate: evals.evaluateRemote, Distrust: evals.distrust}, evaluate, report)
	} else {
		res, err = rc.Run(evaluate, report)
	}
	prog.finish()
	if evals != nil {
		fallbacks, ferr := evals.finish()
		if fallbacks > 0 {
			fmt.Fprintf(stderr, "%d candidates were evaluated locally: over the worker's limits\n", fallbacks)
		}
		if err == nil {
			err = ferr
		}
	}
	if err != nil {
		return failRecommend(stderr, o.config, err)
	}
	// recommendation.json and .csv first (with --overwrite this also removes the old
	// numbered configurations), then recommendations/NNNN.yaml. The recommendations entry is
	// checked again: it may have changed during the search.
	if err := checkRecommendationsDir(o.outputDir); err != nil {
		return fail(stderr, err)
	}
	files := []outputFiles{bytesFile("recommendation.json", res.JSON), bytesFile("recommendation.csv", res.CSV)}
	if o.artifacts {
		af, aerr := recommendationArtifacts(res.JSON, o.artifactsTop)
		if aerr != nil {
			return failRecommend(stderr, o.config, aerr)
		}
		files = append(files, af...)
	}
	if err := writeOutputs(o.outputDir, files, o.overwrite); err != nil {
		return failRecommend(stderr, o.config, err)
	}
	if len(res.Configs) > 0 {
		var files []outputFiles
		for _, f := range res.Configs {
			files = append(files, bytesFile(path.Base(f.Name), f.Data))
		}
		if err := writeOutputs(filepath.Join(o.outputDir, "recommendations"), files, false); err != nil {
			return failRecommend(stderr, o.config, err)
		}
	}
	for _, d := range res.Distrusted {
		fmt.Fprintf(stderr, "aisimulate recommend: warning: remote %s was not trusted: %s; every outcome it answered was recomputed locally\n",
			termsafe.Escape(d.Remote), termsafe.Escape(d.Reason))
	}
	resultPath := path.Join(o.outputDir, "recommendation.json")
	if o.strictRemote && len(res.Distrusted) > 0 {
		fmt.Fprintf(stderr, "aisimulate recommend failed: --strict-remote: %d remote worker(s) answered outcomes this build does not reproduce; the result, recomputed locally, is saved to: %s\n",
			len(res.Distrusted), resultPath)
		return ExitFailure
	}
	if res.Feasible == 0 {
		fmt.Fprintf(stderr, "no feasible candidate found; saved full result to: %s\n", resultPath)
		return ExitFailure
	}
	columns, readable := readableColumns(env)
	if o.format == "json" || !readable {
		// The readable table states them itself; the plain outputs keep the reference's
		// standard output, so the warnings go to stderr.
		for _, w := range res.Stats.Warnings {
			fmt.Fprintln(stderr, "warning: "+w)
		}
	}
	if o.format == "json" {
		b, err := res.StdoutJSON(o.outputDir)
		if err != nil {
			return failRecommend(stderr, o.config, err)
		}
		stdout.Write(b)
	} else if readable {
		io.WriteString(stdout, res.ReadableTable(o.outputDir, columns))
	} else {
		io.WriteString(stdout, res.Table(o.outputDir))
	}
	return ExitOK
}

// failRecommend reports a configuration error (exit 2) or a failure (exit 1).
func failRecommend(stderr io.Writer, config string, err error) int {
	var se *spec.Error
	var me *measure.Error
	switch {
	case errors.As(err, &me):
		return fail(stderr, &usageError{"", "aisimulate", shortReason(me.Error())})
	case errors.As(err, &se):
		return fail(stderr, configFailure(config, err))
	}
	fmt.Fprintf(stderr, "aisimulate recommend failed: %s\n", termsafe.EscapeLines(err.Error()))
	return ExitFailure
}

// searchProgress prints "trials N/M  best <score>  elapsed Xs  remaining ~Ys" on stderr at
// most every 200 ms.
type searchProgress struct {
	w     io.Writer
	start time.Time
	last  time.Time
	shown bool
}

func (p *searchProgress) report(done, total int, best float64) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last, p.shown = now, true
	elapsed := now.Sub(p.start).Seconds()
	remaining := 0.0
	if done > 0 {
		remaining = elapsed / float64(done) * float64(total-done)
	}
	bestText := "none yet"
	if !math.IsInf(best, -1) {
		bestText = strconv.FormatFloat(best, 'g', 4, 64)
	}
	fmt.Fprintf(p.w, "\rtrials %d/%d  best %s  elapsed %.1fs  remaining ~%.0fs   ", done, total, bestText, elapsed, remaining)
}

func (p *searchProgress) finish() {
	if p != nil && p.shown {
		fmt.Fprintln(p.w)
	}
}
