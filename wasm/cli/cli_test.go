package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/canon"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// e2YAML is the worked example E2 (docs/semantics/simulation.md) in flow style, shared by
// the targets' tests, which edit its lines: wasm/testdata/e2.yaml.
var e2YAML = func() string {
	b, err := os.ReadFile("../testdata/e2.yaml")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// fakeOutput builds an Output the way simcore does, from a small summary.
func fakeOutput(t *testing.T, capture bool) *simcore.Output {
	t.Helper()
	summary := map[string]any{"completed_requests": 6, "num_requests": 6, "mean_ttft_ms": 2.0,
		"wall_time_ms": 12.5, "request_throughput_rps": 400.0}
	var perRequest any
	records := 0
	var jsonl []byte
	if capture {
		rec := map[string]any{"uuid": "00000000-0000-0000-0000-000000000001", "ttft_ms": 2.0}
		perRequest = []any{rec}
		records = 1
		line, err := canon.Compact(rec)
		if err != nil {
			t.Fatal(err)
		}
		jsonl = append(line, '\n')
	}
	pred, err := canon.Pretty(map[string]any{
		"coverage":    map[string]any{"capture_per_request": capture, "capture_planner_details": true, "per_request_records": records},
		"per_request": perRequest, "planner": nil, "summary": summary,
	})
	if err != nil {
		t.Fatal(err)
	}
	sj, err := canon.Compact(summary)
	if err != nil {
		t.Fatal(err)
	}
	sj = append(sj, '\n')
	return &simcore.Output{PredictionJSON: pred, RequestsJSONL: jsonl, SummaryJSON: sj, StdoutJSON: sj, Summary: summary,
		WriteOutputs: writeBytes(pred, jsonl)}
}

// writeBytes is an Output writer of fixed bytes: pred to its first writer, reqs to the
// second when there is one.
func writeBytes(pred, reqs []byte) func(pw, rw io.Writer) error {
	return func(pw, rw io.Writer) error {
		if _, err := pw.Write(pred); err != nil || rw == nil {
			return err
		}
		_, err := rw.Write(reqs)
		return err
	}
}

type run struct {
	code           int
	stdout, stderr string
	in             *simcore.Input
}

// runCLI runs Main in dir with a fake simulator returning out (or err).
func runCLI(t *testing.T, dir string, env []string, out *simcore.Output, perr error, args ...string) run {
	t.Helper()
	var got simcore.Input
	called := false
	predict = func(in simcore.Input) (*simcore.Output, error) {
		got, called = in, true
		if perr != nil {
			return nil, perr
		}
		return out, nil
	}
	t.Cleanup(func() { predict = simcore.Predict })
	if dir != "" {
		t.Chdir(dir)
	}
	var so, se bytes.Buffer
	code := Main(args, env, nil, &so, &se)
	r := run{code: code, stdout: so.String(), stderr: se.String()}
	if called {
		r.in = &got
	}
	return r
}

func writeConfig(t *testing.T, dir string) string {
	t.Helper()
	p := filepath.Join(dir, "e2.yaml")
	if err := os.WriteFile(p, []byte(e2YAML), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelpVersionAndUsage(t *testing.T) {
	r := runCLI(t, "", nil, nil, nil, "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "aisimulate predict --stack dynamo --config examples/quickstart.yaml") {
		t.Errorf("--help: code %d stdout %q", r.code, r.stdout)
	}
	r = runCLI(t, "", nil, nil, nil, "predict", "-h")
	if r.code != 0 || !strings.Contains(r.stdout, "--capture-per-request") || !strings.Contains(r.stdout, "Example:") {
		t.Errorf("predict -h: code %d stdout %q", r.code, r.stdout)
	}
	r = runCLI(t, "", nil, nil, nil, "--version")
	if r.code != 0 || r.stdout != "aisimulate "+simcore.Version+"\n" {
		t.Errorf("--version: %d %q", r.code, r.stdout)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, "aisimulate: error: the following arguments are required: command\n"},
		{[]string{"simulate"}, "aisimulate: error: argument command: invalid choice: 'simulate' (choose from 'predict', 'recommend', 'calibrate')\n"},
		{[]string{"predict"}, "aisimulate predict: error: the following arguments are required: -c/--config\n"},
		{[]string{"predict", "--config"}, "aisimulate predict: error: argument -c/--config: expected one argument\n"},
		{[]string{"predict", "-c", "x", "--bogus", "extra"}, "aisimulate: error: unrecognized arguments: --bogus extra\n"},
		{[]string{"predict", "-c", "x", "--format", "xml"}, "aisimulate predict: error: argument --format: invalid choice: 'xml' (choose from 'table', 'json')\n"},
		{[]string{"predict", "-c", "x", "--o", "d"}, "aisimulate predict: error: ambiguous option: --o could match --online, --output-dir, --overwrite\n"},
		{[]string{"predict", "-c", "x", "--overwrite=yes"}, "aisimulate predict: error: argument --overwrite: ignored explicit argument 'yes'\n"},
		{[]string{"predict", "-c", "x", "--detail", "summary,power"}, "aisimulate predict: error: argument --detail: invalid section 'power' (choose from summary, memory, time, energy, source, all)\n"},
		{[]string{"predict", "-c", "x", "--detail-top-n", "0"}, "aisimulate predict: error: argument --detail-top-n: must be a positive integer, got '0'\n"},
		{[]string{"predict", "-c", "x"}, "aisimulate: error: stack 'engine' is unavailable; installed stacks: dynamo. Pass --stack dynamo.\n"},
		{[]string{"predict", "-c", "x", "--stack", "vllm"}, "aisimulate: error: stack 'vllm' is unavailable; installed stacks: dynamo. Pass --stack dynamo.\n"},
		{[]string{"recommend"}, "aisimulate recommend: error: the following arguments are required: -c/--config\n"},
	} {
		r := runCLI(t, "", nil, nil, nil, c.args...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "usage: aisimulate") || !strings.HasSuffix(r.stderr, c.msg) || r.stdout != "" {
			t.Errorf("%q: code %d stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.msg)
		}
	}
}

func TestParsePredictForms(t *testing.T) {
	o, err := parsePredict([]string{"--conf=a.yaml", "--stack=dynamo", "--set", "x.y=1", "--set=z=2",
		"--output", "out", "--overwrite", "--form", "json", "--capture", "--detail", "memory,summary",
		"--diagnostics", "power", "--progress"})
	if err != nil {
		t.Fatal(err)
	}
	want := options{commonOptions: commonOptions{config: "a.yaml", haveConfig: true, stack: "dynamo",
		sets: []string{"x.y=1", "z=2"}, outputDir: "out", overwrite: true, format: "json", progress: true},
		capturePerRequest: true, detail: []string{"summary", "memory", "energy"}}
	if !equalOptions(*o, want) {
		t.Fatalf("parsed %+v\nwant   %+v", *o, want)
	}
	o, err = parsePredict([]string{"-cfile.yaml", "--detail", "all"})
	if err != nil || o.config != "file.yaml" || strings.Join(o.detail, ",") != "summary,memory,time,energy,source" {
		t.Fatalf("parsed %+v, %v", o, err)
	}
	if o, err := parsePredict([]string{"-c", "f", "--set", "-1"}); err != nil || o.sets[0] != "-1" {
		t.Fatalf("negative-number value: %+v %v", o, err)
	}
}

func equalOptions(a, b options) bool {
	return a.config == b.config && a.haveConfig == b.haveConfig && a.stack == b.stack &&
		strings.Join(a.sets, "\x00") == strings.Join(b.sets, "\x00") && a.outputDir == b.outputDir &&
		a.overwrite == b.overwrite && a.format == b.format && a.capturePerRequest == b.capturePerRequest &&
		a.online == b.online && strings.Join(a.detail, ",") == strings.Join(b.detail, ",") &&
		a.progress == b.progress && a.help == b.help
}

func TestConfigErrorsExit2(t *testing.T) {
	dir := t.TempDir()
	cfg := writeConfig(t, dir)
	r := runCLI(t, dir, nil, nil, nil, "predict", "--stack", "dynamo", "-c", "missing.yaml")
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: could not read configuration missing.yaml: no such file or directory\n") {
		t.Errorf("missing config: %d %q", r.code, r.stderr)
	}
	r = runCLI(t, dir, nil, nil, nil, "predict", "--stack", "dynamo", "-c", "e2.yaml", "--set", "traffic.load.concurrency=0")
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: e2.yaml: traffic.load.concurrency: must be greater than 0, got 0\n") || r.in != nil {
		t.Errorf("bad --set: %d %q (simulator called: %v)", r.code, r.stderr, r.in != nil)
	}
	r = runCLI(t, dir, nil, nil, nil, "predict", "--stack", "dynamo", "-c", cfg, "--online")
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: "+cfg+": runner does not support execution mode 'online'\n") {
		t.Errorf("--online: %d %q", r.code, r.stderr)
	}
	// A configuration error found by the simulator itself (e.g. a trace file) is exit 2 too.
	r = runCLI(t, dir, nil, nil, &spec.Error{Path: "traffic.source.paths", Msg: "cannot open trace file"}, "predict", "--stack", "dynamo", "-c", "e2.yaml")
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: e2.yaml: traffic.source.paths: cannot open trace file\n") {
		t.Errorf("simulator config error: %d %q", r.code, r.stderr)
	}
	r = runCLI(t, dir, []string{simcore.EnvFixedWallTimeMs + "=soon"}, nil, nil, "predict", "--stack", "dynamo", "-c", "e2.yaml")
	if r.code != 2 || !strings.Contains(r.stderr, simcore.EnvFixedWallTimeMs) {
		t.Errorf("bad fixed wall time: %d %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "aisimulate-output")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an error run created the output directory: %v", err)
	}
}

func TestExecutionFailureExit1WritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	r := runCLI(t, dir, nil, nil, errors.New("worker exploded"), "predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "a/b")
	if r.code != 1 || r.stderr != "aisimulate predict failed: worker exploded\n" || r.stdout != "" {
		t.Errorf("got %d %q %q", r.code, r.stderr, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("failed run created output directory: %v", err)
	}
}

func TestSuccessTableAndInputs(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	out := fakeOutput(t, false)
	r := runCLI(t, dir, []string{simcore.EnvFixedWallTimeMs + "=12.5"}, out, nil,
		"predict", "--stack", "dynamo", "-c", "e2.yaml", "--set", "traffic.stop.requests=6")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("code %d stderr %q", r.code, r.stderr)
	}
	if r.stdout != report.Table(out.Summary, out.Saturation, "./aisimulate-output") ||
		!strings.HasSuffix(r.stdout, "Saved full report to: aisimulate-output/prediction.json\n") {
		t.Errorf("stdout:\n%s", r.stdout)
	}
	got, err := os.ReadFile(filepath.Join(dir, "aisimulate-output", "prediction.json"))
	if err != nil || !bytes.Equal(got, out.PredictionJSON) {
		t.Errorf("prediction.json = %q, %v", got, err)
	}
	in := r.in
	if in.ConfigName != "e2.yaml" || string(in.ConfigYAML) != e2YAML || len(in.Sets) != 1 ||
		in.CapturePerRequest || in.FixedWallTimeMs == nil || *in.FixedWallTimeMs != 12.5 ||
		in.Clock == nil || in.Files == nil || in.Progress != nil {
		t.Errorf("input %+v", in)
	}
	if a, b := in.Clock(), in.Clock(); a < 0 || b < a {
		t.Errorf("clock not monotonic: %v then %v", a, b)
	}
	// Files resolves paths relative to the working directory, and absolute ones.
	for _, name := range []string{"e2.yaml", filepath.ToSlash(filepath.Join(dir, "e2.yaml"))} {
		f, err := in.Files.Open(name)
		if err != nil {
			t.Errorf("Files.Open(%q): %v", name, err)
			continue
		}
		f.Close()
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "aisimulate-output"))
	if len(entries) != 1 {
		t.Errorf("output dir holds %d entries, want only prediction.json", len(entries))
	}
}

func TestJSONFormatCaptureAndDetail(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	out := fakeOutput(t, true)
	r := runCLI(t, dir, nil, out, nil, "predict", "--stack", "dynamo", "-c", "e2.yaml",
		"--format", "json", "--capture-per-request", "--output-dir", "deep/er/out")
	if r.code != 0 || r.stdout != string(out.SummaryJSON) || !r.in.CapturePerRequest {
		t.Fatalf("code %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	jl, err := os.ReadFile(filepath.Join(dir, "deep/er/out/requests.jsonl"))
	if err != nil || !bytes.Equal(jl, out.RequestsJSONL) {
		t.Errorf("requests.jsonl = %q, %v", jl, err)
	}
	// --detail hands the sections to the simulator, which builds prediction.json and the
	// JSON stdout with details (simcore's TestDetailSections); the CLI writes what it gets.
	detailed := *out
	detailed.PredictionJSON = []byte("{\"details\": \"from the simulator\"}\n")
	detailed.WriteOutputs = writeBytes(detailed.PredictionJSON, out.RequestsJSONL)
	detailed.StdoutJSON = []byte("{\"details\":1,\"summary\":{}}\n")
	r = runCLI(t, dir, nil, &detailed, nil, "predict", "--stack", "dynamo", "-c", "e2.yaml",
		"--format", "json", "--detail", "time,summary", "--output-dir", "d")
	if r.code != 0 {
		t.Fatalf("detail run: %d %q", r.code, r.stderr)
	}
	if got := strings.Join(r.in.Detail, ","); got != "summary,time" {
		t.Errorf("Input.Detail = %q, want summary,time (canonical order)", got)
	}
	if r.stdout != string(detailed.StdoutJSON) {
		t.Errorf("stdout %q, want Output.StdoutJSON", r.stdout)
	}
	if pj, _ := os.ReadFile(filepath.Join(dir, "d", "prediction.json")); !bytes.Equal(pj, detailed.PredictionJSON) {
		t.Errorf("prediction.json %q, want Output.PredictionJSON", pj)
	}
}

func TestOutputDirectoryRules(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	out := fakeOutput(t, false)
	args := func(extra ...string) []string {
		return append([]string{"predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "out"}, extra...)
	}
	os.WriteFile(filepath.Join(dir, "out"), []byte("file"), 0o644)
	r := runCLI(t, dir, nil, out, nil, args()...)
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: output directory out is not a directory\n") || r.in != nil {
		t.Errorf("file as output dir: %d %q", r.code, r.stderr)
	}
	r = runCLI(t, dir, nil, out, nil, "predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "out/sub")
	if r.code != 2 || !strings.Contains(r.stderr, "cannot be created: out is not a directory") {
		t.Errorf("output dir below a file: %d %q", r.code, r.stderr)
	}
	os.Remove(filepath.Join(dir, "out"))
	must(t, os.MkdirAll(filepath.Join(dir, "out", "recommendations"), 0o755))
	old := map[string]string{
		"prediction.json": "old", "requests.jsonl": "old", "recommendation.csv": "old",
		"resource-plan.json": "old", "recommendations/0001.yaml": "old",
		"recommendations/notes.yaml": "keep", "recommendations/12345.yaml": "keep", "keep.txt": "keep",
	}
	for name, content := range old {
		must(t, os.WriteFile(filepath.Join(dir, "out", name), []byte(content), 0o644))
	}
	must(t, os.Symlink("keep.txt", filepath.Join(dir, "out", "recommendation.json")))
	r = runCLI(t, dir, nil, out, nil, args()...)
	if r.code != 2 || !strings.HasSuffix(r.stderr, "aisimulate: error: output directory out is not empty; pass --overwrite to replace known AISimulate outputs\n") || r.in != nil {
		t.Errorf("non-empty: %d %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out", "prediction.json")); string(b) != "old" {
		t.Errorf("refused run touched prediction.json: %q", b)
	}
	// A failed run with --overwrite leaves every old artefact in place.
	r = runCLI(t, dir, nil, nil, errors.New("boom"), args("--overwrite")...)
	if r.code != 1 {
		t.Errorf("failing overwrite run: %d", r.code)
	}
	for name, content := range old {
		if b, _ := os.ReadFile(filepath.Join(dir, "out", name)); string(b) != content {
			t.Errorf("failed run changed %s to %q", name, b)
		}
	}
	r = runCLI(t, dir, nil, out, nil, args("--overwrite")...)
	if r.code != 0 {
		t.Fatalf("overwrite: %d %q", r.code, r.stderr)
	}
	for name, content := range old {
		b, err := os.ReadFile(filepath.Join(dir, "out", name))
		switch {
		case name == "prediction.json":
			if !bytes.Equal(b, out.PredictionJSON) {
				t.Errorf("prediction.json not replaced: %q", b)
			}
		case content == "keep":
			if string(b) != "keep" {
				t.Errorf("%s not preserved: %q %v", name, b, err)
			}
		default:
			if !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s not deleted: %q %v", name, b, err)
			}
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "out", "recommendation.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("known-output symlink not deleted: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out", "keep.txt")); string(b) != "keep" {
		t.Errorf("symlink target damaged: %q", b)
	}
}

func TestWriteFailureIsExit1(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	must(t, os.MkdirAll(filepath.Join(dir, "out", "prediction.json"), 0o755)) // a directory in the way
	must(t, os.WriteFile(filepath.Join(dir, "out", "requests.jsonl"), []byte("old"), 0o644))
	r := runCLI(t, dir, nil, fakeOutput(t, false), nil, "predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "out", "--overwrite")
	if r.code != 1 || !strings.HasPrefix(r.stderr, "aisimulate predict failed: could not write out/prediction.json") || r.stdout != "" {
		t.Errorf("got %d %q %q", r.code, r.stderr, r.stdout)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestProgressOnStderr(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	out := fakeOutput(t, false)
	for _, c := range []struct {
		env  []string
		args []string
		want bool
	}{
		{nil, nil, false},
		{[]string{EnvProgress + "=1"}, nil, true},
		{nil, []string{"--progress"}, true},
	} {
		args := append([]string{"predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", t.TempDir(), "--format", "json"}, c.args...)
		r := runCLI(t, dir, c.env, out, nil, args...)
		if r.code != 0 || (r.in.Progress != nil) != c.want || r.stdout != string(out.SummaryJSON) {
			t.Errorf("%v %v: code %d progress %v stdout %q", c.env, c.args, r.code, r.in.Progress != nil, r.stdout)
		}
	}
}

func TestProgressThrottle(t *testing.T) {
	var b bytes.Buffer
	p := &progress{w: &b}
	p.report(0.5) // start is the zero time: long ago, so this prints
	p.report(0.6) // within 200 ms: suppressed
	p.finish()
	if b.String() != "\rsimulating…  50%  ETA 2562047 h 47 min\rsimulating… done               \n" {
		t.Errorf("progress output %q", b.String())
	}
	var nilp *progress
	nilp.finish() // no progress: no-op
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// FuzzParsePredict checks the flag parser never panics and that what it accepts is
// consistent: a config is present and the format is one of the two choices.
func FuzzParsePredict(f *testing.F) {
	f.Add("--config\x00a.yaml\x00--set\x00x=1\x00--format=json")
	f.Add("-cx\x00--detail\x00all\x00--ov\x00--")
	f.Add("--o\x00--stack")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		o, err := parsePredict(args)
		if err != nil {
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("non-usage error %v", err)
			}
			return
		}
		if o.help {
			return
		}
		if !o.haveConfig || (o.format != "table" && o.format != "json") {
			t.Fatalf("accepted inconsistent options %+v", o)
		}
	})
}

// The ETA extrapolates the elapsed time over the fraction done.
func TestProgressETA(t *testing.T) {
	for _, c := range []struct {
		elapsed  time.Duration
		fraction float64
		want     string
	}{
		{time.Second, 0.5, "  ETA 1 s      "},
		{3 * time.Second, 0.25, "  ETA 9 s      "},
		{30 * time.Second, 0.2, "  ETA 2 min 00 s"},
		{time.Hour, 0.5, "  ETA 1 h 00 min"},
		{time.Second, 0.001, "               "},
	} {
		if got := eta(c.elapsed, c.fraction); got != c.want {
			t.Errorf("eta(%v, %v) = %q, want %q", c.elapsed, c.fraction, got, c.want)
		}
	}
}
