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

	"aisimulate/tools/internal/wasmbin"
)

func main() {
	wasmbin.Main("wasmjumps", "rewrites its forward jumps in place", func(in []byte) ([]byte, string, error) {
		out, jumps, entries, err := wasmbin.RewriteJumps(in)
		if err != nil || jumps+entries == 0 {
			return nil, "", err
		}
		return out, fmt.Sprintf("%d forward jumps made direct, %d entry tests added", jumps, entries), nil
	})
}
