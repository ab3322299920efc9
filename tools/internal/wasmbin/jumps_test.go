package wasmbin

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
	rewritten, n, entries, err := RewriteJumps(orig)
	if err != nil {
		t.Fatal(err)
	}
	if n < 10000 || entries < 1000 {
		t.Errorf("%d jumps rewritten and %d entry tests added; a Go program has tens of thousands of forward jumps and thousands of functions", n, entries)
	}
	again, n2, e2, err := RewriteJumps(rewritten)
	if err != nil || n2 != 0 || e2 != 0 || !bytes.Equal(again, rewritten) {
		t.Errorf("a second rewrite changed %d jumps and added %d tests (err %v); it must change nothing", n2, e2, err)
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

// tinyModule is a module of one function (param i32 = PC_B) laid out as Go lays out its
// functions: a dispatch loop over three segments; seg0 is the code of segment 0, and
// segment 1 jumps back to segment 0 unless PC_B is 1 (it then falls through to segment 2).
// With entry, the dispatch first tests for PC_B = 0, as the rewrite makes it.
func tinyModule(entry bool, seg0 ...byte) []byte {
	body := []byte{
		0x00,       // no locals
		0x03, 0x40, // loop
		0x02, 0x40, 0x02, 0x40, 0x02, 0x40, // three segment blocks
	}
	if entry {
		body = append(body, 0x20, 0x00, 0x45, 0x0d, 0x00) // local.get 0; i32.eqz; br_if 0
	}
	body = append(body,
		0x20, 0x00, 0x0e, 0x03, 0x00, 0x01, 0x02, 0x02, // local.get 0; br_table [0 1 2] 2
		0x0b, // segment 0
	)
	body = append(body, seg0...)
	body = append(body,
		0x0b,                                     // segment 1
		0x20, 0x00, 0x41, 0x01, 0x47, 0x04, 0x40, // local.get 0; i32.const 1; i32.ne; if
		0x41, 0x00, 0x21, 0x00, 0x0c, 0x02, 0x0b, // i32.const 0; local.set 0; br 2 (the loop); end
		0x0b, // segment 2
		0x0b, // end of loop
		0x0b, // end of function
	)
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 1, 5, 1, 0x60, 1, 0x7f, 0) // type: (i32) -> ()
	m = append(m, 3, 2, 1, 0)                // function 0 of type 0
	m = append(m, 7, 5, 1, 1, 'f', 0, 0)     // export "f"
	code := append([]byte{1, byte(len(body))}, body...)
	m = append(m, 10, byte(len(code)))
	return append(m, code...)
}

// Forward jumps become direct branches to the end of the block before their target segment,
// also from inside an `if` and after one (whose end does not start a segment); the backward
// jump of segment 1 stays a trip through the dispatch, which gets its entry test; the
// function returns from every entry.
func TestTinyFunctionRewrite(t *testing.T) {
	for _, tc := range []struct {
		name      string
		in, want  []byte
		rewritten int
	}{
		{"jump to segment 2",
			[]byte{0x41, 0x02, 0x21, 0x00, 0x0c, 0x02}, // i32.const 2; local.set 0; br 2 (loop)
			[]byte{0x41, 0x02, 0x21, 0x00, 0x0c, 0x01}, // … br 1 (end of the block before segment 2)
			1},
		{"jumps from inside and after an if",
			[]byte{
				0x41, 0x00, 0x04, 0x40, // i32.const 0; if (never taken)
				0x41, 0x02, 0x21, 0x00, 0x0c, 0x03, // i32.const 2; local.set 0; br 3 (loop)
				0x0b,                               // end of if
				0x41, 0x01, 0x21, 0x00, 0x0c, 0x02, // i32.const 1; local.set 0; br 2 (loop)
			},
			[]byte{
				0x41, 0x00, 0x04, 0x40,
				0x41, 0x02, 0x21, 0x00, 0x0c, 0x02, // br 2: the block before segment 2
				0x0b,
				0x41, 0x01, 0x21, 0x00, 0x0c, 0x00, // br 0: the block before segment 1
			},
			2},
	} {
		out, n, entries, err := RewriteJumps(tinyModule(false, tc.in...))
		if err != nil || n != tc.rewritten || entries != 1 {
			t.Fatalf("%s: rewrote %d jumps and added %d entry tests, err %v; want %d and 1", tc.name, n, entries, err, tc.rewritten)
		}
		if want := tinyModule(true, tc.want...); !bytes.Equal(out, want) {
			t.Fatalf("%s: rewritten module\n% x\nwant\n% x", tc.name, out, want)
		}
		ctx := context.Background()
		r := wazero.NewRuntime(ctx)
		mod, err := r.Instantiate(ctx, out)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for pc := uint64(0); pc < 3; pc++ {
			if _, err := mod.ExportedFunction("f").Call(ctx, pc); err != nil {
				t.Errorf("%s: f(%d): %v", tc.name, pc, err)
			}
		}
		r.Close(ctx)
	}
}

// Whatever the input, the rewriter returns an error or a module that a second rewrite leaves
// unchanged; it never panics.
func FuzzRewriteJumps(f *testing.F) {
	f.Add(tinyModule(false, 0x41, 0x02, 0x21, 0x00, 0x0c, 0x02))
	f.Add(tinyModule(false, 0x41, 0x00, 0x04, 0x40, 0x41, 0x02, 0x21, 0x00, 0x0c, 0x03, 0x0b, 0x41, 0x01, 0x21, 0x00, 0x0c, 0x02))
	f.Add([]byte("\x00asm\x01\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, module []byte) {
		out, _, _, err := RewriteJumps(module)
		if err != nil {
			return
		}
		again, n, e, err := RewriteJumps(out)
		if err != nil || n != 0 || e != 0 || !bytes.Equal(again, out) {
			t.Fatalf("second rewrite: %d jumps, %d entry tests, err %v", n, e, err)
		}
	})
}
