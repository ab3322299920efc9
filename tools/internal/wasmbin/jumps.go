package wasmbin

import (
	"errors"
	"fmt"
	"slices"
)

// Go's WebAssembly backend lays every function out as
//
//	loop $dispatch
//	  block block … block          ;; one block per segment, innermost first
//	    local.get 0                ;; PC_B, the segment to run
//	    br_table …                 ;; label r = the code after the r-th block's end
//	  end  <segment 0>
//	  end  <segment 1>
//	  …
//	end
//
// where a segment is a basic block (or the code after a call), and every jump to another
// segment is `i32.const K; local.set 0; br $dispatch`: the br_table then picks segment
// table[K]. That is an indirect jump, through one site per function, for every taken branch
// of the Go program. A jump forward, to a segment after the current one, can instead branch
// straight to the end of the block that precedes its target segment, since that block
// encloses the current segment: the same code runs next (PC_B is still set), without the
// table. Jumps backward (loop back edges) must still go through the dispatch loop. Calls
// enter with PC_B = 0, so a test for 0 before the table sends them to their first segment
// with a conditional branch instead of the shared indirect jump.

// errUnsupported reports code RewriteJumps does not decode (an opcode outside what Go emits).
var errUnsupported = errors.New("unsupported instruction")

// ctrl is one open control construct of a function body.
type ctrl struct {
	op      byte // 0x02 block, 0x03 loop, 0x04 if
	segment bool // one of the dispatch's segment blocks: its end starts the next segment
}

// rewriteBody returns a function body (locals and code, without its size) with forward
// dispatch jumps turned into direct branches and an entry test before the dispatch table,
// the number of jumps rewritten and the number of entry tests added (0 or 1).
func rewriteBody(body []byte) (out []byte, rewritten, entries int, err error) {
	r := reader{b: body}
	nLocals := r.u32()
	for i := uint32(0); i < nLocals && r.err == nil; i++ {
		r.u32()
		r.byte1()
	}
	if r.err != nil {
		return nil, 0, 0, r.err
	}
	out = append(out, body[:r.p]...)
	var stack []ctrl
	// The dispatch structure, once found: the stack position of the loop, the number of
	// segment blocks, the segment each K selects, and the segment being read.
	loopAt, blocks := -1, 0
	var table []uint32
	segment := -1
	// The last two instructions (opcode, immediate, position in out), to recognise
	// `i32.const K; local.set 0` before a jump and `local.get 0` before the dispatch table.
	type inst struct {
		op    byte
		imm   int64
		start int
	}
	var prev [2]inst
	push := func(i inst) { prev[0], prev[1] = prev[1], i }
	for r.p < len(body) && r.err == nil {
		start := r.p
		op := r.byte1()
		cur := inst{op: op, start: len(out)}
		switch {
		case op == 0x02 || op == 0x03 || op == 0x04: // block, loop, if
			r.blockType()
			stack = append(stack, ctrl{op: op})
		case op == 0x05: // else
		case op == 0x0b: // end
			if len(stack) == 0 {
				if r.p != len(body) {
					return nil, 0, 0, fmt.Errorf("code after the end of the function")
				}
				out = append(out, body[start:r.p]...)
				return out, rewritten, entries, nil
			}
			top := len(stack) - 1
			if stack[top].segment {
				segment++ // a segment block closed: the next segment starts
			}
			if top == loopAt {
				loopAt = -2 // the dispatch loop is over; nothing after it is rewritten
			}
			stack = stack[:top]
		case op == 0x0c: // br
			depth := r.u32()
			target := len(stack) - 1 - int(depth)
			if loopAt >= 0 && target == loopAt && prev[1].op == 0x21 && prev[1].imm == 0 && prev[0].op == 0x41 && segment >= 0 {
				k := prev[0].imm
				if k >= 0 && k < int64(len(table)) {
					seg := int(table[k])
					if seg > segment && seg < blocks {
						// The block that ends just before segment seg.
						blockAt := loopAt + blocks - seg
						out = append(out, 0x0c)
						out = AppendU32(out, uint32(len(stack)-1-blockAt))
						rewritten++
						push(inst{op: op, start: cur.start})
						continue
					}
				}
			}
		case op == 0x0d: // br_if
			r.u32()
		case op == 0x0e: // br_table
			n := r.u32()
			labels := make([]uint32, 0, min(int(n), len(body)-r.p)) // a label is at least a byte
			for i := uint32(0); i < n && r.err == nil; i++ {
				labels = append(labels, r.u32())
			}
			r.u32() // default
			// The dispatch: `loop`, then only blocks, then `local.get 0` and this table.
			if loopAt == -1 && prev[1].op == 0x20 && prev[1].imm == 0 {
				l := len(stack) - 1
				for l >= 0 && stack[l].op == 0x02 {
					l--
				}
				if l >= 0 && stack[l].op == 0x03 && len(stack)-1-l >= 1 && dispatchPrefix(out, prev[1].start, len(stack)-1-l) {
					loopAt, blocks, table = l, len(stack)-1-l, labels
					for i := l + 1; i < len(stack); i++ {
						stack[i].segment = true
					}
					// A call enters with PC_B = 0: test for it before the table, so that
					// entries take a conditional branch, which the CPU predicts from this
					// site alone, instead of the indirect jump all back edges share too.
					if len(labels) > 0 {
						check := AppendU32([]byte{0x20, 0x00, 0x45, 0x0d}, labels[0]) // local.get 0; i32.eqz; br_if
						out = slices.Insert(out, prev[1].start, check...)
						entries++
					}
				}
			}
		case op == 0x0f || op == 0x00 || op == 0x01 || op == 0x1a || op == 0x1b: // return, unreachable, nop, drop, select
		case op == 0x10: // call
			r.u32()
		case op == 0x11: // call_indirect
			r.u32()
			r.u32()
		case op == 0x1c: // select t*
			n := r.u32()
			for i := uint32(0); i < n && r.err == nil; i++ {
				r.byte1()
			}
		case op >= 0x20 && op <= 0x26: // local.get/set/tee, global.get/set, table.get/set
			cur.imm = int64(r.u32())
		case op >= 0x28 && op <= 0x3e: // loads and stores: memarg
			r.u32()
			r.u32()
		case op == 0x3f || op == 0x40: // memory.size, memory.grow
			r.byte1()
		case op == 0x41: // i32.const
			cur.imm = r.s64()
		case op == 0x42: // i64.const
			r.s64()
		case op == 0x43:
			r.skip(4)
		case op == 0x44:
			r.skip(8)
		case op >= 0x45 && op <= 0xc4: // numeric, conversions, sign extension
		case op == 0xd0: // ref.null
			r.byte1()
		case op == 0xd1: // ref.is_null
		case op == 0xd2: // ref.func
			r.u32()
		case op == 0xfc:
			switch sub := r.u32(); {
			case sub <= 7: // saturating conversions
			case sub == 8: // memory.init
				r.u32()
				r.byte1()
			case sub == 9, sub == 13, sub == 15, sub == 16, sub == 17: // data.drop, elem.drop, table.grow/size/fill
				r.u32()
			case sub == 10: // memory.copy
				r.byte1()
				r.byte1()
			case sub == 11: // memory.fill
				r.byte1()
			case sub == 12, sub == 14: // table.init, table.copy
				r.u32()
				r.u32()
			default:
				return nil, 0, 0, fmt.Errorf("%w 0xfc %d", errUnsupported, sub)
			}
		default:
			return nil, 0, 0, fmt.Errorf("%w 0x%02x", errUnsupported, op)
		}
		if r.err != nil {
			break
		}
		out = append(out, body[start:r.p]...)
		push(cur)
	}
	if r.err == nil {
		r.err = errors.New("function body without end")
	}
	return nil, 0, 0, r.err
}

// dispatchPrefix reports whether the n instructions before position at of out are n
// `block` (empty type) instructions directly after a `loop` (empty type).
func dispatchPrefix(out []byte, at, n int) bool {
	p := at - 2*n
	if p < 2 {
		return false
	}
	for i := 0; i < n; i++ {
		if out[p+2*i] != 0x02 || out[p+2*i+1] != 0x40 {
			return false
		}
	}
	return out[p-2] == 0x03 && out[p-1] == 0x40
}

// reader decodes a byte slice; the first error sticks and later reads return zero.
type reader struct {
	b   []byte
	p   int
	err error
}

var errTruncated = errors.New("truncated or malformed LEB128")

func (r *reader) byte1() byte {
	if r.err != nil || r.p >= len(r.b) {
		r.err = errTruncated
		return 0
	}
	r.p++
	return r.b[r.p-1]
}

func (r *reader) skip(n int) {
	if r.err != nil || r.p+n > len(r.b) {
		r.err = errTruncated
		return
	}
	r.p += n
}

func (r *reader) u32() uint32 {
	if r.err != nil {
		return 0
	}
	v, n := ReadU32(r.b[r.p:])
	if n == 0 {
		r.err = errTruncated
		return 0
	}
	r.p += n
	return v
}

func (r *reader) s64() int64 {
	var v int64
	var shift uint
	for i := 0; i < 10; i++ {
		c := r.byte1()
		if r.err != nil {
			return 0
		}
		v |= int64(c&0x7f) << shift
		shift += 7
		if c < 0x80 {
			if shift < 64 && c&0x40 != 0 {
				v -= 1 << shift
			}
			return v
		}
	}
	r.err = errTruncated
	return 0
}

// blockType skips a block type: 0x40, a value type, or a type index (s33).
func (r *reader) blockType() {
	if r.err != nil || r.p >= len(r.b) {
		r.err = errTruncated
		return
	}
	c := r.b[r.p]
	if c == 0x40 || (c >= 0x6f && c <= 0x7f) {
		r.p++
		return
	}
	r.s64()
}

// RewriteJumps returns the module with the forward jumps of every function rewritten and
// an entry test before every dispatch table, and the numbers of both. A module it already
// rewrote comes back unchanged (its dispatches no longer have Go's shape).
func RewriteJumps(module []byte) (out []byte, jumps, entries int, err error) {
	sections, err := Sections(module)
	if err != nil {
		return nil, 0, 0, err
	}
	for i, sec := range sections {
		if sec.ID == 10 {
			if sections[i].Body, jumps, entries, err = rewriteCode(sec.Body); err != nil {
				return nil, 0, 0, err
			}
		}
	}
	return Join(module, sections), jumps, entries, nil
}

// rewriteCode rewrites every function body of a code section.
func rewriteCode(sec []byte) (out []byte, jumps, entries int, err error) {
	r := reader{b: sec}
	n := r.u32()
	out = AppendU32(out, n)
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
		out = AppendU32(out, uint32(len(body)))
		out = append(out, body...)
	}
	if r.p != len(sec) {
		return nil, 0, 0, errors.New("code section: bytes after the last function")
	}
	return out, jumps, entries, nil
}
