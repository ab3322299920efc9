package tests

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/wasm/httpapi"
)

// recommend --calibration through the binary: the profile given relatively, with ".." and
// absolutely gives the same result (the provenance names the file as given); evaluated by
// local module instances or by an edge worker (--remote, the worker's own handler serving
// natively) the files are the same bytes; a bad profile and --strict-calibration without a
// profile are exit 2 with nothing written.
func TestRecommendWithACalibrationProfile(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	for src, dst := range map[string]string{"examples/recommend-small.yaml": "r.yaml", "examples/calibration/profile.json": "cal.json"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, src))
		must(t, err)
		must(t, os.WriteFile(filepath.Join(dir, dst), b, 0o644))
	}
	must(t, os.WriteFile(filepath.Join(dir, "bad.json"), []byte(`{"schema_version": 1, "program": "x", "entries": []}`), 0o644))
	env := []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}
	run := func(cwd, out string, extra ...string) result {
		args := append([]string{"recommend", "--stack", "dynamo", "--config", filepath.Join(dir, "r.yaml"), "--output-dir", filepath.Join(dir, out)}, extra...)
		return runIn(cwd, env, args...)
	}
	local := run(dir, "local", "--calibration", "cal.json")
	if local.code != 0 {
		t.Fatalf("exit %d stderr %q", local.code, local.stderr)
	}
	rec := readFile(t, filepath.Join(dir, "local", "recommendation.json"))
	if !strings.Contains(rec, `"calibration": {`) || !strings.Contains(rec, `"file": "cal.json"`) || !strings.Contains(rec, `"source": "calibration"`) {
		t.Errorf("recommendation.json has no calibration provenance or calibrated candidate:\n%.600s", rec)
	}
	for _, c := range []struct{ cwd, arg, out string }{{filepath.Join(dir, "sub"), "../cal.json", "dotdot"}, {dir, filepath.Join(dir, "cal.json"), "abs"}} {
		r := run(c.cwd, c.out, "--calibration", c.arg)
		if r.code != 0 {
			t.Fatalf("%s: exit %d stderr %q", c.arg, r.code, r.stderr)
		}
		// The profile's name appears as given: the provenance's file and the intervals' group.
		got := strings.ReplaceAll(readFile(t, filepath.Join(dir, c.out, "recommendation.json")), `"`+c.arg, `"cal.json`)
		if got != rec {
			t.Errorf("--calibration %s: another result", c.arg)
		}
	}
	// The in-process edge answers as this binary's build: --remote refuses another version.
	defer func(v string) { simcore.Version = v }(simcore.Version)
	simcore.Version = binaryVersion(t)
	edge := httptest.NewServer(&httpapi.Server{})
	defer edge.Close()
	remote := run(dir, "remote", "--calibration", "cal.json", "--remote", edge.URL)
	if remote.code != 0 || remote.stderr != local.stderr {
		t.Fatalf("--remote: exit %d stderr %q", remote.code, remote.stderr)
	}
	sameTree(t, readTree(t, filepath.Join(dir, "remote")), readTree(t, filepath.Join(dir, "local")), "--remote with a profile")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--calibration", "bad.json"}, "aisimulate: error: bad.json: entries: must hold 1 to 1000 entries"},
		{[]string{"--strict-calibration"}, "argument --strict-calibration: needs --calibration FILE"},
		{[]string{"--calibration", "missing.json"}, "missing.json"},
	} {
		r := run(dir, "o", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || exists(filepath.Join(dir, "o")) {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q with nothing written", c.args, r.code, r.stderr, c.want)
		}
	}
}
