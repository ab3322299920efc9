package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// A Go program built for wasip1 prints the same before and after the rewrite, many of its
// jumps are rewritten, and rewriting the result again changes nothing (make runs the tool on
// a module go build may have left in place).
func TestRewrittenProgramRunsTheSame(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a WebAssembly program")
	}
	wasm := filepath.Join(t.TempDir(), "prog.wasm")
	build := exec.Command("go", "build", "-o", wasm, "./testdata/prog")
	build.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	orig, err := os.ReadFile(wasm)
	if err != nil {
		t.Fatal(err)
	}
	rewritten, n, err := RewriteModule(orig)
	if err != nil {
		t.Fatal(err)
	}
	if n < 1000 {
		t.Errorf("%d jumps rewritten; a Go program has thousands of forward jumps", n)
	}
	again, n2, err := RewriteModule(rewritten)
	if err != nil || n2 != 0 || !bytes.Equal(again, rewritten) {
		t.Errorf("a second rewrite changed %d jumps (err %v); it must change nothing", n2, err)
	}
	want, got := run(t, orig), run(t, rewritten)
	if want == "" || got != want {
		t.Errorf("rewritten program printed\n%s\nwant\n%s", got, want)
	}
}

// run runs a wasip1 module under wazero and returns its standard output.
func run(t *testing.T, module []byte) string {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, r)
	var out bytes.Buffer
	if _, err := r.InstantiateWithConfig(ctx, module, wazero.NewModuleConfig().WithStdout(&out).WithStderr(&out)); err != nil {
		t.Fatalf("module failed: %v\n%s", err, out.String())
	}
	return out.String()
}
