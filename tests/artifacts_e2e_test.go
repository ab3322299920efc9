package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/deploy"
)

// quickstartDir is a working directory holding examples/quickstart.yaml as conf/q.yaml and
// an empty sub/ to run from.
func quickstartDir(t *testing.T) string {
	t.Helper()
	requireCore(t)
	dir := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(dir, "conf"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	b, err := os.ReadFile(filepath.Join(repoRoot, "examples", "quickstart.yaml"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, "conf", "q.yaml"), b, 0o644))
	return dir
}

// deployFiles reads deploy/ of an output directory: relative path → bytes.
func deployFiles(t *testing.T, out string) map[string][]byte {
	t.Helper()
	return readTree(t, filepath.Join(out, "deploy"))
}

// wantDeploy compares the files of deploy/ with generated ones, byte for byte.
func wantDeploy(t *testing.T, what string, got map[string][]byte, files []deploy.File) {
	t.Helper()
	if len(got) != len(files) {
		t.Errorf("%s: deploy/ holds %d files, the generator writes %d", what, len(got), len(files))
	}
	for _, f := range files {
		rel := filepath.FromSlash(strings.TrimPrefix(f.Name, "deploy/"))
		if !bytes.Equal(got[rel], f.Data) {
			t.Errorf("%s: %s differs from the generator's bytes", what, f.Name)
		}
	}
}

// predict --artifacts writes deploy/0001/ for every way a user names the configuration and
// the output directory (relative, with .., absolute), the same bytes as the core's generator
// run natively on the same configuration and summary (the CLI runs it in WebAssembly), and
// the launch scripts do not depend on how the paths were written.
func TestPredictArtifactsPathForms(t *testing.T) {
	dir := quickstartDir(t)
	forms := []struct{ from, config, out string }{
		{dir, "conf/q.yaml", "out1"},
		{filepath.Join(dir, "sub"), "../conf/q.yaml", "../out2"},
		{dir, filepath.Join(dir, "conf", "q.yaml"), filepath.Join(dir, "out3")},
	}
	var scripts map[string][]byte
	for i, f := range forms {
		r := runIn(f.from, fixedWall, "predict", "--stack", "dynamo", "--config", f.config, "--output-dir", f.out, "--artifacts")
		if r.code != 0 {
			t.Fatalf("%s: exit %d %s", f.config, r.code, r.stderr)
		}
		out := f.out
		if !filepath.IsAbs(out) {
			out = filepath.Join(f.from, out)
		}
		got := deployFiles(t, out)
		var pred struct {
			Summary   map[string]any `json:"summary"`
			Intervals map[string]any `json:"intervals"`
		}
		must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "prediction.json"))), &pred))
		text, _ := os.ReadFile(filepath.Join(dir, "conf", "q.yaml"))
		files, err := simcore.PredictionArtifacts(f.config, text, nil, pred.Summary, pred.Intervals)
		must(t, err)
		wantDeploy(t, f.config, got, files)
		launch := map[string][]byte{}
		for k, v := range got {
			if strings.Contains(k, "launch") {
				launch[k] = v
			}
		}
		if len(launch) == 0 {
			t.Fatalf("%s: no launch scripts in %v", f.config, got)
		}
		if i == 0 {
			scripts = launch
		} else if !equalTrees(scripts, launch) {
			t.Errorf("%s: the launch scripts differ from the first form's", f.config)
		}
		readme := string(got[filepath.Join("0001", "README.md")])
		if !strings.Contains(readme, "`"+f.config+"`") {
			t.Errorf("%s: the README does not name the configuration as given", f.config)
		}
		// The quickstart uses the default timing model: its README shows the 80 % intervals.
		if pred.Intervals == nil || !strings.Contains(readme, "| TTFT mean (ms) | ") || !strings.Contains(readme, "80 % interval") {
			t.Errorf("%s: the README lacks the prediction's intervals:\n%s", f.config, readme)
		}
	}
}

func equalTrees(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(b[k], v) {
			return false
		}
	}
	return true
}

// recommend --artifacts writes deploy/NNNN/ for the first --artifacts-top rows, in the
// same directory transaction as recommendation.json; each is the core's generator output on
// recommendation.json, and the deployment of recommendations/NNNN.yaml: predict --artifacts
// on that file writes the same launch scripts.
func TestRecommendArtifacts(t *testing.T) {
	out, r := recommendRun(t, nil, []string{"--artifacts", "--artifacts-top", "2"})
	if r.code != 0 {
		t.Fatalf("recommend: %d %s", r.code, r.stderr)
	}
	got := deployFiles(t, out)
	files, err := simcore.RecommendationArtifacts([]byte(readFile(t, filepath.Join(out, "recommendation.json"))), 2)
	must(t, err)
	wantDeploy(t, "recommend", got, files)
	if exists(filepath.Join(out, "deploy", "0003")) || !exists(filepath.Join(out, "deploy", "0002")) {
		t.Errorf("--artifacts-top 2 wrote %v", got)
	}
	// The example's default timing gives its candidates intervals: the README shows them.
	if readme := string(got[filepath.Join("0001", "README.md")]); !strings.Contains(readme, "| figure | predicted | 80 % interval |") {
		t.Errorf("deploy/0001/README.md lacks the candidate's intervals:\n%s", readme)
	}
	for _, n := range []string{"0001", "0002"} {
		dir := t.TempDir()
		p := runIn(dir, fixedWall, "predict", "--stack", "dynamo", "--config", filepath.Join(out, "recommendations", n+".yaml"), "--output-dir", "o", "--artifacts")
		if p.code != 0 {
			t.Fatalf("predict %s: %d %s", n, p.code, p.stderr)
		}
		again := deployFiles(t, filepath.Join(dir, "o"))
		for k, v := range again {
			// The scripts name their deployment, aisim-NNNN-…, by the number.
			v = bytes.ReplaceAll(v, []byte("aisim-0001-"), []byte("aisim-"+n+"-"))
			if strings.Contains(k, "launch") && !bytes.Equal(got[strings.Replace(k, "0001", n, 1)], v) {
				t.Errorf("recommendations/%s.yaml: predict writes another %s", n, k)
			}
		}
	}
	// Without --artifacts nothing is written under deploy/, and --overwrite removes the old
	// deployments.
	r = runIn(filepath.Dir(out), []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo", "--config",
		filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--output-dir", "out", "--overwrite")
	if r.code != 0 || exists(filepath.Join(out, "deploy")) {
		t.Errorf("recommend --overwrite without --artifacts: %d %s; deploy/ exists: %t", r.code, r.stderr, exists(filepath.Join(out, "deploy")))
	}
}

// A model given as a local directory whose path holds '/' and '..' deploys under its own
// id (the path as given, relative to the working directory), and every file stays in
// deploy/0001/ (more hostile ids: simcore/deploy's TestModelIDsNeverEscapeDeploy).
func TestArtifactsOfALocalModelStayInDeploy(t *testing.T) {
	dir := quickstartDir(t)
	model := filepath.Join(dir, "models", "..", "weights", "my..model")
	must(t, os.MkdirAll(model, 0o755))
	b, err := os.ReadFile(filepath.Join(repoRoot, "simcore", "catalog", "testdata", "tiny-model", "config.json"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(model, "config.json"), b, 0o644))
	r := runIn(filepath.Join(dir, "sub"), fixedWall, "predict", "--stack", "dynamo", "--config", "../conf/q.yaml",
		"--set", "engine.model=../weights/my..model", "--output-dir", "../out", "--artifacts")
	if r.code != 0 {
		t.Fatalf("exit %d %s", r.code, r.stderr)
	}
	var paths []string
	must(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return err
	}))
	for _, p := range paths {
		if !strings.HasPrefix(p, "out/") && p != "conf/q.yaml" && p != "weights/my..model/config.json" {
			t.Errorf("a file outside the outputs: %s", p)
		}
		if strings.HasPrefix(p, "out/") && p != "out/prediction.json" && !strings.HasPrefix(p, "out/deploy/0001/") {
			t.Errorf("an output outside deploy/0001/: %s", p)
		}
	}
	manifest := readFile(t, filepath.Join(dir, "out", "deploy", "0001", "dynamo-graph-deployment.yaml"))
	if !strings.Contains(manifest, "- ../weights/my..model\n") {
		t.Errorf("the manifest does not hand the model directory to the worker as given:\n%s", manifest)
	}
}

// --artifacts refuses a deploy entry that is a symbolic link before running (exit 2,
// nothing written), and --artifacts-top takes a whole number.
func TestArtifactsRefusals(t *testing.T) {
	dir := quickstartDir(t)
	must(t, os.MkdirAll(filepath.Join(dir, "out"), 0o755))
	must(t, os.MkdirAll(filepath.Join(dir, "elsewhere"), 0o755))
	must(t, os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "out", "deploy")))
	r := runIn(dir, fixedWall, "predict", "--stack", "dynamo", "--config", "conf/q.yaml", "--output-dir", "out", "--overwrite", "--artifacts")
	if r.code != 2 || !strings.Contains(r.stderr, "out/deploy is a symbolic link") || exists(filepath.Join(dir, "out", "prediction.json")) {
		t.Errorf("exit %d stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "elsewhere")); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	r = runIn(dir, nil, "recommend", "--stack", "dynamo", "--config", "conf/q.yaml", "--artifacts-top", "0")
	if r.code != 2 || !strings.Contains(r.stderr, "argument --artifacts-top: must be a whole number from 1 to 9999, got '0'") {
		t.Errorf("--artifacts-top 0: exit %d stderr %q", r.code, r.stderr)
	}
}
