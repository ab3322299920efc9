package tests

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// SIGINT while the outputs are being written (a large capture still streaming into its
// temporary file) exits 130 and leaves the output directory as it was: no temporary file,
// no moved-aside old output, the old prediction.json back under its name
// (docs/robustness.md, "Output files"). So do SIGTERM, SIGHUP (a closed terminal) and
// SIGQUIT, which no longer dumps goroutines.
func TestInterruptWhileWritingCaptureExit130(t *testing.T) {
	requireCore(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) { interruptWhileWriting(t, sig) })
	}
}

// interruptWhileWriting sends sig while a capture streams into its temporary file.
func interruptWhileWriting(t *testing.T, sig syscall.Signal) {
	dir := workdir(t)
	out := filepath.Join(dir, "o")
	must(t, os.Mkdir(out, 0o755))
	must(t, os.WriteFile(filepath.Join(out, "prediction.json"), []byte("old"), 0o644))
	// 200,000 tiny requests simulate in a second or two; their capture (about 2 KB of pretty
	// JSON per request in prediction.json, plus requests.jsonl) takes seconds to write.
	cmd := exec.Command(binary, predictArgs("--output-dir", "o", "--overwrite", "--capture-per-request",
		"--set", "traffic.stop.requests=200000", "--set", "traffic.load.concurrency=64")...)
	cmd.Dir = dir
	se := &syncBuffer{}
	cmd.Stderr = se
	must(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	temp := ""
	deadline := time.Now().Add(60 * time.Second)
	for temp == "" && time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatalf("the run ended (exit %d, stderr %q) before a temporary output appeared", cmd.ProcessState.ExitCode(), se.String())
		case <-time.After(5 * time.Millisecond):
		}
		entries, _ := os.ReadDir(out)
		for _, e := range entries {
			if info, err := e.Info(); err == nil && strings.Contains(e.Name(), ".tmp-") && info.Size() > 0 {
				temp = e.Name()
			}
		}
	}
	if temp == "" {
		cmd.Process.Kill()
		t.Fatal("no temporary output file appeared within 60 s")
	}
	must(t, cmd.Process.Signal(sig))
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("interrupted process did not exit")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || strings.Contains(se.String(), "goroutine") ||
		!strings.HasSuffix(se.String(), "aisimulate: interrupted; no outputs were written\n") {
		t.Fatalf("exit %d after %s while writing %s (stderr %q), want 130 and one line", code, sig, temp, se.String())
	}
	entries, _ := os.ReadDir(out)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "prediction.json" {
		t.Errorf("interrupted while writing %s, the output directory holds %v; want only the old prediction.json", temp, names)
	}
	if got := readFile(t, filepath.Join(out, "prediction.json")); got != "old" {
		t.Errorf("the old prediction.json was replaced: %.40q", got)
	}
}
