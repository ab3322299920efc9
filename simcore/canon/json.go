// Package canon is the one canonical JSON encoder of docs/semantics/outputs.md §2: every JSON byte any
// target emits (prediction.json, requests.jsonl, --format json, the planner digest) goes
// through it, so all targets write identical bytes.
package canon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"unicode/utf8"
)

// ErrNonFinite is returned when a NaN or an infinity reaches the encoder (docs/semantics/outputs.md §2.1);
// inside an object the error is a *NonFiniteError naming the key, which errors.Is matches
// with ErrNonFinite.
var ErrNonFinite = errors.New("report: non-finite float in JSON output")

// NonFiniteError is ErrNonFinite at a dotted key path of the encoded value.
type NonFiniteError struct {
	// Path is the dotted key path of the value, such as "summary.mean_ttft_ms".
	Path string
}

// Error names the key.
func (e *NonFiniteError) Error() string {
	return "report: " + e.Path + " is not finite (NaN or infinite), which JSON cannot hold; an input is outside the ranges the simulator represents (docs/robustness.md, \"Ceilings\")"
}

// Is makes errors.Is(err, ErrNonFinite) true.
func (e *NonFiniteError) Is(target error) bool { return target == ErrNonFinite }

// UnsupportedTypeError reports a value of a Go type the canonical encoder does not know.
type UnsupportedTypeError struct {
	// Value is the offending value.
	Value any
}

// Error names the unsupported Go type.
func (e *UnsupportedTypeError) Error() string {
	return "report: unsupported JSON value type " + typeName(e.Value)
}

// Pretty encodes v in the pretty canonical layout (2-space indent, sorted keys, ASCII only)
// followed by exactly one newline, as written to prediction.json.
func Pretty(v any) ([]byte, error) {
	return AppendPretty(make([]byte, 0, 4096), v)
}

// Compact encodes v in the compact canonical layout (no whitespace, no trailing newline), as
// used for requests.jsonl lines and `--format json` standard output.
func Compact(v any) ([]byte, error) {
	return AppendCompact(make([]byte, 0, 1024), v)
}

// AppendPretty appends the pretty encoding of v plus a newline to dst.
func AppendPretty(dst []byte, v any) ([]byte, error) {
	var e Encoder
	return e.AppendPretty(dst, v)
}

// AppendCompact appends the compact encoding of v to dst (no newline).
func AppendCompact(dst []byte, v any) ([]byte, error) {
	var e Encoder
	return e.AppendCompact(dst, v)
}

// Encoder is a reusable canonical encoder: it keeps its key-sorting scratch space between
// calls, so encoding many records (requests.jsonl) allocates almost nothing. The zero value
// is ready to use; an Encoder must not be used by two callers at once.
type Encoder struct {
	keys [][]string // per-depth scratch for sorted keys
}

// AppendPretty appends the pretty encoding of v plus a newline to dst.
func (enc *Encoder) AppendPretty(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst, pretty: true, keys: enc.keys}
	err := e.value(v, 0)
	enc.keys = e.keys
	if err != nil {
		return dst, err
	}
	return append(e.buf, '\n'), nil
}

// AppendCompact appends the compact encoding of v to dst (no newline).
func (enc *Encoder) AppendCompact(dst []byte, v any) ([]byte, error) {
	e := encoder{buf: dst, keys: enc.keys}
	err := e.value(v, 0)
	enc.keys = e.keys
	if err != nil {
		return dst, err
	}
	return e.buf, nil
}

// AppendFloat appends the canonical text of a float (docs/semantics/outputs.md §2.1): shortest round-trip digits,
// positional for decimal exponents in [-4, 16), exponential otherwise; -0 is written 0.0.
func AppendFloat(dst []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, ErrNonFinite
	}
	return appendFloat(dst, f), nil
}

type encoder struct {
	buf    []byte
	pretty bool
	keys   [][]string // per-depth scratch for sorted keys
}

func (e *encoder) newline(depth int) {
	e.buf = append(e.buf, '\n')
	for i := 0; i < depth; i++ {
		e.buf = append(e.buf, ' ', ' ')
	}
}

func (e *encoder) value(v any, depth int) error {
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		if x {
			e.buf = append(e.buf, "true"...)
		} else {
			e.buf = append(e.buf, "false"...)
		}
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case int64:
		e.buf = strconv.AppendInt(e.buf, x, 10)
	case int32:
		e.buf = strconv.AppendInt(e.buf, int64(x), 10)
	case uint64:
		e.buf = strconv.AppendUint(e.buf, x, 10)
	case uint32:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case uint:
		e.buf = strconv.AppendUint(e.buf, uint64(x), 10)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ErrNonFinite
		}
		e.buf = appendFloat(e.buf, x)
	case string:
		e.buf = appendString(e.buf, x)
	case map[string]any:
		return e.object(x, depth)
	case []any:
		return array(e, x, depth, func(el any) error { return e.value(el, depth+1) })
	case []map[string]any:
		return array(e, x, depth, func(el map[string]any) error { return e.object(el, depth+1) })
	case []float64:
		return array(e, x, depth, func(f float64) error {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return ErrNonFinite
			}
			e.buf = appendFloat(e.buf, f)
			return nil
		})
	case []int:
		return array(e, x, depth, func(n int) error {
			e.buf = strconv.AppendInt(e.buf, int64(n), 10)
			return nil
		})
	case []string:
		return array(e, x, depth, func(str string) error {
			e.buf = appendString(e.buf, str)
			return nil
		})
	default:
		return &UnsupportedTypeError{Value: v}
	}
	return nil
}

// array writes the elements of xs with elem, one per line in the pretty layout; an empty
// array is "[]".
func array[T any](e *encoder, xs []T, depth int, elem func(T) error) error {
	if len(xs) == 0 {
		e.buf = append(e.buf, "[]"...)
		return nil
	}
	e.buf = append(e.buf, '[')
	for i, x := range xs {
		e.sep(i, depth+1)
		if err := elem(x); err != nil {
			return err
		}
	}
	e.close(']', depth)
	return nil
}

// sep writes the separator before element i of a container whose members sit at depth.
func (e *encoder) sep(i, depth int) {
	if i > 0 {
		e.buf = append(e.buf, ',')
	}
	if e.pretty {
		e.newline(depth)
	}
}

func (e *encoder) close(c byte, depth int) {
	if e.pretty {
		e.newline(depth)
	}
	e.buf = append(e.buf, c)
}

func (e *encoder) object(m map[string]any, depth int) error {
	if len(m) == 0 {
		e.buf = append(e.buf, "{}"...)
		return nil
	}
	for len(e.keys) <= depth {
		e.keys = append(e.keys, nil)
	}
	keys := e.keys[depth][:0]
	if cap(keys) < len(m) {
		keys = make([]string, 0, len(m)+8)
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // byte order of UTF-8 = code-point order
	e.keys[depth] = keys
	e.buf = append(e.buf, '{')
	for i, k := range keys {
		e.sep(i, depth+1)
		e.buf = appendString(e.buf, k)
		if e.pretty {
			e.buf = append(e.buf, ':', ' ')
		} else {
			e.buf = append(e.buf, ':')
		}
		if err := e.value(m[k], depth+1); err != nil {
			var nf *NonFiniteError
			switch {
			case err == ErrNonFinite:
				return &NonFiniteError{Path: k}
			case errors.As(err, &nf):
				return &NonFiniteError{Path: k + "." + nf.Path}
			}
			return err
		}
	}
	e.close('}', depth)
	return nil
}

// appendFloat lays out a finite float per docs/semantics/outputs.md §2.1: strconv's shortest
// 'e' text, [-]d[.ddd]e±XX, which is already the canonical exponential form, is laid out
// positionally in place when the exponent is in [-4, 16). The digits are moved in one copy
// (strconv's 'f' format, formerly used here, appends its fraction a digit at a time, the
// larger part of formatting a time in WebAssembly: docs/performance.md). TestFloatLayout checks
// it against the rule written plainly, on millions of floats.
func appendFloat(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, "0.0"...) // also negative zero [decision]
	}
	s := len(dst)
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	if dst[s] == '-' {
		s++
	}
	// The exponent E, read from the end: e, its sign, two or three digits.
	i, exp, scale := len(dst)-1, 0, 1
	for ; dst[i] != '+' && dst[i] != '-'; i-- {
		exp += int(dst[i]-'0') * scale
		scale *= 10
	}
	if dst[i] == '-' {
		exp = -exp
	}
	if exp < -4 || exp >= 16 {
		return dst
	}
	// The digits d1…dn: dst[s], then dst[s+2:s+1+n] after the point when n > 1.
	n := i - 1 - s - 1 // the bytes before 'e' less the point
	if n < 1 {
		n = 1 // a single digit has no point
	}
	switch {
	case exp < 0: // 0.000d1…dn, -E-1 zeros after the point
		var digits [24]byte
		digits[0] = dst[s]
		copy(digits[1:n], dst[s+2:])
		dst = append(dst[:s], "0.000"[:1-exp]...)
		return append(dst, digits[:n]...)
	case exp < n-1: // d1…d(E+1).d(E+2)…dn: the E digits after the point move before it
		copy(dst[s+1:], dst[s+2:s+2+exp])
		dst[s+1+exp] = '.'
		return dst[:s+1+n]
	default: // a whole number: d1…dn, E+1-n zeros, .0
		if n > 1 {
			copy(dst[s+1:], dst[s+2:s+1+n])
		}
		dst = append(dst[:s+n], "000000000000000"[:exp+1-n]...)
		return append(dst, '.', '0')
	}
}

const hexDigits = "0123456789abcdef"

func appendU4(dst []byte, r rune) []byte {
	return append(dst, '\\', 'u', hexDigits[r>>12&0xf], hexDigits[r>>8&0xf], hexDigits[r>>4&0xf], hexDigits[r&0xf])
}

// appendString writes s as an ASCII-only JSON string, escaping like Python's
// json.dumps(ensure_ascii=True); invalid UTF-8 bytes become U+FFFD.
// AppendPrettyCompact appends the pretty layout of compact, a value encoded by Compact (or
// with the same bytes), without the final newline, every line after the first starting with
// prefix: the bytes AppendPretty makes of the value, with prefix after each newline. Compact
// canonical JSON has no whitespace outside strings, so the layout follows from the
// structural characters alone.
func AppendPrettyCompact(dst, compact []byte, prefix string) []byte {
	depth := 0
	run := 0 // start of the bytes not yet copied
	for j := 0; j < len(compact); {
		c := compact[j]
		switch c {
		case '{', '[', '}', ']', ',', ':':
		case '"':
			j = stringEnd(compact, j+1)
			continue
		default:
			j = scalarEnd(compact, j+1)
			continue
		}
		dst = append(dst, compact[run:j]...)
		j++
		switch c {
		case '{', '[':
			if j < len(compact) && (compact[j] == '}' || compact[j] == ']') {
				dst = append(dst, c, compact[j])
				j++
			} else {
				depth++
				dst = appendBreak(append(dst, c), prefix, depth)
			}
		case '}', ']':
			depth--
			dst = append(appendBreak(dst, prefix, depth), c)
		case ',':
			dst = appendBreak(append(dst, ','), prefix, depth)
		case ':':
			dst = append(dst, ':', ' ')
		}
		run = j
	}
	return append(dst, compact[run:]...)
}

// The scans of AppendPrettyCompact look at 8 bytes at a time (one 64-bit load in
// WebAssembly): the runs they skip, keys, strings and numbers, are most of a per-request
// record's bytes, and a loop per byte made the pretty layout a quarter of a large capture's
// CPU time (docs/performance.md). swarOnes has 1 in every byte.
const swarOnes = 0x0101010101010101

// swarFind has the high bit set in the first byte of x equal to b (lowest address first);
// bytes after the first match may be flagged wrongly, never bytes before it.
func swarFind(x uint64, b byte) uint64 {
	y := x ^ (swarOnes * uint64(b))
	return (y - swarOnes) &^ y & (swarOnes << 7)
}

// stringEnd is the index after the closing quote of the string whose contents start at j
// (len(s) when it is unterminated).
func stringEnd(s []byte, j int) int {
	for {
		for j+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[j:])
			if m := swarFind(x, '"') | swarFind(x, '\\'); m != 0 {
				j += bits.TrailingZeros64(m) >> 3
				break
			}
			j += 8
		}
		for j < len(s) && s[j] != '"' && s[j] != '\\' {
			j++
		}
		switch {
		case j >= len(s):
			return len(s)
		case s[j] == '"':
			return j + 1
		}
		j += 2 // an escape: the next byte is not the end
	}
}

// scalarEnd is the index of the comma or closing bracket after the number or literal
// that continues at j (len(s) at the end).
func scalarEnd(s []byte, j int) int {
	for j+8 <= len(s) {
		x := binary.LittleEndian.Uint64(s[j:])
		if m := swarFind(x, ',') | swarFind(x, '}') | swarFind(x, ']'); m != 0 {
			return j + bits.TrailingZeros64(m)>>3
		}
		j += 8
	}
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' {
		j++
	}
	return j
}

// appendBreak appends a newline, prefix and the indentation of depth (2 spaces per level).
func appendBreak(dst []byte, prefix string, depth int) []byte {
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	for n := 2 * depth; n > 0; n -= len(indentSpaces) {
		dst = append(dst, indentSpaces[:min(n, len(indentSpaces))]...)
	}
	return dst
}

// indentSpaces is written in slices by appendBreak.
const indentSpaces = "                                "

// AppendString appends the canonical JSON string of s (docs/semantics/outputs.md §2).
func AppendString(dst []byte, s string) []byte { return appendString(dst, s) }

func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f && c != '"' && c != '\\' {
			i++
			continue
		}
		dst = append(dst, s[start:i]...)
		if c < utf8.RuneSelf {
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default: // other control characters and U+007F
				dst = appendU4(dst, rune(c))
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			r -= 0x10000
			dst = appendU4(dst, 0xd800+(r>>10))
			dst = appendU4(dst, 0xdc00+(r&0x3ff))
		} else {
			dst = appendU4(dst, r) // includes U+FFFD for invalid bytes
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

func typeName(v any) string { return fmt.Sprintf("%T", v) }
