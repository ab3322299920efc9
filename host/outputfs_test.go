//go:build unix

package host

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	experimentalsys "github.com/tetratelabs/wazero/experimental/sys"
)

// Files and directories the module creates get 0666/0777 less the umask, not WASI's 0600/0700.
func TestOutputFSHonoursUmask(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	root := t.TempDir()
	o := newOutputFS(root)
	if errno := o.Mkdir("out", 0o700); errno != 0 {
		t.Fatal(errno)
	}
	f, errno := o.OpenFile("out/prediction.json", experimentalsys.O_CREAT|experimentalsys.O_WRONLY, 0o600)
	if errno != 0 {
		t.Fatal(errno)
	}
	f.Close()
	for p, want := range map[string]os.FileMode{"out": 0o755, "out/prediction.json": 0o644} {
		st, err := os.Stat(filepath.Join(root, p))
		if err != nil || st.Mode().Perm() != want {
			t.Errorf("%s: %v %v, want %v", p, st.Mode().Perm(), err, want)
		}
	}
}

// An interrupt in the middle of writing outputs removes the temporary files, puts the old
// outputs moved aside back, and removes the directories the run created.
func TestOutputFSUndo(t *testing.T) {
	root := t.TempDir()
	must := func(errno experimentalsys.Errno) {
		t.Helper()
		if errno != 0 {
			t.Fatal(errno)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "out", "prediction.json"), []byte("old"), 0o644)
	o := newOutputFS(root)
	must(o.Mkdir("out/new", 0o700))
	f, errno := o.OpenFile("out/new/.requests.jsonl.tmp-0", experimentalsys.O_CREAT|experimentalsys.O_EXCL|experimentalsys.O_WRONLY, 0o600)
	must(errno)
	f.Close()
	f, errno = o.OpenFile("out/.prediction.json.tmp-0", experimentalsys.O_CREAT|experimentalsys.O_EXCL|experimentalsys.O_WRONLY, 0o600)
	must(errno)
	f.Close()
	must(o.Rename("out/prediction.json", "out/.prediction.json.old-0"))
	must(o.Rename("out/.prediction.json.tmp-0", "out/prediction.json")) // placed: the undo restores the old one over it
	o.undo()
	entries, _ := os.ReadDir(filepath.Join(root, "out"))
	if len(entries) != 1 || entries[0].Name() != "prediction.json" {
		t.Errorf("out holds %v, want prediction.json alone", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "out", "prediction.json")); string(b) != "old" {
		t.Errorf("prediction.json is %q, want the old one", b)
	}
}
