package cli

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseRecommendForms(t *testing.T) {
	o, err := parseRecommend([]string{"--conf=a.yaml", "--stack=dynamo", "--set", "optimization.target=pareto", "--set=x=1",
		"--output", "out", "--overw", "--form", "json", "--prog", "--remote", "http://a", "--remote=http://b", "--remote-c", "2"})
	if err != nil {
		t.Fatal(err)
	}
	want := recommendOptions{commonOptions: commonOptions{config: "a.yaml", haveConfig: true, stack: "dynamo",
		sets: []string{"optimization.target=pareto", "x=1"}, outputDir: "out", overwrite: true, format: "json", progress: true},
		remote: []string{"http://a", "http://b"}, remoteConcurrency: 2, artifactsTop: 3}
	if !reflect.DeepEqual(*o, want) {
		t.Errorf("got %+v\nwant %+v", *o, want)
	}
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-c", "x", "--o", "d"}, "ambiguous option: --o could match --output-dir, --overwrite"},
		{[]string{"-c", "x", "--capture-per-request"}, "unrecognized arguments: --capture-per-request"},
		{[]string{"-c", "x", "--format", "csv"}, "argument --format: invalid choice: 'csv' (choose from 'table', 'json')"},
		{[]string{"--set"}, "argument --set: expected one argument"},
		{[]string{"-c", "x", "--remote-concurrency", "0"}, "argument --remote-concurrency: must be an integer >= 1, got '0'"},
		{[]string{"-c", "x", "--remote"}, "argument --remote: expected one argument"},
		{[]string{"-c", "x", "--artifacts-top", "0"}, "argument --artifacts-top: must be a whole number from 1 to 9999, got '0'"},
		{[]string{"-c", "x", "--artifacts-top", "many"}, "argument --artifacts-top: must be a whole number from 1 to 9999, got 'many'"},
		{[]string{"-c", "x", "--art"}, "ambiguous option: --art could match --artifacts, --artifacts-top"},
	} {
		if _, err := parseRecommend(c.args); err == nil || err.Error() != c.msg {
			t.Errorf("%q: %v, want %q", c.args, err, c.msg)
		}
	}
}

func TestRecommendHelpAndErrors(t *testing.T) {
	r := runCLI(t, "", nil, nil, nil, "recommend", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "recommendations/NNNN.yaml") || !strings.Contains(r.stdout, "Example:") {
		t.Errorf("recommend --help: %d %q", r.code, r.stdout)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "r.yaml")
	must(t, os.WriteFile(cfg, []byte("engine: {model: m, hardware: h200_sxm, workers: {aggregated: {}}}\n"), 0o644))
	r = runCLI(t, dir, nil, nil, nil, "recommend", "--stack", "dynamo", "-c", cfg)
	want := "aisimulate: error: " + cfg + ": optimization: required section is missing"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("code %d stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
	r = runCLI(t, dir, nil, nil, nil, "recommend", "-c", cfg)
	if r.code != 2 || !strings.HasSuffix(r.stderr, "stack 'engine' is unavailable; installed stacks: dynamo. Pass --stack dynamo.\n") {
		t.Errorf("default stack: %d %q", r.code, r.stderr)
	}
}
