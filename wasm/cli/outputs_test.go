package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rename that cannot happen (a directory in the way of a new file) is found before any old
// output is touched: the old prediction.json and requests.jsonl stay as they were.
func TestFailedWriteChangesNothing(t *testing.T) {
	for _, c := range []struct {
		blocked string
		capture bool
	}{{"requests.jsonl", true}, {"prediction.json", false}} {
		dir := t.TempDir()
		writeConfig(t, dir)
		out := filepath.Join(dir, "out")
		must(t, os.MkdirAll(filepath.Join(out, c.blocked), 0o755))
		for _, name := range []string{"prediction.json", "requests.jsonl", "recommendation.csv"} {
			if name != c.blocked {
				must(t, os.WriteFile(filepath.Join(out, name), []byte("old"), 0o644))
			}
		}
		args := []string{"predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "out", "--overwrite"}
		if c.capture {
			args = append(args, "--capture-per-request")
		}
		r := runCLI(t, dir, nil, fakeOutput(t, c.capture), nil, args...)
		if r.code != 1 || !strings.Contains(r.stderr, "could not write out/"+c.blocked+": a directory of that name is in the way") {
			t.Errorf("%s blocked: %d %q", c.blocked, r.code, r.stderr)
		}
		entries, _ := os.ReadDir(out)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
			if e.Name() != c.blocked {
				if b, _ := os.ReadFile(filepath.Join(out, e.Name())); string(b) != "old" {
					t.Errorf("%s blocked: %s changed to %q", c.blocked, e.Name(), b)
				}
			}
		}
		if len(names) != 3 {
			t.Errorf("%s blocked: the directory holds %v, want the three old entries", c.blocked, names)
		}
	}
}

// --overwrite deletes numbered recommendation files only in a real recommendations
// directory of the output directory, never through a symbolic link to somewhere else.
func TestOverwriteDoesNotFollowSymlinks(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	elsewhere := filepath.Join(dir, "elsewhere")
	must(t, os.MkdirAll(elsewhere, 0o755))
	must(t, os.WriteFile(filepath.Join(elsewhere, "0001.yaml"), []byte("precious"), 0o644))
	must(t, os.MkdirAll(filepath.Join(dir, "out"), 0o755))
	must(t, os.Symlink(elsewhere, filepath.Join(dir, "out", "recommendations")))
	r := runCLI(t, dir, nil, fakeOutput(t, false), nil, "predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "out", "--overwrite")
	if r.code != 0 {
		t.Fatalf("got %d %q", r.code, r.stderr)
	}
	if b, err := os.ReadFile(filepath.Join(elsewhere, "0001.yaml")); string(b) != "precious" {
		t.Errorf("a file behind the symlink was deleted: %q %v", b, err)
	}
}

// A failed write removes the output directories the run created.
func TestFailedWriteRemovesCreatedDirectories(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir)
	failing := outputFiles{[]string{"prediction.json"}, func([]io.Writer) error { return errors.New("disk on fire") }}
	err := writeOutputs(filepath.Join(dir, "a", "b"), []outputFiles{failing}, false)
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("created directory left behind: %v", err)
	}
}

// Files written together (a captured run's prediction.json and requests.jsonl, in one pass)
// each get their own temporary file; a write that fails names the file it was for, and the
// old outputs and no temporary file remain.
func TestFilesWrittenTogether(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "prediction.json"), []byte("old"), 0o644))
	both := outputFiles{[]string{"prediction.json", "requests.jsonl"}, func(ws []io.Writer) error {
		if _, err := io.WriteString(ws[0], "pred"); err != nil {
			return err
		}
		_, err := io.WriteString(ws[1], "reqs")
		return err
	}}
	must(t, writeOutputs(dir, []outputFiles{both}, true))
	for name, want := range map[string]string{"prediction.json": "pred", "requests.jsonl": "reqs"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v", name, b, err)
		}
	}
	failing := outputFiles{both.names, func(ws []io.Writer) error {
		ws[1].(tempWriter).f.Close() // the second file's writes now fail
		_, err := io.WriteString(ws[1], "x")
		return err
	}}
	err := writeOutputs(dir, []outputFiles{failing}, true)
	if err == nil || !strings.HasPrefix(err.Error(), "could not write "+filepath.Join(dir, "requests.jsonl")+": ") {
		t.Fatalf("got %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left in the directory: %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "prediction.json")); string(b) != "pred" {
		t.Errorf("prediction.json = %q after a failed write", b)
	}
}

// The configuration is read up to 1 MiB: an endless device or a larger file is a
// configuration error at once, and a reason quoting a huge value is cut.
func TestConfigSizeCap(t *testing.T) {
	dir := t.TempDir()
	r := runCLI(t, dir, nil, nil, nil, "predict", "--stack", "dynamo", "-c", "/dev/zero")
	if r.code != 2 || !strings.HasSuffix(r.stderr, "/dev/zero: the configuration is larger than 1048576 bytes (1 MiB), the limit on configuration text (docs/robustness.md); shorten it or move long inputs into a trace file\n") {
		t.Errorf("/dev/zero: %d %q", r.code, r.stderr)
	}
	must(t, os.WriteFile(filepath.Join(dir, "big.yaml"), []byte("traffic: '"+strings.Repeat("x", 1<<20)+"'\n"), 0o644))
	r = runCLI(t, dir, nil, nil, nil, "predict", "--stack", "dynamo", "-c", "big.yaml")
	if r.code != 2 || !strings.Contains(r.stderr, "larger than 1048576 bytes") {
		t.Errorf("big file: %d %q", r.code, r.stderr)
	}
	writeConfig(t, dir)
	r = runCLI(t, dir, nil, nil, nil, "predict", "--stack", "dynamo", "-c", "e2.yaml", "--set", "traffic.source."+strings.Repeat("x", 100<<10)+"=1")
	if r.code != 2 || len(r.stderr) > 2000 || !strings.Contains(r.stderr, "more bytes)") {
		t.Errorf("long value: %d, %d bytes of stderr: %.300q", r.code, len(r.stderr), r.stderr)
	}
}

// Files in a subdirectory are part of the one transaction: when one file cannot be placed,
// the subdirectory the run created is gone, an old file in an existing one is back, and no
// temporary file is left (calibrate's calibration.json and configs/<row id>.yaml).
func TestSubdirectoryFilesAreOneTransaction(t *testing.T) {
	dir := t.TempDir()
	files := []outputFiles{bytesFile("calibration.json", []byte("new")), bytesFile("configs/a.yaml", []byte("new")), bytesFile("configs/b.yaml", []byte("new"))}
	// A directory in the way of calibration.json: nothing is written, configs/ is not created.
	must(t, os.MkdirAll(filepath.Join(dir, "calibration.json"), 0o755))
	if err := writeOutputs(dir, files, false); err == nil || !strings.Contains(err.Error(), "a directory of that name is in the way") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "configs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("configs/ left behind: %v", err)
	}
	// An existing configs/ with an old a.yaml and b.yaml blocked: a.yaml keeps its old bytes.
	must(t, os.Remove(filepath.Join(dir, "calibration.json")))
	must(t, os.MkdirAll(filepath.Join(dir, "configs", "b.yaml"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "configs", "a.yaml"), []byte("old"), 0o644))
	if err := writeOutputs(dir, files, false); err == nil {
		t.Fatal("b.yaml blocked: no error")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "configs", "a.yaml")); string(b) != "old" {
		t.Errorf("configs/a.yaml is %q, want the old bytes", b)
	}
	for _, d := range []string{dir, filepath.Join(dir, "configs")} {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("left in %s: %s", d, e.Name())
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "calibration.json")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("calibration.json written although configs/b.yaml failed")
		}
	}
	// Unblocked, all three land.
	must(t, os.Remove(filepath.Join(dir, "configs", "b.yaml")))
	if err := writeOutputs(dir, files, false); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"calibration.json", "configs/a.yaml", "configs/b.yaml"} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != "new" {
			t.Errorf("%s is %q", f, b)
		}
	}
	// A configs that is a link is refused, never followed.
	link := t.TempDir()
	must(t, os.RemoveAll(filepath.Join(dir, "configs")))
	must(t, os.Symlink(link, filepath.Join(dir, "configs")))
	if err := writeOutputs(dir, files, false); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("configs a link: %v", err)
	}
}
