package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strings"

	"aisimulate/simcore"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

const calibrateUsage = `usage: aisimulate calibrate [-h] --stack dynamo [-c CONFIG] --measurements PATH
                           [--measurements PATH ...] [--output-dir OUTPUT_DIR]
                           [--lengths YAML] [--overwrite] [--format {table,json}]
`

const calibrateHelp = calibrateUsage + `
Fit a calibration profile to your own benchmark results and write
<output-dir>/calibration.json (docs/calibration.md). The fit corrects the prefill and
decode pass times and the frontend and hand-off latencies, and, when a measured load
queued where the default model does not, the KV capacity (a queue for admission), the
frontend's serial time per request (a queue in front of the engine) or, on a disaggregated
TensorRT-LLM deployment, the requests a decode rank runs at once. It warns (on
stderr and in the JSON report) about measurements whose latency falls as their load rises
or, with a length draw, that are faster than the deployment can run, and about those the
fitted profile misses by more than repeated runs differ (15 %): its predictions near them
will miss as much.

options:
  -h, --help            show this help message and exit
  --stack STACK         execution stack; pass --stack dynamo
  -c, --config CONFIG   the deployment the measurements ran on (prediction YAML); optional
                        when every measurement is a measured-runs CSV row, which records its
                        own deployment
  --measurements PATH   a benchmark result: AIPerf profile_export_aiperf.json or
                        profile_export.jsonl, vllm bench serve --save-result JSON, SGLang
                        bench_serving JSONL, or a measured-runs CSV (detected from the
                        content); repeatable
  --lengths YAML        how the benchmark client drew each request's lengths, for files
                        that do not record it (vLLM's JSON, measured-runs CSV rows, AIPerf's
                        per-request export): a traffic.source.synthetic.lengths mapping, e.g.
                        '{distribution: uniform, min_ratio: 0.8}' for a one-sided range
                        ratio of 0.8 (docs/calibration.md, "Length draws"); default constant
  --output-dir OUTPUT_DIR
                        where calibration.json (and, for CSV rows, configs/<row id>.yaml)
                        go (default: ./aisimulate-output)
  --overwrite           allow a non-empty output directory (only the files this command
                        writes are replaced)
  --format {table,json}
                        standard output: the fit report as a table (default) or one JSON line

Exit status: 0 success, 1 the fit failed, 2 usage, configuration or measurement error
(nothing is written), 130 interrupted.

Example:
  aisimulate calibrate --stack dynamo --config deployment.yaml \
      --measurements c8/profile_export_aiperf.json --measurements c64/profile_export_aiperf.json
  aisimulate predict --stack dynamo --config deployment.yaml \
      --calibration aisimulate-output/calibration.json
`

// calibrateOptions are the parsed `calibrate` flags.
type calibrateOptions struct {
	commonOptions
	measurements []string
	// lengths is the --lengths text ("" when not given).
	lengths string
}

var calibrateArgs = argParser{usage: calibrateErr, flags: map[string]bool{
	"--config": true, "--stack": true, "--measurements": true, "--output-dir": true, "--overwrite": false,
	"--format": true, "--help": false, "--lengths": true,
}}

func calibrateErr(msg string) error { return &usageError{calibrateUsage, "aisimulate calibrate", msg} }

func parseCalibrate(args []string) (*calibrateOptions, error) {
	o := &calibrateOptions{commonOptions: newCommonOptions()}
	extra, err := calibrateArgs.parse(args, func(name, value string) error {
		if name == "--measurements" {
			o.measurements = append(o.measurements, value)
			return nil
		}
		if name == "--lengths" {
			o.lengths = value
			return nil
		}
		_, err := o.set(name, value, calibrateErr)
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
	if len(o.measurements) == 0 {
		return nil, calibrateErr("the following arguments are required: --measurements")
	}
	return o, nil
}

// runCalibrate is `aisimulate calibrate`: read the measurements (and the deployment), fit,
// write calibration.json and the CSV rows' configurations, print the fit report.
func runCalibrate(args []string, env []string, stdout, stderr io.Writer) int {
	o, err := parseCalibrate(args)
	if err != nil {
		return fail(stderr, err)
	}
	if o.help {
		io.WriteString(stdout, calibrateHelp)
		return ExitOK
	}
	if _, err := o.checkRun(env); err != nil {
		return fail(stderr, err)
	}
	in := simcore.CalibrateInput{Files: osFS{}}
	if o.lengths != "" {
		if in.Lengths, err = spec.ParseLengths("--lengths", []byte(o.lengths)); err != nil {
			return fail(stderr, calibrateErr(err.Error()))
		}
	}
	if o.haveConfig {
		text, err := readConfig(o.config)
		if err != nil {
			return fail(stderr, err)
		}
		in.ConfigName, in.ConfigYAML = o.config, text
	}
	for _, name := range o.measurements {
		data, err := readMeasurement(name)
		if err != nil {
			return fail(stderr, err)
		}
		in.Measurements = append(in.Measurements, simcore.NamedFile{Name: name, Data: data})
	}
	if err := checkOutputDir(o.outputDir, o.overwrite); err != nil {
		return fail(stderr, err)
	}
	out, err := simcore.Calibrate(in)
	if err != nil {
		var me *measure.Error
		var se *spec.Error
		switch {
		case errors.As(err, &me):
			return fail(stderr, &usageError{"", "aisimulate", shortReason(me.Error())})
		case errors.As(err, &se) && o.haveConfig:
			return fail(stderr, configFailure(o.config, err))
		case errors.As(err, &se):
			return fail(stderr, &usageError{"", "aisimulate", shortReason(se.Error())})
		}
		fmt.Fprintf(stderr, "aisimulate calibrate failed: %s\n", err)
		return ExitFailure
	}
	if len(out.RowConfigs) > 0 {
		if err := checkOutputSubdir(o.outputDir, simcore.RowConfigDir, "calibrate writes row configurations"); err != nil {
			return fail(stderr, err)
		}
	}
	// The profile and the rows' configurations in one transaction: a failure leaves none
	// of them (and every old file as it was).
	files := []outputFiles{bytesFile(calibrationFile, out.ProfileJSON)}
	for _, f := range out.RowConfigs {
		files = append(files, bytesFile(f.Name, f.Data))
	}
	if err := writeOutputs(o.outputDir, files, o.overwrite); err != nil {
		fmt.Fprintf(stderr, "aisimulate calibrate failed: %s\n", err)
		return ExitFailure
	}
	printWarnings(stderr, out.Warnings)
	if o.format == "json" {
		stdout.Write(out.StdoutJSON)
	} else {
		io.WriteString(stdout, out.Table+"\nSaved calibration profile to: "+path.Join(o.outputDir, calibrationFile)+"\n")
	}
	return ExitOK
}

// calibrationFile is the profile's name in the output directory.
const calibrationFile = "calibration.json"

// readProfiles reads the --calibration profiles of predict and recommend, named as given:
// regular files of at most spec.MaxProfileBytes.
func readProfiles(names []string) ([]simcore.NamedFile, error) {
	var profiles []simcore.NamedFile
	for _, name := range names {
		data, err := readRegular(name, "calibration profile", spec.MaxProfileBytes)
		if err != nil {
			return nil, err
		}
		profiles = append(profiles, simcore.NamedFile{Name: name, Data: data})
	}
	return profiles, nil
}

// readMeasurement reads a measurement file: a regular file (not a device or a pipe, which
// could be endless) of at most measure.MaxFileBytes, read no further than one byte past
// the limit.
func readMeasurement(name string) ([]byte, error) {
	return readRegular(name, "measurement file", measure.MaxFileBytes)
}

// readRegular reads a regular file (not a device or a pipe, which could be endless) of at
// most limit bytes, reading no further than one byte past it; what names the file's kind in
// errors.
func readRegular(name, what string, limit int64) ([]byte, error) {
	bad := func(msg string) error { return &usageError{"", "aisimulate", name + ": " + msg} }
	st, err := os.Stat(name)
	if err != nil {
		return nil, bad("could not read " + what + ": " + errText(err))
	}
	if !st.Mode().IsRegular() {
		return nil, bad("not a regular file; give a " + what)
	}
	if st.Size() > limit {
		return nil, bad(fmt.Sprintf("larger than %d MiB: not a %s", limit>>20, what))
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, bad("could not read " + what + ": " + errText(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, bad("could not read " + what + ": " + errText(err))
	}
	return data, nil
}
