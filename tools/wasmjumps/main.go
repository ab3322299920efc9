// Command wasmjumps rewrites, in place, the jumps of a Go-built WebAssembly module that go
// forward to another basic block of the same function into direct branches, and tests for a
// call's entry before each function's dispatch table (wasmbin.RewriteJumps):
//
//	go run ./tools/wasmjumps host/module/aisimulate.wasm
//
// The rewritten module runs the same code in the same order; only trips through each
// function's jump table are skipped.
package main

import (
	"fmt"
	"os"

	"aisimulate/tools/internal/wasmbin"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: wasmjumps MODULE.wasm (rewrites its forward jumps in place)")
		os.Exit(2)
	}
	path := os.Args[1]

	in, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmjumps:", err)
		os.Exit(1)
	}
	out, jumps, entries, err := wasmbin.RewriteJumps(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wasmjumps: %s: %v\n", path, err)
		os.Exit(1)
	}
	if jumps+entries == 0 {
		return
	}
	if err := wasmbin.Replace(path, out); err != nil {
		fmt.Fprintln(os.Stderr, "wasmjumps:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "wasmjumps: %s: %d forward jumps made direct, %d entry tests added\n", path, jumps, entries)
}
