// Package wasmbin holds what the post-link WebAssembly tools (tools/wasmdata,
// tools/wasmjumps, tools/wasmexec) share: LEB128 integers, replacing a module file in place,
// and the jump rewrite of Go-built modules (RewriteJumps, jumps.go).
package wasmbin

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// ReadU32 decodes an unsigned LEB128 value; n is 0 if it is truncated or too long.
func ReadU32(b []byte) (v uint32, n int) {
	var shift uint
	for i := 0; i < len(b) && i < 5; i++ {
		v |= uint32(b[i]&0x7f) << shift
		if b[i] < 0x80 {
			return v, i + 1
		}
		shift += 7
	}
	return 0, 0
}

// ReadS32 decodes a signed LEB128 value; n is 0 if it is truncated or too long.
func ReadS32(b []byte) (v int32, n int) {
	var r int64
	var shift uint
	for i := 0; i < len(b) && i < 5; i++ {
		r |= int64(b[i]&0x7f) << shift
		shift += 7
		if b[i] < 0x80 {
			if b[i]&0x40 != 0 {
				r -= 1 << shift
			}
			return int32(r), i + 1
		}
	}
	return 0, 0
}

// AppendU32 appends v as unsigned LEB128.
func AppendU32(b []byte, v uint32) []byte {
	for v >= 0x80 {
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// AppendS32 appends v as signed LEB128.
func AppendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// Replace writes module to path through a temporary file in the same directory renamed over
// it, so a failed write leaves the old module whole.
func Replace(path string, module []byte) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, module, 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// Main is the whole program of a tool that rewrites the module named by its one argument in
// place: pass returns the new module and a report line, or "" when nothing changed (the file
// is then left alone). Usage errors exit 2, failures 1.
func Main(tool, usage string, pass func(module []byte) (out []byte, report string, err error)) {
	if len(os.Args) != 2 {
		fmt.Fprintf(os.Stderr, "usage: %s MODULE.wasm (%s)\n", tool, usage)
		os.Exit(2)
	}
	path := os.Args[1]
	in, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
		os.Exit(1)
	}
	out, report, err := pass(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s: %v\n", tool, path, err)
		os.Exit(1)
	}
	if report == "" {
		return
	}
	if err := Replace(path, out); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", tool, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "%s: %s: %s\n", tool, path, report)
}

// ErrMalformed reports a module that is not valid WebAssembly where a tool reads it.
var ErrMalformed = errors.New("malformed module")

// Section is one section of a module: its id and body.
type Section struct {
	ID   byte
	Body []byte
}

// Sections splits a module after its 8-byte header into its sections (bodies alias module).
func Sections(module []byte) ([]Section, error) {
	if len(module) < 8 || !bytes.Equal(module[:4], []byte("\x00asm")) {
		return nil, ErrMalformed
	}
	var sections []Section
	for pos := 8; pos < len(module); {
		size, n := ReadU32(module[pos+1:])
		start := pos + 1 + n
		if n == 0 || start+int(size) > len(module) {
			return nil, ErrMalformed
		}
		sections = append(sections, Section{module[pos], module[start : start+int(size)]})
		pos = start + int(size)
	}
	return sections, nil
}

// Join encodes a module of the 8-byte header and the sections.
func Join(header []byte, sections []Section) []byte {
	out := append([]byte(nil), header[:8]...)
	for _, s := range sections {
		out = append(out, s.ID)
		out = AppendU32(out, uint32(len(s.Body)))
		out = append(out, s.Body...)
	}
	return out
}
