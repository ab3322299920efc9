// Command wasmjumps rewrites, in place, the jumps of a Go-built WebAssembly module that go
// forward to another basic block of the same function into direct branches (see jumps.go):
//
//	go run ./tools/wasmjumps host/module/aisimulate.wasm
//
// The rewritten module runs the same instructions in the same order; only the dispatch
// through each function's jump table is skipped.
package main

import (
	"bytes"
	"errors"
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
	out, jumps, entries, err := RewriteModule(in)
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

// RewriteModule returns the module with the forward jumps of every function rewritten and
// an entry test before every dispatch table, and the numbers of both. A module it already
// rewrote comes back unchanged (its dispatches no longer have Go's shape).
func RewriteModule(module []byte) (out []byte, jumps, entries int, err error) {
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) {
		return nil, 0, 0, errors.New("not a WebAssembly module")
	}
	out = append(out, module[:8]...)
	r := reader{b: module, p: 8}
	for r.p < len(module) {
		id := r.byte1()
		size := r.u32()
		start := r.p
		r.skip(int(size))
		if r.err != nil {
			return nil, 0, 0, fmt.Errorf("section %d: %w", id, r.err)
		}
		body := module[start:r.p]
		if id == 10 {
			body, jumps, entries, err = rewriteCode(body)
			if err != nil {
				return nil, 0, 0, err
			}
		}
		out = append(out, id)
		out = wasmbin.AppendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	return out, jumps, entries, nil
}

// rewriteCode rewrites every function body of a code section.
func rewriteCode(sec []byte) (out []byte, jumps, entries int, err error) {
	r := reader{b: sec}
	n := r.u32()
	out = wasmbin.AppendU32(out, n)
	for i := uint32(0); i < n; i++ {
		size := r.u32()
		start := r.p
		r.skip(int(size))
		if r.err != nil {
			return nil, 0, 0, fmt.Errorf("function %d: %w", i, r.err)
		}
		body, k, e, err := rewriteBody(sec[start:r.p])
		if err != nil {
			return nil, 0, 0, fmt.Errorf("function %d: %w", i, err)
		}
		jumps += k
		entries += e
		out = wasmbin.AppendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if r.p != len(sec) {
		return nil, 0, 0, errors.New("code section: bytes after the last function")
	}
	return out, jumps, entries, nil
}
