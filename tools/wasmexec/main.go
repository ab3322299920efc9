// Command wasmexec runs a wasip1 WebAssembly program under wazero, the runtime bin/aisimulate
// uses, so that Go tests and benchmarks can measure the code as it runs there:
//
//	GOOS=wasip1 GOARCH=wasm go test -exec "go run ./tools/wasmexec" -bench . ./simcore/report
//
// The program sees the current directory as / and the process's arguments and environment.
// WASMEXEC_CACHE names a directory for wazero's compilation cache (repeated runs of one
// program then skip compilation, which matters under an instruction-counting profiler:
// `valgrind --tool=cachegrind` gives counts that do not vary with the machine's load). The
// program's jumps are rewritten first, as `make wasm` rewrites the simulator module
// (wasmbin.RewriteJumps), so a benchmark measures code as bin/aisimulate runs it;
// WASMEXEC_JUMPS=off runs the program as the Go linker wrote it.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"aisimulate/host"
	"aisimulate/tools/internal/wasmbin"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmexec PROGRAM.wasm [ARGS...]")
		os.Exit(2)
	}
	code, err := os.ReadFile(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if os.Getenv("WASMEXEC_JUMPS") != "off" {
		if code, _, _, err = wasmbin.RewriteJumps(code); err != nil {
			fmt.Fprintln(os.Stderr, "wasmexec:", err)
			os.Exit(2)
		}
	}
	ctx := context.Background()
	rc := wazero.NewRuntimeConfig()
	if dir := os.Getenv("WASMEXEC_CACHE"); dir != "" {
		cache, err := wazero.NewCompilationCacheWithDir(dir)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer cache.Close(ctx)
		rc = rc.WithCompilationCache(cache)
	}
	rt := wazero.NewRuntimeWithConfig(ctx, rc)
	defer rt.Close(ctx)
	wasi_snapshot_preview1.MustInstantiate(ctx, rt)
	// The simulator module imports the native host's functions (docs/recommend.md, "Parallel
	// and remote evaluation"); here recommend evaluates in process.
	if err := host.DefineImports(ctx, rt); err != nil {
		fmt.Fprintln(os.Stderr, "wasmexec:", err)
		os.Exit(2)
	}
	cfg := wazero.NewModuleConfig().WithArgs(os.Args[1:]...).
		WithStdin(os.Stdin).WithStdout(os.Stdout).WithStderr(os.Stderr).
		WithFSConfig(wazero.NewFSConfig().WithDirMount(".", "/")).
		WithSysWalltime().WithSysNanotime().WithSysNanosleep().WithRandSource(nil)
	for _, kv := range os.Environ() {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				cfg = cfg.WithEnv(kv[:i], kv[i+1:])
				break
			}
		}
	}
	_, err = rt.InstantiateWithConfig(ctx, code, cfg)
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		os.Exit(int(exit.ExitCode()))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
