package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// drawnSource is a synthetic source whose lengths are drawn as upstream vLLM's client draws
// them at --random-range-ratio 0.1 (docs/config.md, "Request length draws").
const drawnSource = "traffic.source={type: synthetic, input_tokens: 1024, output_tokens: 128, lengths: {distribution: uniform, min_ratio: 0.9, max_ratio: 1.1}}"

// A configuration with a length draw, in the file or by --set, through the binary: the run's
// token totals differ from constant lengths', the same draw written either way predicts the
// same bytes, and a bad draw is exit 2 naming the field with nothing written.
func TestPredictWithALengthDraw(t *testing.T) {
	requireCore(t)
	dir := calibDir(t)
	deploy := readFile(t, filepath.Join(dir, "deploy.yaml"))
	drawn := strings.Replace(deploy, "traffic:\n", "traffic:\n  # every length uniform in [0.9·L, 1.1·L]\n", 1)
	if !strings.Contains(deploy, "type: synthetic") {
		t.Fatal("the quickstart has no synthetic source")
	}
	drawn = strings.Replace(drawn, "type: synthetic", "type: synthetic\n    lengths: {distribution: uniform, min_ratio: 0.9, max_ratio: 1.1}", 1)
	must(t, os.WriteFile(filepath.Join(dir, "drawn.yaml"), []byte(drawn), 0o644))
	summary := func(out string) map[string]any {
		var p map[string]any
		must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, out, "prediction.json"))), &p))
		return p["summary"].(map[string]any)
	}
	r := runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "drawn.yaml", "--output-dir", "file")
	if r.code != 0 {
		t.Fatalf("predict drawn.yaml: exit %d stderr %q", r.code, r.stderr)
	}
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	r = runIn(filepath.Join(dir, "sub"), fixedWall, "predict", "--stack", "dynamo", "-c", "../deploy.yaml", "--set", drawnSource, "--output-dir", "../set")
	if r.code != 0 {
		t.Fatalf("predict --set lengths: exit %d stderr %q", r.code, r.stderr)
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", filepath.Join(dir, "deploy.yaml"), "--output-dir", "constant")
	if r.code != 0 {
		t.Fatalf("predict deploy.yaml: exit %d stderr %q", r.code, r.stderr)
	}
	if a, b := readFile(t, filepath.Join(dir, "file", "prediction.json")), readFile(t, filepath.Join(dir, "set", "prediction.json")); a != b {
		t.Error("the draw in the file and by --set predict different bytes")
	}
	f, c := summary("file"), summary("constant")
	if f["total_input_tokens"] == c["total_input_tokens"] || c["total_input_tokens"] != float64(1024*200) {
		t.Errorf("input tokens drawn %v, constant %v", f["total_input_tokens"], c["total_input_tokens"])
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", "traffic.source.lengths={distribution: uniform, max_ratio: 3}", "--output-dir", "bad")
	if r.code != 2 || !strings.Contains(r.stderr, "traffic.source.synthetic.lengths.max_ratio: must be at most 2, got 3") || exists(filepath.Join(dir, "bad")) {
		t.Errorf("bad draw: exit %d stderr %q", r.code, r.stderr)
	}
}

// calibrate on an AIPerf export whose synthetic prompts had a standard deviation: the profile
// records the draw, a prediction of the same draw is in scope, a constant one warns (and
// --strict-calibration refuses it); CSV rows take --lengths, and their configs/<row id>.yaml
// replay it.
func TestCalibrateReadsTheLengthDraw(t *testing.T) {
	requireCore(t)
	dir := calibDir(t)
	b, err := os.ReadFile(filepath.Join(repoRoot, "simcore/measure/testdata/profile_export_aiperf_stddev.json"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "bench", "aiperf.json"), b, 0o644))
	r := runIn(dir, nil, "calibrate", "--stack", "dynamo", "-c", "deploy.yaml", "--measurements", "bench/aiperf.json", "--output-dir", "cal")
	if r.code != 0 {
		t.Fatalf("calibrate: exit %d stderr %q", r.code, r.stderr)
	}
	prof := strings.Join(strings.Fields(readFile(t, filepath.Join(dir, "cal", "calibration.json"))), "")
	if !strings.Contains(prof, `"lengths":{"distribution":"normal","input_stddev_ratio":0.1,"output_stddev_ratio":0.0}`) {
		t.Errorf("the profile does not record the draw: %s", prof)
	}
	normal := "traffic.source={type: synthetic, input_tokens: 1000, output_tokens: 128, lengths: {distribution: normal, input_stddev_ratio: 0.1}}"
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", normal, "--set", "traffic.load.concurrency=8",
		"--calibration", "cal/calibration.json", "--strict-calibration", "--output-dir", "same")
	if r.code != 0 || r.stderr != "" {
		t.Errorf("the same draw: exit %d stderr %q", r.code, r.stderr)
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", "traffic.load.concurrency=8",
		"--calibration", "cal/calibration.json", "--output-dir", "other")
	if r.code != 0 || !strings.Contains(r.stderr, "differs in lengths: the prediction draws lengths constant, the entry was fitted on normal σ 0.1·ISL, 0·OSL") {
		t.Errorf("another draw: exit %d stderr %q", r.code, r.stderr)
	}
	r = runIn(dir, fixedWall, "predict", "--stack", "dynamo", "-c", "deploy.yaml", "--set", "traffic.load.concurrency=8",
		"--calibration", "cal/calibration.json", "--strict-calibration", "--output-dir", "strict")
	if r.code != 2 || exists(filepath.Join(dir, "strict")) {
		t.Errorf("another draw, strict: exit %d stderr %q", r.code, r.stderr)
	}
	r = runIn(dir, nil, "calibrate", "--stack", "dynamo", "--measurements", "bench/rows.csv", "--lengths", "{distribution: uniform, min_ratio: 0.8}", "--output-dir", "rows")
	if r.code != 0 {
		t.Fatalf("calibrate --lengths: exit %d stderr %q", r.code, r.stderr)
	}
	row := readFile(t, filepath.Join(dir, "rows", "configs", "llama8b_h200_vllm_agg_1024x128_c32.yaml"))
	if !strings.Contains(row, "distribution: uniform") || !strings.Contains(row, "min_ratio: 0.8") {
		t.Errorf("the row configuration does not carry the draw:\n%s", row)
	}
	for _, c := range []struct{ flag, want string }{
		{"{distribution: uniform, min_ratio: 1.8}", "--lengths.min_ratio: must be at most 1, got 1.8"},
		{"[0.8]", "--lengths: must be a mapping"},
	} {
		r = runIn(dir, nil, "calibrate", "--stack", "dynamo", "--measurements", "bench/rows.csv", "--lengths", c.flag, "--output-dir", "bad")
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || exists(filepath.Join(dir, "bad")) {
			t.Errorf("--lengths %s: exit %d stderr %q, want 2 and %q", c.flag, r.code, r.stderr, c.want)
		}
	}
	r = runIn(dir, nil, "calibrate", "--stack", "dynamo", "-c", "deploy.yaml", "--measurements", "bench/aiperf.json", "--lengths", "{distribution: uniform, min_ratio: 0.8}", "--output-dir", "bad")
	if r.code != 2 || !strings.Contains(r.stderr, "bench/aiperf.json: #1: the file records the length draw") || exists(filepath.Join(dir, "bad")) {
		t.Errorf("conflicting --lengths: exit %d stderr %q", r.code, r.stderr)
	}
}
