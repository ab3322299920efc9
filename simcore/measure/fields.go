package measure

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// object reads the fields of one JSON object of a measurement file, naming each field by its
// dotted path in errors.
type object struct {
	file, path string
	m          map[string]any
}

func itoa(n int) string { return strconv.Itoa(n) }

// key is the dotted path of field k (after "line N: " in a line-oriented file).
func (o object) key(k string) string {
	switch {
	case o.path == "":
		return k
	case strings.HasSuffix(o.path, ":"):
		return o.path + " " + k
	}
	return o.path + "." + k
}

// nanoseconds is the whole number of nanoseconds at k (a Unix time).
func (o object) nanoseconds(k string) (int64, error) {
	n, ok := o.m[k].(json.Number)
	if !ok {
		return 0, o.fail(k, "must be a whole number of nanoseconds")
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil || v < 0 {
		return 0, o.fail(k, "%s is not a whole, non-negative number of nanoseconds", n)
	}
	return v, nil
}

func (o object) fail(k, format string, args ...any) error {
	return &Error{File: o.file, Field: o.key(k), Msg: fmt.Sprintf(format, args...)}
}

// has reports whether k is present and not null.
func (o object) has(k string) bool { return o.m[k] != nil }

// child is the object at k; ok is false when k is absent or null.
func (o object) child(k string) (object, bool, error) {
	v := o.m[k]
	if v == nil {
		return object{}, false, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return object{}, false, o.fail(k, "must be a JSON object")
	}
	return object{file: o.file, path: o.key(k), m: m}, true, nil
}

// str is the string at k ("" when absent or null).
func (o object) str(k string) (string, error) {
	v := o.m[k]
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", o.fail(k, "must be a string")
	}
	return s, nil
}

// number is the number at k; ok is false when k is absent or null. Infinity (a Python
// non-finite word, quoteNonFinite) is returned as +Inf only when allowInf; NaN and any
// other non-number is an error.
func (o object) number(k string, allowInf bool) (v float64, ok bool, err error) {
	switch x := o.m[k].(type) {
	case nil:
		return 0, false, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return 0, false, o.fail(k, "%s is not a finite number", x)
		}
		return f, true, nil
	case string:
		if allowInf && (x == "Infinity" || strings.EqualFold(x, "inf")) {
			return math.Inf(1), true, nil
		}
		return 0, false, o.fail(k, "%q is not a finite number", x)
	}
	return 0, false, o.fail(k, "must be a number")
}

// positive is the required number at k, finite and > 0.
func (o object) positive(k string) (float64, error) {
	v, ok, err := o.number(k, false)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, o.fail(k, "missing; the file does not record it")
	}
	if v <= 0 {
		return 0, o.fail(k, "must be > 0, got %g", v)
	}
	return v, nil
}

// optPositive is positive for an optional field: 0 when absent.
func (o object) optPositive(k string) (float64, error) {
	if !o.has(k) {
		return 0, nil
	}
	return o.positive(k)
}

// count is the required number at k, a whole number ≥ 1.
func (o object) count(k string) (int, error) {
	v, err := o.positive(k)
	if err != nil {
		return 0, err
	}
	if v != math.Trunc(v) || v > 1<<40 {
		return 0, o.fail(k, "must be a whole number, got %g", v)
	}
	return int(v), nil
}

// meanLength is a mean token count rounded to a whole token, ≥ 1 (a mean of 0.4 tokens is
// one token).
func meanLength(v float64) int { return max(int(math.Round(v)), 1) }
