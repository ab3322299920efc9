package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calibDir is a working directory holding the quickstart deployment and the two example
// benchmark results of docs/calibration.md's worked example, under bench/.
func calibDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "bench"), 0o755))
	for src, dst := range map[string]string{"examples/quickstart.yaml": "deploy.yaml",
		"examples/calibration/vllm-c8.json": "bench/c8.json", "examples/calibration/vllm-c64.json": "bench/c64.json",
		"simcore/measure/testdata/runs.csv": "bench/rows.csv"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, src))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, dst), b, 0o644))
	}
	return dir
}

// calibrate → predict --calibration through the binary, with relative, ".." and absolute
// paths: the profile is the same bytes whatever the form, the prediction holds the
// calibrated and uncalibrated summaries and the calibration section.
func TestCalibrateThenPredict(t *testing.T) {
	requireCore(t)
	dir := calibDir(t)
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	r := runIn(dir, nil, "calibrate", "--stack", "dynamo", "--config", "deploy.yaml", "--measurements", "bench/c8.json", "--measurements", "bench/c64.json", "--output-dir", "cal")
	if r.code != 0 || !strings.Contains(r.stdout, "Saved calibration profile to: cal/calibration.json") {
		t.Fatalf("calibrate: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	rel := readFile(t, filepath.Join(dir, "cal", "calibration.json"))
	r = runIn(filepath.Join(dir, "sub"), nil, "calibrate", "--stack", "dynamo", "-c", "../deploy.yaml", "--measurements", "../bench/c8.json", "--measurements", filepath.Join(dir, "bench", "c64.json"), "--output-dir", "../cal2", "--format", "json")
	if r.code != 0 {
		t.Fatalf("calibrate with .. and absolute paths: exit %d stderr %q", r.code, r.stderr)
	}
	var report map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || len(report["measurements"].([]any)) != 2 {
		t.Errorf("--format json: %v %q", err, r.stdout)
	}
	// The files are named as given, so the provenance differs in the names only.
	other := readFile(t, filepath.Join(dir, "cal2", "calibration.json"))
	norm := strings.NewReplacer("../bench/c8.json", "bench/c8.json", filepath.Join(dir, "bench", "c64.json"), "bench/c64.json")
	if norm.Replace(other) != rel {
		t.Error("the profile depends on how the measurement paths were written")
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", "traffic.load.concurrency=32",
		"--calibration", "cal/calibration.json", "--output-dir", "out", "--format", "json")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("predict --calibration: exit %d stderr %q", r.code, r.stderr)
	}
	var pred map[string]any
	must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "out", "prediction.json"))), &pred))
	cal, unc := pred["summary"].(map[string]any), pred["uncalibrated"].(map[string]any)
	if cal["mean_ttft_ms"] == unc["mean_ttft_ms"] {
		t.Error("the calibrated summary equals the uncalibrated one")
	}
	role := pred["calibration"].(map[string]any)["roles"].(map[string]any)["aggregated"].(map[string]any)
	if role["in_scope"] != true || role["inside_domain"] != true {
		t.Errorf("calibration section: %v", role)
	}
	// Outside the validity domain: a warning, and exit 2 with --strict-calibration.
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", "traffic.load.concurrency=256",
		"--calibration", "cal/calibration.json", "--output-dir", "out256")
	if r.code != 0 || !strings.Contains(r.stderr, "aisimulate: warning: cal/calibration.json: role aggregated is outside the validity domain") {
		t.Errorf("outside the domain: exit %d stderr %q", r.code, r.stderr)
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", "engine.hardware=h100_sxm",
		"--calibration", "cal/calibration.json", "--strict-calibration", "--output-dir", "strict")
	if r.code != 2 || !strings.Contains(r.stderr, "outside the scope") || exists(filepath.Join(dir, "strict")) {
		t.Errorf("--strict-calibration outside the scope: exit %d stderr %q", r.code, r.stderr)
	}
}

// CSV rows carry their deployment: no --config, and configs/<row id>.yaml replay them.
func TestCalibrateCSVWritesRowConfigs(t *testing.T) {
	requireCore(t)
	dir := calibDir(t)
	r := runIn(dir, nil, "calibrate", "--stack", "dynamo", "--measurements", "bench/rows.csv", "--output-dir", "cal")
	if r.code != 0 {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	cfg := filepath.Join(dir, "cal", "configs", "llama8b_h200_vllm_agg_1024x128_c32.yaml")
	if !strings.Contains(readFile(t, cfg), "concurrency: 32") {
		t.Errorf("%s does not replay the row's load", cfg)
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", cfg, "--set", "traffic.load.concurrency=16", "--output-dir", "p")
	if r.code != 0 {
		t.Errorf("the row's configuration at another load: exit %d stderr %q", r.code, r.stderr)
	}
}

// Bad measurement files and profiles are exit 2 naming the file (and field); nothing is
// written.
func TestCalibrateBadFilesExit2(t *testing.T) {
	requireCore(t)
	dir := calibDir(t)
	c8 := readFile(t, filepath.Join(dir, "bench", "c8.json"))
	must(t, os.WriteFile(filepath.Join(dir, "nan.json"), []byte(strings.Replace(c8, `"mean_tpot_ms": 8.1`, `"mean_tpot_ms": NaN`, 1)), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "bad-profile.json"), []byte(`{"schema_version": 1, "program": "x", "entries": []}`), 0o644))
	example, err := os.ReadFile(filepath.Join(repoRoot, "examples/calibration/profile.json"))
	must(t, err)
	lowKV := strings.Replace(string(example), `"handoff_ms": 0,`, `"handoff_ms": 0, "kv_capacity_scale": 0.1,`, 1)
	if lowKV == string(example) {
		t.Fatal("the example profile has no handoff_ms to put kv_capacity_scale after")
	}
	must(t, os.WriteFile(filepath.Join(dir, "low-kv.json"), []byte(lowKV), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "--stack", "dynamo", "-c", "deploy.yaml", "--measurements", "nan.json", "--output-dir", "o"}, "aisimulate: error: nan.json: mean_tpot_ms: \"NaN\" is not a finite number"},
		{[]string{"calibrate", "--stack", "dynamo", "-c", "deploy.yaml", "--measurements", "/dev/zero", "--output-dir", "o"}, "aisimulate: error: /dev/zero: not a regular file"},
		{[]string{"calibrate", "--stack", "dynamo", "-c", "deploy.yaml", "--measurements", "missing.json", "--output-dir", "o"}, "aisimulate: error: missing.json: could not read measurement file"},
		{[]string{"calibrate", "--stack", "dynamo", "--measurements", "bench/c8.json", "--output-dir", "o"}, "bench/c8.json: the file does not record the deployment"},
		{[]string{"predict", "--stack", "dynamo", "-c", "deploy.yaml", "--calibration", "bad-profile.json", "--output-dir", "o"}, "aisimulate: error: bad-profile.json: entries: must hold 1 to 1000 entries"},
		{[]string{"predict", "--stack", "dynamo", "-c", "deploy.yaml", "--calibration", "low-kv.json", "--output-dir", "o"}, "aisimulate: error: low-kv.json: entries[0].parameters.kv_capacity_scale: 0.1 is outside its physical range [0.25, 1]"},
	} {
		r := runIn(dir, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || exists(filepath.Join(dir, "o")) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q with nothing written", c.args, r.code, r.stderr, c.want)
		}
	}
}

// calibration.json and configs/<row id>.yaml are written in one transaction: when the
// profile cannot be placed (a directory in its way), no row configuration is left either.
func TestCalibrateWritesAllOrNothing(t *testing.T) {
	requireCore(t)
	dir := calibDir(t)
	must(t, os.MkdirAll(filepath.Join(dir, "cal", "calibration.json"), 0o755))
	r := runIn(dir, nil, "calibrate", "--stack", "dynamo", "--measurements", "bench/rows.csv", "--output-dir", "cal", "--overwrite")
	if r.code != 1 || !strings.Contains(r.stderr, "a directory of that name is in the way") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	if exists(filepath.Join(dir, "cal", "configs")) {
		t.Error("configs/ written although calibration.json failed")
	}
}

// Measurements whose mean TTFT falls as the load rises on one deployment (docs/calibration.md,
// "Measurements that contradict a closed loop"): calibrate says one warning on stderr naming
// both rows, then one for each measurement its profile misses ("Measurements the profile does
// not explain"), exits 0 and writes the profile, the same bytes whatever the path form; the JSON
// report carries the warning, and a calibration without a contradiction has "warnings": [].
func TestCalibrateWarnsOnAFallingMean(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "bench"), 0o755))
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	b, err := os.ReadFile(filepath.Join(repoRoot, "tests/testdata/calibrate-falling-ttft.csv"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "bench", "falling.csv"), b, 0o644))
	unexplained := func(row, load, got, measured, miss string) string {
		return "aisimulate: warning: bench/falling.csv " + row + " (" + load + "): the profile gives a mean TTFT of " + got + " ms against the " + measured +
			" ms measured (" + miss + " %), beyond the 15 % by which repeated runs of one deployment differ: no one set of the profile's parameters " +
			"reproduces this deployment's measurements, so its predictions near this load and between the measured loads will miss by as much (the " +
			"calibrated intervals widen with this residual); measure more loads, calibrate a narrower range of them, or check the deployment they are replayed on\n"
	}
	warning := "aisimulate: warning: bench/falling.csv l8_c16 (concurrency 16) has a mean TTFT of 76.0 ms, 20.0 % below the 95.0 ms of " +
		"bench/falling.csv l8_c4 (concurrency 4) on the same deployment: one deployment's mean latency cannot fall as its load rises, so either " +
		"the lower-load run included a warm-up or the two runs come from different campaigns or deployments; re-measure both, or leave one out " +
		"(the profile fits both, so its predictions between the two loads will miss)\n" +
		unexplained("l8_c4", "concurrency 4", "76.2", "95.0", "-19.7") + unexplained("l8_c16", "concurrency 16", "197.5", "76.0", "+159.8")
	r := runIn(dir, nil, "calibrate", "--stack", "dynamo", "--measurements", "bench/falling.csv", "--output-dir", "cal")
	if r.code != 0 || r.stderr != warning || !strings.Contains(r.stdout, "Saved calibration profile to: cal/calibration.json") {
		t.Fatalf("calibrate: exit %d stdout %q stderr %q, want exit 0 and\n%s", r.code, r.stdout, r.stderr, warning)
	}
	profile := readFile(t, filepath.Join(dir, "cal", "calibration.json"))
	abs := filepath.Join(dir, "bench", "falling.csv")
	for _, name := range []string{"../bench/falling.csv", abs} {
		r = runIn(filepath.Join(dir, "sub"), nil, "calibrate", "--stack", "dynamo", "--measurements", name, "--output-dir", "out", "--overwrite", "--format", "json")
		if r.code != 0 || r.stderr != strings.ReplaceAll(warning, "bench/falling.csv", name) {
			t.Fatalf("%s: exit %d stderr %q", name, r.code, r.stderr)
		}
		var report struct{ Warnings []string }
		must(t, json.Unmarshal([]byte(r.stdout), &report))
		if len(report.Warnings) != 3 || "aisimulate: warning: "+strings.Join(report.Warnings, "\naisimulate: warning: ")+"\n" != r.stderr {
			t.Errorf("%s: the JSON report's warnings %q, want stderr's", name, report.Warnings)
		}
		if got := strings.ReplaceAll(readFile(t, filepath.Join(dir, "sub", "out", "calibration.json")), name, "bench/falling.csv"); got != profile {
			t.Errorf("%s: the profile depends on how the path was written", name)
		}
	}
	cd := calibDir(t)
	r = runIn(cd, nil, "calibrate", "--stack", "dynamo", "-c", "deploy.yaml", "--measurements", "bench/c8.json", "--measurements", "bench/c64.json", "--output-dir", "cal", "--format", "json")
	if r.code != 0 || r.stderr != "" || !strings.Contains(r.stdout, `"warnings":[]`) {
		t.Errorf("no contradiction: exit %d stderr %q stdout %q", r.code, r.stderr, r.stdout)
	}
}
