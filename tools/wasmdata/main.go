// Command wasmdata merges the data segments of a WebAssembly module in place:
//
//	go run ./tools/wasmdata host/module/aisimulate.wasm
//
// Go's linker starts a new data segment at every run of eight or more zero bytes, which gives
// the simulator module about 60,000 segments, most of them 18 bytes apart. wazero decodes each
// one on every start of bin/aisimulate (an allocation and a constant expression per segment,
// about a tenth of the start-up's work), while the zeros between them are what a fresh linear
// memory holds anyway. Segments at most maxGap bytes apart are joined with those zeros in
// between: a few dozen segments, about the same bytes, the same memory image.
//
// Only modules whose segments are all active, in memory 0, at constant i32 offsets and
// non-overlapping are rewritten; any other module is left as it is.
package main

import (
	"fmt"
	"sort"

	"aisimulate/tools/internal/wasmbin"
)

// maxGap is the largest run of zero bytes written out to join two segments.
const maxGap = 64

func main() {
	wasmbin.Main("wasmdata", "merges its data segments in place", func(in []byte) ([]byte, string, error) {
		out, before, after, err := MergeDataSegments(in, maxGap)
		if err != nil || before == after {
			return nil, "", err
		}
		return out, fmt.Sprintf("%d data segments merged into %d", before, after), nil
	})
}

// segment is one active data segment: its memory offset and bytes.
type segment struct {
	offset uint32
	data   []byte
}

// errMalformed reports a module that is not valid WebAssembly where the tool reads it.
var errMalformed = wasmbin.ErrMalformed

// MergeDataSegments returns module with data segments at most gap bytes apart joined, and
// the segment counts before and after. A module it cannot rewrite safely (see the package
// comment) comes back unchanged with equal counts; only a malformed one is an error.
func MergeDataSegments(module []byte, gap uint32) (out []byte, before, after int, err error) {
	sections, err := wasmbin.Sections(module)
	if err != nil {
		return nil, 0, 0, err
	}
	data := -1
	for i, s := range sections {
		if s.ID == 11 {
			if data >= 0 { // a module has at most one data section (WebAssembly core spec, §5.5.2)
				return nil, 0, 0, errMalformed
			}
			data = i
		}
	}
	if data < 0 {
		return module, 0, 0, nil
	}
	segs, ok, err := readSegments(sections[data].Body)
	if err != nil {
		return nil, 0, 0, err
	}
	if !ok {
		return module, len(segs), len(segs), nil
	}
	merged, ok := merge(segs, gap)
	if !ok {
		return module, len(segs), len(segs), nil
	}
	sections[data].Body = encodeSegments(merged)
	for i, s := range sections {
		if s.ID == 12 { // data count (bulk memory): the new number of segments
			sections[i].Body = wasmbin.AppendU32(nil, uint32(len(merged)))
		}
	}
	return wasmbin.Join(module, sections), len(segs), len(merged), nil
}

// readSegments decodes a data section. ok is false when a segment is not of the rewritable
// kind (active, memory 0, offset `i32.const c end`).
func readSegments(body []byte) (segs []segment, ok bool, err error) {
	count, n := wasmbin.ReadU32(body)
	if n == 0 {
		return nil, false, errMalformed
	}
	p := n
	for i := uint32(0); i < count; i++ {
		flags, n := wasmbin.ReadU32(body[p:])
		if n == 0 {
			return nil, false, errMalformed
		}
		p += n
		if flags != 0 || p >= len(body) || body[p] != 0x41 { // i32.const
			return nil, false, nil
		}
		off, n := wasmbin.ReadS32(body[p+1:])
		if n == 0 || p+1+n >= len(body) || body[p+1+n] != 0x0b || off < 0 { // end
			return nil, false, nil
		}
		p += 1 + n + 1
		size, n := wasmbin.ReadU32(body[p:])
		if n == 0 || p+n+int(size) > len(body) {
			return nil, false, errMalformed
		}
		p += n
		segs = append(segs, segment{offset: uint32(off), data: body[p : p+int(size)]})
		p += int(size)
	}
	if p != len(body) {
		return nil, false, errMalformed
	}
	return segs, true, nil
}

// merge sorts segments by offset and joins neighbours at most gap bytes apart. ok is false
// if two segments overlap (then their order would matter).
func merge(segs []segment, gap uint32) ([]segment, bool) {
	sorted := append([]segment(nil), segs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].offset < sorted[j].offset })
	var out []segment
	for _, s := range sorted {
		if len(out) > 0 {
			last := &out[len(out)-1]
			end := uint64(last.offset) + uint64(len(last.data))
			if uint64(s.offset) < end {
				return nil, false
			}
			if uint64(s.offset)-end <= uint64(gap) {
				joined := make([]byte, 0, uint64(s.offset)-uint64(last.offset)+uint64(len(s.data)))
				joined = append(joined, last.data...)
				joined = append(joined, make([]byte, uint64(s.offset)-end)...)
				last.data = append(joined, s.data...)
				continue
			}
		}
		out = append(out, segment{offset: s.offset, data: s.data})
	}
	return out, true
}

// encodeSegments encodes a data section body of active memory-0 segments.
func encodeSegments(segs []segment) []byte {
	out := wasmbin.AppendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		out = append(out, 0, 0x41)
		out = wasmbin.AppendS32(out, int32(s.offset))
		out = append(out, 0x0b)
		out = wasmbin.AppendU32(out, uint32(len(s.data)))
		out = append(out, s.data...)
	}
	return out
}
