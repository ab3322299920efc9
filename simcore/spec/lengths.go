package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// Length distributions of traffic.source.synthetic.lengths (docs/config.md, "Request length
// draws"): the default gives every request the configured lengths.
const (
	LengthsConstant = "constant"
	LengthsUniform  = "uniform"
	LengthsNormal   = "normal"
)

// Lengths is how a synthetic source varies each request's prompt and output length around
// the configured input_tokens and output_tokens L, the way serving benchmark clients draw
// them (docs/config.md, "Request length draws"). The zero value and Distribution constant are
// constant lengths. It is also the `lengths` of a calibration profile's scope, where nil
// stands for constant.
type Lengths struct {
	// Distribution is LengthsConstant, LengthsUniform or LengthsNormal; a decoded constant
	// draw is the zero value.
	Distribution string `json:"distribution"`
	// MinRatio and MaxRatio (uniform) bound every length to integers in
	// [max(⌊MinRatio·L⌋, 1), ⌊MaxRatio·L⌋], both prompt and output.
	MinRatio float64 `json:"min_ratio"`
	MaxRatio float64 `json:"max_ratio"`
	// InputStddevRatio and OutputStddevRatio (normal) are the standard deviations of the
	// prompt and output lengths as fractions of their L.
	InputStddevRatio  float64 `json:"input_stddev_ratio"`
	OutputStddevRatio float64 `json:"output_stddev_ratio"`
}

// MarshalJSON writes the distribution and only the keys it accepts (lengthsAllowed), so the
// written form reads back through the configuration's decoder.
func (l Lengths) MarshalJSON() ([]byte, error) {
	return json.Marshal(l.Tree())
}

// UnmarshalJSON reads the written form with the configuration's decoder and limits.
func (l *Lengths) UnmarshalJSON(data []byte) error {
	var tree any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	d := &decoder{}
	*l = decodeLengths(d, "lengths", tree)
	if !d.ok() {
		return d.err
	}
	return nil
}

// Validate checks a draw built outside the configuration (a measurement's) with the
// configuration's limits; errors name path.
func (l Lengths) Validate(path string) *Error {
	if l.Constant() {
		return nil
	}
	d := &decoder{}
	decodeLengths(d, path, l.Tree())
	return d.err
}

// MeanFactor is the mean of the draw as a multiple of L, ignoring the floor of one token and
// the integer rounding: (min_ratio + max_ratio)/2 for uniform, 1 otherwise (the normal is
// truncated symmetrically).
func (l *Lengths) MeanFactor() float64 {
	if l.Distribution == LengthsUniform && !l.Constant() {
		return (l.MinRatio + l.MaxRatio) / 2
	}
	return 1
}

// Tree is the draw as a configuration mapping (traffic.source.synthetic.lengths):
// distribution and the keys it accepts.
func (l *Lengths) Tree() map[string]any {
	m := map[string]any{"distribution": l.Distribution}
	values := map[string]float64{"min_ratio": l.MinRatio, "max_ratio": l.MaxRatio, "input_stddev_ratio": l.InputStddevRatio, "output_stddev_ratio": l.OutputStddevRatio}
	for _, k := range lengthsAllowed[l.Distribution] {
		m[k] = floatNumber(values[k])
	}
	return m
}

// lengthsAllowed are the keys each distribution accepts besides distribution itself.
var lengthsAllowed = map[string][]string{
	LengthsConstant: nil,
	LengthsUniform:  {"min_ratio", "max_ratio"},
	LengthsNormal:   {"input_stddev_ratio", "output_stddev_ratio"},
}

var lengthsKeys = []string{"distribution", "min_ratio", "max_ratio", "input_stddev_ratio", "output_stddev_ratio"}

// Constant reports whether every request gets exactly its configured lengths: the constant
// distribution, a uniform range of one point (min_ratio = max_ratio = 1) or a normal of no
// spread. A nil draw (a profile scope's) is constant.
func (l *Lengths) Constant() bool {
	if l == nil {
		return true
	}
	switch l.Distribution {
	case LengthsUniform:
		return l.MinRatio == 1 && l.MaxRatio == 1
	case LengthsNormal:
		return l.InputStddevRatio == 0 && l.OutputStddevRatio == 0
	}
	return true
}

// Canonical is the draw in its one written form: nil for constant lengths (so a profile scope
// or an output omits it), else a copy.
func (l Lengths) Canonical() *Lengths {
	if l.Constant() {
		return nil
	}
	return &l
}

// MaxFactor bounds one drawn length as a multiple of its L: max_ratio for uniform, 2 for
// normal (its draw is truncated to [1, 2L]), 1 for constant.
func (l *Lengths) MaxFactor() float64 {
	switch {
	case l.Constant():
		return 1
	case l.Distribution == LengthsUniform:
		return l.MaxRatio
	}
	return 2
}

// String describes the draw for messages and scope matching (nil is "constant"):
// "constant", "uniform [0.8, 1]·L", "normal σ 0.1·ISL, 0·OSL".
func (l *Lengths) String() string {
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	switch {
	case l.Constant():
		return LengthsConstant
	case l.Distribution == LengthsUniform:
		return fmt.Sprintf("uniform [%s, %s]·L", g(l.MinRatio), g(l.MaxRatio))
	}
	return fmt.Sprintf("normal σ %s·ISL, %s·OSL", g(l.InputStddevRatio), g(l.OutputStddevRatio))
}

// decodeLengths decodes a lengths mapping at path (the synthetic source's, a profile scope's
// or calibrate's --lengths); absent keys take the table's defaults.
func decodeLengths(d *decoder, path string, v any) Lengths {
	o := d.mapping(path, v, shape{keys: lengthsKeys})
	var l Lengths
	l.Distribution = o.enumField(&fieldLengthsDistribution)
	if !d.ok() {
		return l
	}
	if rejected := o.setOutside(lengthsKeys[1:], lengthsAllowed[l.Distribution]); len(rejected) > 0 {
		allowed := "none"
		if a := lengthsAllowed[l.Distribution]; len(a) > 0 {
			allowed = pyList(a)
		}
		d.failf(path, "distribution '%s' does not accept %s; allowed fields: %s", l.Distribution, pyList(rejected), allowed)
		return l
	}
	switch l.Distribution {
	case LengthsUniform:
		l.MinRatio = o.floatField(&fieldLengthsMinRatio)
		l.MaxRatio = o.floatField(&fieldLengthsMaxRatio)
	case LengthsNormal:
		l.InputStddevRatio = o.floatField(&fieldLengthsInputStddevRatio)
		l.OutputStddevRatio = o.floatField(&fieldLengthsOutputStddevRatio)
	}
	return l
}

// checkLengthsFit refuses a draw whose longest length exceeds MaxRequestTokens for the
// configured L (input and output): the bound every request length meets.
func checkLengthsFit(d *decoder, path string, l *Lengths, isl, osl int) {
	f := l.MaxFactor()
	if float64(max(isl, osl))*f > MaxRequestTokens {
		d.failf(path, "draws lengths up to %g·%d tokens, more than %d (the tokens of one request); lower the ratio or the length",
			f, max(isl, osl), MaxRequestTokens)
	}
}

// ParseLengths reads a lengths mapping written as YAML (flow or block), as calibrate's
// --lengths flag gives it; errors name flag as the path.
func ParseLengths(flag string, text []byte) (Lengths, error) {
	tree, err := parseYAML(text)
	if err != nil {
		return Lengths{}, &Error{Path: flag, Msg: "not a YAML mapping: " + yamlErrText(err) + "; write for example {distribution: uniform, min_ratio: 0.8}"}
	}
	d := &decoder{}
	l := decodeLengths(d, flag, tree)
	if !d.ok() {
		return Lengths{}, d.err
	}
	return l, nil
}
