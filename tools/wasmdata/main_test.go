package main

import (
	"bytes"
	"testing"

	"aisimulate/tools/internal/wasmbin"
)

// module builds a WebAssembly module of a memory section, an optional data count section and
// a data section holding the given raw segment encodings.
func module(dataCount bool, segs ...[]byte) []byte {
	m := []byte("\x00asm\x01\x00\x00\x00")
	m = append(m, 5, 3, 1, 0, 1) // memory: one memory, min 1 page
	if dataCount {
		m = append(m, 12, 1, byte(len(segs)))
	}
	body := wasmbin.AppendU32(nil, uint32(len(segs)))
	for _, s := range segs {
		body = append(body, s...)
	}
	m = append(m, 11)
	m = wasmbin.AppendU32(m, uint32(len(body)))
	return append(m, body...)
}

// active encodes an active memory-0 segment at offset.
func active(offset int32, data string) []byte {
	s := []byte{0, 0x41}
	s = wasmbin.AppendS32(s, offset)
	s = append(s, 0x0b)
	s = wasmbin.AppendU32(s, uint32(len(data)))
	return append(s, data...)
}

// image is the memory a module's data section writes: offset → byte, later segments winning.
func image(t *testing.T, m []byte) map[uint32]byte {
	t.Helper()
	img := map[uint32]byte{}
	for pos := 8; pos < len(m); {
		size, n := wasmbin.ReadU32(m[pos+1:])
		body := m[pos+1+n : pos+1+n+int(size)]
		if m[pos] == 11 {
			segs, ok, err := readSegments(body)
			if err != nil || !ok {
				t.Fatalf("data section not readable: ok=%v err=%v", ok, err)
			}
			for _, s := range segs {
				for i, c := range s.data {
					if c != 0 {
						img[s.offset+uint32(i)] = c
					} else {
						delete(img, s.offset+uint32(i))
					}
				}
			}
		}
		pos += 1 + n + int(size)
	}
	return img
}

func TestMergeJoinsCloseSegmentsOnly(t *testing.T) {
	in := module(true, active(10, "cd"), active(0, "ab"), active(1000, "ef"))
	out, before, after, err := MergeDataSegments(in, 64)
	if err != nil || before != 3 || after != 2 {
		t.Fatalf("counts %d → %d, err %v; want 3 → 2", before, after, err)
	}
	want := module(true, active(0, "ab\x00\x00\x00\x00\x00\x00\x00\x00cd"), active(1000, "ef"))
	want[len("\x00asm\x01\x00\x00\x00")+5+2] = 2 // data count of the merged module
	if !bytes.Equal(out, want) {
		t.Fatalf("merged module\n got %x\nwant %x", out, want)
	}
}

func TestMergeLeavesUnsafeModulesAlone(t *testing.T) {
	passive := append([]byte{1}, wasmbin.AppendU32(nil, 2)...)
	passive = append(passive, "zz"...)
	for name, in := range map[string][]byte{
		"overlap": module(false, active(0, "abcd"), active(2, "xy")),
		"passive": module(false, active(0, "ab"), passive),
		"global":  module(false, []byte{0, 0x23, 0, 0x0b, 1, 'a'}), // offset from global.get 0
	} {
		out, before, after, err := MergeDataSegments(in, 64)
		if err != nil || before != after || !bytes.Equal(out, in) {
			t.Errorf("%s: rewritten (%d → %d, err %v)", name, before, after, err)
		}
	}
}

func TestMergeRejectsMalformed(t *testing.T) {
	good := module(false, active(0, "ab"), active(2, "cd"))
	// Two data sections, the first malformed (a count of 1 with no segment): a module has
	// one data section at most, and the rewrite must not pass over the first.
	const memory = 8 + 5 // header, then the 5-byte memory section of module()
	twoData := append(append(append([]byte{}, good[:memory]...), 11, 1, 1), good[memory:]...)
	for _, in := range [][]byte{nil, []byte("\x00asX\x01\x00\x00\x00"), good[:len(good)-1], twoData} {
		if _, _, _, err := MergeDataSegments(in, 64); err == nil {
			t.Errorf("%x: no error", in)
		}
	}
}

// FuzzMergeKeepsMemoryImage checks on arbitrary input that the tool never panics and that a
// module it rewrites writes the same bytes to memory as before.
func FuzzMergeKeepsMemoryImage(f *testing.F) {
	f.Add(module(true, active(10, "cd"), active(0, "ab"), active(1000, "ef")))
	f.Add(module(false, active(0, "abcd"), active(2, "xy")))
	f.Add(module(false, active(5, "a\x00b"), active(9, "c"), active(80, "d")))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, before, after, err := MergeDataSegments(in, 64)
		if err != nil || before == after {
			return
		}
		if after > before {
			t.Fatalf("segments %d → %d", before, after)
		}
		a, b := image(t, in), image(t, out)
		if len(a) != len(b) {
			t.Fatalf("image sizes %d vs %d", len(a), len(b))
		}
		for k, v := range a {
			if b[k] != v {
				t.Fatalf("byte at %d: %x vs %x", k, v, b[k])
			}
		}
	})
}
