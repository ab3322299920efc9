package cli

import (
	"os"

	"aisimulate/simcore/deploy"
	"path/filepath"
	"strings"
	"testing"
)

// Outputs under deploy/NNNN/ are written in the same transaction as the others: the
// directories they need are created, and a failure anywhere removes them again.
func TestNestedOutputsAreOneTransaction(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	files := []outputFiles{bytesFile("recommendation.json", []byte("{}")),
		bytesFile("deploy/0001/README.md", []byte("r")), bytesFile("deploy/0001/launch/prefill.sh", []byte("s"))}
	must(t, writeOutputs(out, files, false))
	for _, f := range []string{"recommendation.json", "deploy/0001/README.md", "deploy/0001/launch/prefill.sh"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// A directory in the way of the last file: nothing of the run stays, not even the
	// directories it created for deploy/0002.
	must(t, os.MkdirAll(filepath.Join(out, "deploy", "0002", "README.md"), 0o755))
	os.Remove(filepath.Join(out, "deploy", "0002", "README.md"))
	must(t, os.MkdirAll(filepath.Join(out, "recommendation.csv"), 0o755))
	err := writeOutputs(out, []outputFiles{bytesFile("deploy/0003/launch/decode.sh", []byte("x")), bytesFile("recommendation.csv", nil)}, true)
	if err == nil || !strings.Contains(err.Error(), "a directory of that name is in the way") {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "deploy", "0003")); !os.IsNotExist(err) {
		t.Errorf("deploy/0003 was left behind: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "deploy", "0001", "README.md")); string(b) != "r" {
		t.Errorf("the old deploy/0001/README.md changed: %q", b)
	}
}

// --overwrite replaces the known files of every old deploy/NNNN/ and removes the emptied
// directories; a file of the user's own in deploy/ stays, and so does its directory.
func TestOverwriteReplacesOldDeployments(t *testing.T) {
	out := t.TempDir()
	old := []outputFiles{bytesFile("deploy/0001/README.md", []byte("1")), bytesFile("deploy/0002/dynamo-graph-deployment.yaml", []byte("2")),
		bytesFile("deploy/0002/launch/aggregated.sh", []byte("3")), bytesFile("deploy/0003/launch/prefill.yaml", []byte("4"))}
	must(t, writeOutputs(out, old, false))
	must(t, os.WriteFile(filepath.Join(out, "deploy", "0003", "notes.txt"), []byte("mine"), 0o644))
	must(t, writeOutputs(out, []outputFiles{bytesFile("deploy/0001/README.md", []byte("new"))}, true))
	if b, _ := os.ReadFile(filepath.Join(out, "deploy", "0001", "README.md")); string(b) != "new" {
		t.Errorf("deploy/0001/README.md = %q", b)
	}
	if _, err := os.Stat(filepath.Join(out, "deploy", "0002")); !os.IsNotExist(err) {
		t.Errorf("deploy/0002 should be gone: %v", err)
	}
	if _, err := os.Stat(filepath.Join(out, "deploy", "0003", "launch", "prefill.yaml")); !os.IsNotExist(err) {
		t.Errorf("deploy/0003/launch/prefill.yaml should be gone: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "deploy", "0003", "notes.txt")); string(b) != "mine" {
		t.Errorf("the user's notes.txt: %q", b)
	}
}

// A deploy entry that is a symbolic link (or a file) is refused before the run and when
// writing; nothing is written through it.
func TestDeployThroughSymlinkIsRefused(t *testing.T) {
	dir := t.TempDir()
	elsewhere := filepath.Join(dir, "elsewhere")
	out := filepath.Join(dir, "out")
	must(t, os.MkdirAll(elsewhere, 0o755))
	must(t, os.MkdirAll(out, 0o755))
	must(t, os.Symlink(elsewhere, filepath.Join(out, "deploy")))
	if err := checkDeployDir(out); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("checkDeployDir: %v", err)
	}
	err := writeOutputs(out, []outputFiles{bytesFile("deploy/0001/README.md", []byte("x"))}, true)
	if err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("writeOutputs: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written through the link: %v", entries)
	}
	must(t, os.Remove(filepath.Join(out, "deploy")))
	must(t, os.WriteFile(filepath.Join(out, "deploy"), nil, 0o644))
	if err := checkDeployDir(out); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("checkDeployDir on a file: %v", err)
	}
}

// The CLI refuses an artifact name outside deploy/, whatever produced it.
func TestArtifactFilesStayInDeploy(t *testing.T) {
	for _, name := range []string{"deploy/../prediction.json", "/etc/x", "deploy", "other/0001/README.md", "deploy/0001/../../x"} {
		if _, err := artifactFiles([]deploy.File{{Name: name}}); err == nil {
			t.Errorf("%q was accepted", name)
		}
	}
	if files, err := artifactFiles([]deploy.File{{Name: "deploy/0001/README.md"}}); err != nil || len(files) != 1 {
		t.Errorf("%v %v", files, err)
	}
}
