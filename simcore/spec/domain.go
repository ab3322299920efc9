package spec

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Domain kinds of a recommendation search field (docs/recommend.md, "Domains").
const (
	DomainChoices = "choices"
	DomainRange   = "range"
)

// Range scales.
const (
	ScaleLinear = "linear"
	ScaleLog    = "log"
)

// Domain is one searchable field of a recommendation: a list of choices, or a numeric range.
// A stepped linear range is expanded into Choices when it is validated, so Kind is then
// DomainChoices; an unstepped range stays continuous.
type Domain struct {
	// Path is the dotted configuration path the value is written to.
	Path string
	// Kind is DomainChoices or DomainRange.
	Kind string
	// Choices are the values (generic YAML tree values: json.Number, string, bool, mappings).
	Choices []any
	// Min, Max and Scale describe a continuous range; Int says the field is an integer
	// (values are rounded to the nearest integer when they are materialised).
	Min, Max float64
	Scale    string
	Int      bool
	// When, when non-nil, makes the field conditional: it exists only in candidates whose
	// value at When.Path is one of When.Values.
	When *Condition
	// Default is true for a domain the schema supplies because the field was omitted.
	Default bool
}

// Condition restricts a domain (or a default) to candidates where Path holds one of Values.
type Condition struct {
	Path   string
	Values []string
}

// lookupSearchField returns the table field (fields.go) of a path a recommendation may give
// a domain, if it is one.
func lookupSearchField(path string) (*field, bool) {
	for _, f := range fields {
		if f.search && f.path == path {
			return f, true
		}
	}
	if rest, ok := strings.CutPrefix(path, "engine.workers."); ok {
		if role, rel, ok := strings.Cut(rest, "."); ok && (role == RoleAggregated || role == RolePrefill || role == RoleDecode) {
			for _, f := range roleFields {
				if f.search && f.path == rel {
					return f, true
				}
			}
		}
	}
	return nil, false
}

// isDomainNode reports whether v is written as a domain ({choices: …} or {range: …}).
func isDomainNode(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, c := m[DomainChoices]
	_, r := m[DomainRange]
	return c || r
}

// decodeDomain validates the domain node v at path for field f (its kind, limits and names).
func decodeDomain(d *decoder, path string, v any, f *field) Domain {
	m := v.(map[string]any)
	dom := Domain{Path: path}
	if len(m) != 1 {
		d.failf(path, "a domain is exactly one of {choices: [...]} or {range: {min, max, step, scale}}, got keys %s", pyList(sortedKeys(m)))
		return dom
	}
	if raw, ok := m[DomainChoices]; ok {
		dom.Kind = DomainChoices
		list, isList := raw.([]any)
		cp := join(path, DomainChoices)
		if !isList {
			d.failf(cp, "must be a non-empty list of values, got %s", describe(raw))
			return dom
		}
		if len(list) == 0 {
			d.failf(cp, "must list at least one value")
			return dom
		}
		seen := map[string]bool{}
		for i, c := range list {
			ep := join(cp, strconv.Itoa(i))
			checkFieldValue(d, ep, c, f)
			if !d.ok() {
				return dom
			}
			key := describe(c)
			if seen[key] {
				d.failf(cp, "choices must be unique; %s appears twice", key)
				return dom
			}
			seen[key] = true
		}
		dom.Choices = list
		return dom
	}
	dom.Kind = DomainRange
	rp := join(path, DomainRange)
	o := d.mapping(rp, m[DomainRange], shape{keys: []string{"min", "max", "step", "scale"}})
	if !d.ok() {
		return dom
	}
	if f.kind == fieldEnum {
		d.failf(rp, "a range needs a numeric field; use {choices: [%s]}", strings.Join(f.enum, ", "))
		return dom
	}
	for _, k := range []string{"min", "max"} {
		if !o.has(k) {
			d.failf(rp, "missing required key %q", k)
			return dom
		}
	}
	bound := func(key string) float64 {
		if f.kind == fieldInt {
			return float64(d.asInt(o.p(key), o.m[key]))
		}
		return d.asFloat(o.p(key), o.m[key])
	}
	dom.Min, dom.Max = bound("min"), bound("max")
	dom.Scale = o.enum("scale", ScaleLinear, ScaleLog)
	dom.Int = f.kind == fieldInt
	if !d.ok() {
		return dom
	}
	if f.positiveRange {
		d.checkLimits(o.p("min"), dom.Min, o.m["min"], []limit{gt(0)})
	}
	d.checkLimits(o.p("min"), dom.Min, o.m["min"], f.lims)
	d.checkLimits(o.p("max"), dom.Max, o.m["max"], f.lims)
	if !d.ok() {
		return dom
	}
	if dom.Min > dom.Max {
		d.failf(o.p("max"), "must be at least min (%s), got %s", describe(o.m["min"]), describe(o.m["max"]))
		return dom
	}
	if dom.Scale == ScaleLog {
		if o.has("step") {
			d.failf(o.p("step"), "a log-scale range takes no step; remove it or use scale: linear")
			return dom
		}
		if dom.Min <= 0 {
			d.failf(o.p("min"), "must be greater than 0 for a log-scale range, got %s", describe(o.m["min"]))
		}
		return dom
	}
	if !o.has("step") {
		if f.kind == fieldInt {
			d.failf(rp, "an integer field's linear range requires a step (for example step: 1)")
		}
		return dom
	}
	var step float64
	if f.kind == fieldInt {
		step = float64(d.asInt(o.p("step"), o.m["step"], gt(0)))
	} else {
		step = d.asFloat(o.p("step"), o.m["step"], gt(0))
	}
	if !d.ok() {
		return dom
	}
	_ = step
	dom.Kind = DomainChoices
	dom.Choices = steppedValues(o.m["min"].(json.Number), o.m["max"].(json.Number), o.m["step"].(json.Number), f.kind == fieldInt)
	if len(dom.Choices) > maxSteppedValues {
		d.failf(o.p("step"), "the range expands to %d values, more than the %d a domain may hold; use a larger step or an unstepped range", len(dom.Choices), maxSteppedValues)
	}
	return dom
}

// maxSteppedValues bounds the values one stepped range may expand to.
const maxSteppedValues = 10000

// steppedValues expands min, min+step, … ≤ max with exact decimal arithmetic, so 0.1 steps
// do not drift (docs/recommend.md, "Domains": inclusive of max when a step lands on it).
func steppedValues(minN, maxN, stepN json.Number, integer bool) []any {
	lo, _ := new(big.Rat).SetString(string(minN))
	hi, _ := new(big.Rat).SetString(string(maxN))
	st, _ := new(big.Rat).SetString(string(stepN))
	var out []any
	for x := new(big.Rat).Set(lo); x.Cmp(hi) <= 0 && len(out) <= maxSteppedValues; x.Add(x, st) {
		if integer {
			out = append(out, json.Number(x.Num().String()))
			continue
		}
		f, _ := x.Float64()
		out = append(out, floatNumber(f))
	}
	return out
}

// checkFieldValue checks one concrete value of a searchable field (a choice).
func checkFieldValue(d *decoder, path string, v any, f *field) {
	switch f.kind {
	case fieldInt:
		d.asInt(path, v, f.lims...)
	case fieldFloat:
		d.asFloat(path, v, f.lims...)
	case fieldBool:
		d.asBool(path, v)
	default:
		d.asEnum(path, v, f.enum...)
	}
}

// DomainValueFloat converts a numeric tree value (json.Number) to float64; NaN otherwise.
func DomainValueFloat(v any) float64 {
	n, ok := v.(json.Number)
	if !ok {
		return math.NaN()
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// NumberValue is the tree value of a materialised continuous-range sample: an integer for
// integer fields, else a float that always reads back as a float.
func NumberValue(x float64, integer bool) any {
	if integer {
		return json.Number(strconv.FormatInt(int64(math.Round(x)), 10))
	}
	return floatNumber(x)
}

// String renders a domain for messages.
func (dm Domain) String() string {
	if dm.Kind == DomainRange {
		return fmt.Sprintf("%s: range [%g, %g] %s", dm.Path, dm.Min, dm.Max, dm.Scale)
	}
	return fmt.Sprintf("%s: %d choices", dm.Path, len(dm.Choices))
}
