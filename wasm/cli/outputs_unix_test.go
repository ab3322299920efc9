//go:build unix

package cli

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Outputs honour the umask like any tool's: 0666 and 0777 less the mask.
func TestOutputsHonourUmask(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	dir := t.TempDir()
	writeConfig(t, dir)
	r := runCLI(t, dir, nil, fakeOutput(t, false), nil, "predict", "--stack", "dynamo", "-c", "e2.yaml", "--output-dir", "out/sub")
	if r.code != 0 {
		t.Fatalf("got %d %q", r.code, r.stderr)
	}
	for p, want := range map[string]os.FileMode{"out": 0o750, "out/sub": 0o750, "out/sub/prediction.json": 0o640} {
		st, err := os.Stat(filepath.Join(dir, p))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: mode %v (%v), want %v", p, st.Mode().Perm(), err, want)
		}
	}
}
