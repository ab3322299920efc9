package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"aisimulate/simcore/levenshtein"
)

// decoder walks the generic tree and remembers the first error. Every helper keeps going
// with zero values after an error, so callers can decode a whole section and check once;
// the order of the calls therefore defines which problem is reported first.
type decoder struct {
	err *Error
}

func (d *decoder) failf(path, format string, a ...any) {
	if d.err == nil {
		d.err = &Error{Path: path, Msg: fmt.Sprintf(format, a...)}
	}
}

func (d *decoder) ok() bool { return d.err == nil }

// join appends key to a dotted path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// object is one schema mapping being decoded.
type object struct {
	d    *decoder
	path string
	m    map[string]any
}

// shape lists the keys a mapping accepts and, for keys that AISimulate knows but this
// simulator does not implement, why they are refused (they are accepted when null).
type shape struct {
	keys        []string
	unsupported map[string]string
}

// mapping checks that v is a mapping whose keys all belong to s.
func (d *decoder) mapping(path string, v any, s shape) *object {
	m, isMap := v.(map[string]any)
	if !isMap {
		d.failf(path, "must be a mapping, got %s", describe(v))
		return &object{d: d, path: path, m: map[string]any{}}
	}
	for _, k := range sortedKeys(m) {
		if contains(s.keys, k) {
			continue
		}
		if why, known := s.unsupported[k]; known {
			if m[k] != nil {
				d.failf(join(path, k), "%s; remove it", why)
				break
			}
			continue
		}
		d.failf(path, "%s", unknownKeyMsg(k, s.keys))
		break
	}
	return &object{d: d, path: path, m: m}
}

func unknownKeyMsg(k string, allowed []string) string {
	sorted := append([]string(nil), allowed...)
	sort.Strings(sorted)
	msg := fmt.Sprintf("unknown key %q; allowed keys: %s", k, strings.Join(sorted, ", "))
	if s := suggest(k, sorted); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return msg
}

// suggest returns the allowed key closest to k when it is plausibly a typo.
func suggest(k string, allowed []string) string {
	best, bestD := "", 3
	for _, a := range allowed {
		if d := levenshtein.Distance(strings.ToLower(k), a); d < bestD {
			best, bestD = a, d
		}
	}
	return best
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// p is the dotted path of a key of this mapping.
func (o *object) p(key string) string { return join(o.path, key) }

// has reports whether the key is present (even with a null value).
func (o *object) has(key string) bool {
	_, ok := o.m[key]
	return ok
}

// set reports whether the key is present with a non-null value.
func (o *object) set(key string) bool { return o.m[key] != nil }

// presentKeys returns the keys of this mapping that appear in list with a non-null value,
// in list order (an explicit null counts as unset).
func (o *object) presentKeys(list ...string) []string {
	var out []string
	for _, k := range list {
		if o.set(k) {
			out = append(out, k)
		}
	}
	return out
}

// setOutside returns the keys of list set (non-null) in this mapping that allowed does not
// hold, in list order: the fields a discriminated mapping's type does not take.
func (o *object) setOutside(list, allowed []string) []string {
	var out []string
	for _, k := range list {
		if o.set(k) && !contains(allowed, k) {
			out = append(out, k)
		}
	}
	return out
}

// limit is one numeric bound; why, when set, says where the bound comes from.
type limit struct {
	op  string // ">", ">=", "<", "<="
	v   float64
	why string
}

func gt(v float64) limit { return limit{op: ">", v: v} }
func ge(v float64) limit { return limit{op: ">=", v: v} }
func lt(v float64) limit { return limit{op: "<", v: v} }
func le(v float64) limit { return limit{op: "<=", v: v} }

// MaxRequestTokens bounds the tokens of one request a configuration may ask for (input or
// output): 2^30, a thousand times the longest context of any model in the catalog, so it
// refuses no real request, while the token positions of a request (input plus output, and
// their sums over a session) stay far from integer overflow (docs/robustness.md, "Ceilings").
const MaxRequestTokens = 1 << 30

// MaxMilliseconds bounds every time a configuration or a trace gives (in milliseconds, or
// the same time in seconds): 1e12 ms, about 31.7 years of simulated time. The simulated clock
// adds such times up over millions of passes and requests; far larger ones (1.7e308) overflow
// it to infinity, which no output can hold (docs/robustness.md, "Ceilings").
const MaxMilliseconds = 1e12

// MinRate bounds every rate from below (requests or sessions per second, bandwidth in GB/s):
// one per 1e9 s, so the time between two arrivals, or a transfer, stays within
// MaxMilliseconds.
const MinRate = 1e-9

// Time and rate bounds with their reasons.
var (
	msLimit      = limit{op: "<=", v: MaxMilliseconds, why: "about 31.7 years; longer times overflow the simulated clock"}
	secondsLimit = limit{op: "<=", v: MaxMilliseconds / 1000, why: "about 31.7 years; longer times overflow the simulated clock"}
	rateLimit    = limit{op: ">=", v: MinRate, why: "slower rates put arrivals past the simulated clock's 31.7 years"}
)

// tokenLimit is the MaxRequestTokens bound of a per-request token count.
var tokenLimit = limit{op: "<=", v: MaxRequestTokens, why: "tokens of one request; no model's context comes near it"}

func (l limit) holds(x float64) bool {
	switch l.op {
	case ">":
		return x > l.v
	case ">=":
		return x >= l.v
	case "<":
		return x < l.v
	default:
		return x <= l.v
	}
}

func (l limit) String() string {
	word := map[string]string{
		">": "greater than", ">=": "at least", "<": "less than", "<=": "at most",
	}[l.op]
	f := byte('g')
	if l.v == math.Trunc(l.v) && math.Abs(l.v) < 1e18 {
		f = 'f'
	}
	text := "must be " + word + " " + strconv.FormatFloat(l.v, f, -1, 64)
	if l.why != "" {
		text += " (" + l.why + ")"
	}
	return text
}

func (d *decoder) checkLimits(path string, x float64, raw any, lims []limit) {
	for _, l := range lims {
		if !l.holds(x) {
			d.failf(path, "%s, got %s", l, describe(raw))
			return
		}
	}
}

// asInt decodes a strict integer.
func (d *decoder) asInt(path string, v any, lims ...limit) int64 {
	n, isNum := v.(json.Number)
	if !isNum || !isIntLiteral(n) {
		d.failf(path, "must be an integer, got %s", describe(v))
		return 0
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		d.failf(path, "must be an integer that fits in 64 bits, got %s", describe(v))
		return 0
	}
	for _, l := range lims {
		// Compare integers exactly: float64 cannot tell 2^53 from 2^53+1.
		ok := l.holds(float64(i))
		if l.v == math.Trunc(l.v) && math.Abs(l.v) < 1e18 {
			ok = limit{op: l.op}.holds(float64(cmpInt(i, int64(l.v))))
		}
		if !ok {
			d.failf(path, "%s, got %s", l, describe(v))
			return i
		}
	}
	return i
}

// asFloat decodes a finite number; integers are accepted.
func (d *decoder) asFloat(path string, v any, lims ...limit) float64 {
	n, isNum := v.(json.Number)
	if !isNum {
		d.failf(path, "must be a number, got %s", describe(v))
		return 0
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil && !math.IsInf(f, 0) {
		d.failf(path, "must be a number, got %s", describe(v))
		return 0
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		d.failf(path, "must be a finite number, got %s", describe(v))
		return 0
	}
	d.checkLimits(path, f, v, lims)
	return f
}

func (d *decoder) asBool(path string, v any) bool {
	b, isBool := v.(bool)
	if !isBool {
		d.failf(path, "must be a boolean (true or false), got %s", describe(v))
	}
	return b
}

// asString decodes a non-empty string.
func (d *decoder) asString(path string, v any) string {
	s, isStr := v.(string)
	if !isStr {
		d.failf(path, "must be a string, got %s", describe(v))
		return ""
	}
	if strings.TrimSpace(s) == "" {
		d.failf(path, "must be a non-empty string")
		return ""
	}
	return s
}

func (d *decoder) asEnum(path string, v any, allowed ...string) string {
	s, isStr := v.(string)
	if !isStr || !contains(allowed, s) {
		d.failf(path, "must be one of %s; got %s", strings.Join(allowed, ", "), describe(v))
		return allowed[0]
	}
	return s
}

// int decodes an optional non-null integer with a default.
func (o *object) int(key string, def int64, lims ...limit) int64 {
	v, ok := o.m[key]
	if !ok {
		return def
	}
	return o.d.asInt(o.p(key), v, lims...)
}

// optInt decodes an integer that may be absent or null (nil).
func (o *object) optInt(key string, lims ...limit) *int {
	v := o.m[key]
	if v == nil {
		return nil
	}
	i := int(o.d.asInt(o.p(key), v, lims...))
	return &i
}

func (o *object) float(key string, def float64, lims ...limit) float64 {
	v, ok := o.m[key]
	if !ok {
		return def
	}
	return o.d.asFloat(o.p(key), v, lims...)
}

func (o *object) optFloat(key string, lims ...limit) *float64 {
	v := o.m[key]
	if v == nil {
		return nil
	}
	f := o.d.asFloat(o.p(key), v, lims...)
	return &f
}

func (o *object) bool(key string, def bool) bool {
	v, ok := o.m[key]
	if !ok {
		return def
	}
	return o.d.asBool(o.p(key), v)
}

// str decodes a required non-empty string.
func (o *object) str(key string) string {
	v, ok := o.m[key]
	if !ok {
		o.d.failf(o.path, "missing required key %q", key)
		return ""
	}
	return o.d.asString(o.p(key), v)
}

// enum decodes an optional enumeration whose first allowed value is the default.
func (o *object) enum(key string, allowed ...string) string {
	v, ok := o.m[key]
	if !ok {
		return allowed[0]
	}
	return o.d.asEnum(o.p(key), v, allowed...)
}

// child returns the nested mapping under key; absent keys give an empty mapping.
func (o *object) child(key string, s shape) *object {
	v, ok := o.m[key]
	if !ok {
		return &object{d: o.d, path: o.p(key), m: map[string]any{}}
	}
	return o.d.mapping(o.p(key), v, s)
}

// pyList renders names like Python's repr of a list of strings: ['a', 'b'].
func pyList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// cmpInt returns -1, 0 or 1 as a is less than, equal to or greater than b.
func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
