package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A recommendations symbolic link to another directory is refused before the search (exit 2)
// and nothing in the other directory changes.
func TestRecommendationsSymlinkIsRefused(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside")
	must(t, os.MkdirAll(outside, 0o755))
	must(t, os.WriteFile(filepath.Join(outside, "0001.yaml"), []byte("mine\n"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "out"), 0o755))
	must(t, os.Symlink(outside, filepath.Join(dir, "out", "recommendations")))
	r := runIn(dir, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo", "--config",
		filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--output-dir", "out", "--overwrite")
	want := "output directory out/recommendations is a symbolic link (to " + outside + "); recommendations are written only into a real directory"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr %q", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(outside)
	b, _ := os.ReadFile(filepath.Join(outside, "0001.yaml"))
	if len(entries) != 1 || string(b) != "mine\n" {
		t.Errorf("the outside directory changed: %d entries, 0001.yaml %q", len(entries), b)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "recommendation.json")); !os.IsNotExist(err) {
		t.Errorf("recommendation.json written: %v", err)
	}
}

// A user's own file named like an old output waiting for deletion survives --overwrite: the
// writer moves old outputs aside under names no file has and deletes only those.
func TestOverwriteKeepsFilesItDidNotCreate(t *testing.T) {
	requireCore(t)
	dir := workdir(t)
	args := []string{"predict", "--stack", "dynamo", "--config", "e2.yaml", "--output-dir", "out", "--overwrite"}
	if r := runIn(dir, nil, args...); r.code != 0 {
		t.Fatalf("first run: %d %s", r.code, r.stderr)
	}
	mine := filepath.Join(dir, "out", ".prediction.json.old-0")
	must(t, os.WriteFile(mine, []byte("my notes\n"), 0o644))
	for i := 0; i < 2; i++ {
		if r := runIn(dir, nil, args...); r.code != 0 {
			t.Fatalf("run %d: %d %s", i, r.code, r.stderr)
		}
	}
	b, err := os.ReadFile(mine)
	if err != nil || string(b) != "my notes\n" {
		t.Errorf("the user's file: %q, %v", b, err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".prediction.json.old-0 prediction.json" {
		t.Errorf("output directory holds %q", names)
	}
}
