package host

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var (
	guest      []byte
	guestCache string // shared compilation cache, so each test does not recompile
)

// TestMain builds the small wasip1 guest of testdata/guest that stands in for the simulator.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "host-guest-")
	if err != nil {
		panic(err)
	}
	out := filepath.Join(dir, "guest.wasm")
	cmd := exec.Command("go", "build", "-o", out, "./testdata/guest")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if b, err := cmd.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building guest: %v\n%s", err, b)
		os.Exit(1)
	}
	guest, _ = os.ReadFile(out)
	guestCache = filepath.Join(dir, "cache")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func runGuest(t *testing.T, ctx context.Context, cacheDir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	var so, se bytes.Buffer
	if cacheDir == "" {
		cacheDir = guestCache
	}
	code := Run(ctx, guest, Config{Args: args, Env: env, Stdout: &so, Stderr: &se, CacheDir: cacheDir})
	return code, so.String(), se.String()
}

func TestArgsEnvAndWorkingDirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	env := ModuleEnv([]string{"X=hello", "PWD=/stale"}, false)
	code, out, errOut := runGuest(t, context.Background(), "", env, "echo", "a b", "--flag=1")
	want := fmt.Sprintf("args=[\"echo\" \"a b\" \"--flag=1\"] wd=%s X=hello\n", filepath.ToSlash(dir))
	if code != 0 || out != want || errOut != "to stderr\n" {
		t.Fatalf("code %d stdout %q stderr %q; want %q", code, out, errOut, want)
	}
}

func TestRelativeAndAbsoluteFiles(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	must(t, os.MkdirAll("sub", 0o755))
	must(t, os.WriteFile(filepath.Join("sub", "in.txt"), []byte("content"), 0o644))
	env := ModuleEnv(nil, false)
	for _, p := range []string{"sub/in.txt", filepath.Join(dir, "sub", "in.txt"), "./sub/../sub/in.txt"} {
		code, out, errOut := runGuest(t, context.Background(), "", env, "read", p)
		if code != 0 || out != "content" {
			t.Errorf("read %s: %d %q %q", p, code, out, errOut)
		}
	}
	if code, _, _ := runGuest(t, context.Background(), "", env, "write", "sub/out.txt", "written"); code != 0 {
		t.Fatalf("write: %d", code)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "out.txt")); string(b) != "written" {
		t.Errorf("guest write landed as %q", b)
	}
}

func TestExitCodes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 7} {
		if code, _, _ := runGuest(t, context.Background(), "", nil, "exit", fmt.Sprint(n)); code != n {
			t.Errorf("exit %d gave %d", n, code)
		}
	}
}

func TestRealClocks(t *testing.T) {
	code, out, _ := runGuest(t, context.Background(), "", nil, "clock")
	var year, ms int
	if _, err := fmt.Sscanf(out, "year=%d elapsed_ms=%d", &year, &ms); err != nil || code != 0 {
		t.Fatalf("clock output %q (%v)", out, err)
	}
	if year < 2024 || ms < 15 {
		t.Errorf("guest clocks look fake: year %d, 20 ms sleep measured %d ms", year, ms)
	}
}

func TestCancelGives130(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	so := &lockedBuffer{}
	done := make(chan int)
	go func() {
		done <- Run(ctx, guest, Config{Args: []string{"spin"}, Stdout: so, CacheDir: guestCache, Interruptible: true})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(so.String(), "spinning") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Fatalf("cancelled run exited %d, want 130", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("cancelled module did not stop")
	}
}

func TestCompilationCache(t *testing.T) {
	cache := t.TempDir()
	if code, _, _ := runGuest(t, context.Background(), cache, nil, "exit", "0"); code != 0 {
		t.Fatal("first run failed")
	}
	n := 0
	filepath.Walk(cache, func(_ string, info os.FileInfo, _ error) error {
		if info != nil && !info.IsDir() {
			n++
		}
		return nil
	})
	if n == 0 {
		t.Fatal("compilation cache directory is empty after a run")
	}
	if code, _, _ := runGuest(t, context.Background(), cache, nil, "exit", "4"); code != 4 {
		t.Fatal("cached run failed")
	}
}

func TestModuleEnv(t *testing.T) {
	wd, _ := os.Getwd()
	got := ModuleEnv([]string{"A=1", "PWD=/elsewhere", "B=x=y"}, true)
	want := []string{"A=1", "B=x=y", "PWD=" + filepath.ToSlash(wd), "AISIMULATE_PROGRESS=1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("ModuleEnv = %q, want %q", got, want)
	}
	got = ModuleEnv([]string{"AISIMULATE_PROGRESS=0"}, true)
	if len(got) != 2 || got[0] != "AISIMULATE_PROGRESS=0" {
		t.Errorf("explicit AISIMULATE_PROGRESS overridden: %q", got)
	}
}

func TestDefaultCacheDir(t *testing.T) {
	t.Setenv(EnvCache, "off")
	if d := DefaultCacheDir(); d != "" {
		t.Errorf("off gave %q", d)
	}
	t.Setenv(EnvCache, "/x/y")
	if d := DefaultCacheDir(); d != "/x/y" {
		t.Errorf("override gave %q", d)
	}
	os.Unsetenv(EnvCache)
	if base, err := os.UserCacheDir(); err == nil {
		if d := DefaultCacheDir(); d != filepath.Join(base, "aisimulate", "wazero") {
			t.Errorf("default %q", d)
		}
	}
}

func TestBadModule(t *testing.T) {
	var se bytes.Buffer
	code := Run(context.Background(), []byte("not wasm"), Config{Stderr: &se})
	if code != ExitFailure || !strings.Contains(se.String(), "cannot compile") {
		t.Errorf("bad module: %d %q", code, se.String())
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lockedBuffer is a bytes.Buffer safe to read while the module writes to it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestCancelledBeforeStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if code, _, _ := runGuest(t, ctx, "", nil, "exit", "0"); code != ExitInterrupted {
		t.Errorf("run with a cancelled context exited %d, want 130", code)
	}
}

func TestPruneCache(t *testing.T) {
	dir := t.TempDir()
	vdir := filepath.Join(dir, "wazero-v1.12.0-amd64-linux")
	must(t, os.MkdirAll(vdir, 0o755))
	var names []string
	base := time.Now().Add(-time.Hour)
	for i := 0; i < 6; i++ {
		name := fmt.Sprintf("%064x", i)
		names = append(names, name)
		p := filepath.Join(vdir, name)
		must(t, os.WriteFile(p, []byte("x"), 0o644))
		at := base.Add(time.Duration(i) * time.Minute)
		must(t, os.Chtimes(p, at, at))
	}
	must(t, os.WriteFile(filepath.Join(vdir, "notes.txt"), nil, 0o644))
	must(t, os.WriteFile(filepath.Join(dir, names[0]), nil, 0o644)) // outside a version dir
	PruneCache(dir, 4)
	for i, name := range names {
		_, err := os.Stat(filepath.Join(vdir, name))
		if kept := err == nil; kept != (i >= 2) {
			t.Errorf("entry %d kept=%v, want kept only for the 4 newest", i, kept)
		}
	}
	for _, p := range []string{filepath.Join(vdir, "notes.txt"), filepath.Join(dir, names[0])} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s should not be touched: %v", p, err)
		}
	}
}

// A terminal on standard output gets the readable table at its width; an explicit setting
// wins; a pipe gets nothing added (the spec's table).
func TestTableEnv(t *testing.T) {
	if got := TableEnv([]string{"A=1"}, true, 132); !slices.Equal(got, []string{"A=1", "AISIMULATE_TABLE=readable", "COLUMNS=132"}) {
		t.Errorf("terminal: %q", got)
	}
	if got := TableEnv([]string{"AISIMULATE_TABLE=aiperf", "COLUMNS=90"}, true, 132); !slices.Equal(got, []string{"AISIMULATE_TABLE=aiperf", "COLUMNS=90"}) {
		t.Errorf("explicit settings overridden: %q", got)
	}
	if got := TableEnv([]string{"A=1"}, false, 132); !slices.Equal(got, []string{"A=1"}) {
		t.Errorf("pipe: %q", got)
	}
	if got := TableEnv(nil, true, 0); !slices.Equal(got, []string{"AISIMULATE_TABLE=readable"}) {
		t.Errorf("unknown width: %q", got)
	}
}
