package traffic

import (
	"bytes"
	"math"
	"strconv"
)

// rowFieldNames are the JSON keys of mooncakeRow; encoding/json matches them case-insensitively,
// so a key that folds to one of them without being one of the decoder's keys sends the line to
// encoding/json.
var rowFieldNames = []string{
	"timestamp", "created_time", "input_length", "input_tokens", "output_length", "output_tokens",
	"hash_ids", "session_id", "request_id", "delay", "delay_ms", "output_token_ids",
	"wait_for", "tool_wait_ms", "play_id", "not_before_ms", "dependencies",
}

// mooncakeRowDecoder decodes the common flat shape of a mooncake row without reflection: one
// object whose values are numbers, ASCII strings without escapes, integer arrays, booleans or
// null.
// decode reports false for anything else and the caller falls back to encoding/json (which
// also words the errors). The storage is reused from row to row: the pointers and slices it
// puts into the row are valid until the next decode.
type mooncakeRowDecoder struct {
	ts, ct, delay, delayMs float64
	il, it, ol, ot         int64
	sid, rid               flexID
	hash, outIDs           []uint64
}

// decode fills r (which must be zero) from b; false means "use encoding/json".
func (f *mooncakeRowDecoder) decode(b []byte, r *mooncakeRow) bool {
	p := rowScanner{b: b}
	p.ws()
	if !p.eat('{') {
		return false
	}
	p.ws()
	if p.eat('}') {
		return p.end()
	}
	for {
		p.ws()
		key, ok := p.str()
		if !ok {
			return false
		}
		p.ws()
		if !p.eat(':') {
			return false
		}
		p.ws()
		if !f.value(&p, key, r) {
			return false
		}
		p.ws()
		if p.eat(',') {
			continue
		}
		if p.eat('}') {
			return p.end()
		}
		return false
	}
}

// value decodes the value of one key.
func (f *mooncakeRowDecoder) value(p *rowScanner, key []byte, r *mooncakeRow) bool {
	switch string(key) {
	case "timestamp":
		return p.float(&f.ts, &r.Timestamp)
	case "created_time":
		return p.float(&f.ct, &r.CreatedTime)
	case "delay":
		return p.float(&f.delay, &r.Delay)
	case "delay_ms":
		return p.float(&f.delayMs, &r.DelayMs)
	case "input_length":
		return p.int(&f.il, &r.InputLength)
	case "input_tokens":
		return p.int(&f.it, &r.InputTokens)
	case "output_length":
		return p.int(&f.ol, &r.OutputLength)
	case "output_tokens":
		return p.int(&f.ot, &r.OutputTokens)
	case "session_id":
		return p.id(&f.sid, &r.SessionID)
	case "request_id":
		return p.id(&f.rid, &r.RequestID)
	case "hash_ids":
		return p.uints(&f.hash, &r.HashIDs)
	case "output_token_ids":
		return p.uints(&f.outIDs, &r.OutputTokenIDs)
	}
	for _, n := range rowFieldNames {
		if bytes.EqualFold(key, []byte(n)) {
			return false
		}
	}
	return p.skipScalar()
}

// rowScanner is a cursor over one line.
type rowScanner struct {
	b []byte
	i int
}

// ws skips whitespace. This and the other scanning loops keep the buffer and position in
// locals: fields of p are memory loads and stores in WebAssembly, each with its bounds check.
func (p *rowScanner) ws() {
	b, i := p.b, p.i
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	p.i = i
}

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *rowScanner) eat(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *rowScanner) end() bool {
	p.ws()
	return p.i == len(p.b)
}

// str reads a string of printable ASCII without escapes.
func (p *rowScanner) str() ([]byte, bool) {
	if !p.eat('"') {
		return nil, false
	}
	b, start := p.b, p.i
	for i := start; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			p.i = i + 1
			return b[start:i], true
		}
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return nil, false
		}
	}
	return nil, false
}

// null consumes a null literal.
func (p *rowScanner) null() bool {
	if bytes.HasPrefix(p.b[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// number reads a literal of the JSON number grammar; integer is true when it has no
// fraction or exponent.
func (p *rowScanner) number() (lit []byte, integer, ok bool) {
	start := p.i
	p.eat('-')
	switch {
	case p.eat('0'):
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return nil, false, false
	}
	integer = true
	if p.eat('.') {
		integer = false
		if p.digits() == 0 {
			return nil, false, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		integer = false
		p.i++
		if !p.eat('+') {
			p.eat('-')
		}
		if p.digits() == 0 {
			return nil, false, false
		}
	}
	return p.b[start:p.i], integer, true
}

func (p *rowScanner) digits() int {
	b, start := p.b, p.i
	i := start
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	p.i = i
	return i - start
}

func (p *rowScanner) float(store *float64, dst **float64) bool {
	if p.null() {
		*dst = nil
		return true
	}
	lit, _, ok := p.number()
	if !ok {
		return false
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return false
	}
	*store = v
	*dst = store
	return true
}

func (p *rowScanner) int(store *int64, dst **int64) bool {
	if p.null() {
		*dst = nil
		return true
	}
	lit, integer, ok := p.number()
	if !ok || !integer {
		return false
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		return false
	}
	*store = v
	*dst = store
	return true
}

func (p *rowScanner) id(store *flexID, dst **flexID) bool {
	if p.null() {
		*dst = nil
		return true
	}
	var s []byte
	if p.i < len(p.b) && p.b[p.i] == '"' {
		var ok bool
		if s, ok = p.str(); !ok {
			return false
		}
	} else {
		lit, _, ok := p.number()
		if !ok {
			return false
		}
		s = lit
	}
	*store = flexID(s)
	*dst = store
	return true
}

// uints reads an array of unsigned integers into *store (reused) and points *dst at it.
func (p *rowScanner) uints(store *[]uint64, dst *[]uint64) bool {
	if p.null() {
		*dst = nil
		return true
	}
	if !p.eat('[') {
		return false
	}
	out := (*store)[:0]
	if out == nil {
		out = make([]uint64, 0, 32)
	}
	// The list is scanned with the buffer and position in locals (hash ids are most of a
	// trace's bytes; fields of p are loads and stores of memory in WebAssembly), and the
	// digits are accumulated here: strconv.ParseUint would first copy them into a string.
	b, i := p.b, p.i
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	if i < len(b) && b[i] == ']' {
		p.i = i + 1
		*store, *dst = out, out
		return true
	}
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		start := i
		var v uint64
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			d := uint64(b[i] - '0')
			// Out of range, as ParseUint would say; compared with constants, as a division
			// per digit is a real division in WebAssembly.
			if v >= math.MaxUint64/10 && (v > math.MaxUint64/10 || d > math.MaxUint64%10) {
				return false
			}
			v = v*10 + d
			i++
		}
		if n := i - start; n == 0 || (b[start] == '0' && n > 1) {
			return false
		}
		out = append(out, v)
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i < len(b) && b[i] == ',' {
			i++
			continue
		}
		if i < len(b) && b[i] == ']' {
			i++
			break
		}
		return false
	}
	p.i = i
	*store = out
	*dst = out
	return true
}

// skipScalar skips the value of an ignored key when it is a scalar.
func (p *rowScanner) skipScalar() bool {
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.str()
		return ok
	case c == 'n':
		return p.null()
	case c == 't':
		if bytes.HasPrefix(p.b[p.i:], []byte("true")) {
			p.i += 4
			return true
		}
	case c == 'f':
		if bytes.HasPrefix(p.b[p.i:], []byte("false")) {
			p.i += 5
			return true
		}
	case c == '-' || (c >= '0' && c <= '9'):
		_, _, ok := p.number()
		return ok
	}
	return false
}
