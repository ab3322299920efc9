package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v2"
)

// parseYAML parses one YAML document into the generic tree the decoder walks:
// map[string]any, []any, json.Number, string, bool and nil.
//
// We do not go through sigs.k8s.io/yaml.YAMLToJSON: its JSON step prints the float 2.0 as
// `2` (so a strict integer check could no longer tell 2.0 from 2) and fails on .inf/.nan
// without saying where. Instead the YAML 1.1 loader it wraps (go.yaml.in/yaml/v2) is used
// directly and scalars are converted here: integers become json.Number in decimal digits,
// floats become json.Number that always contain '.', 'e', "Inf" or "NaN", so the lexical
// form still tells the two apart.
func parseYAML(text []byte) (tree any, err error) {
	defer func() {
		// The YAML library reports errors through panics internally; a stray one must never
		// escape as a crash.
		if r := recover(); r != nil {
			tree, err = nil, fmt.Errorf("%v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(text))
	dec.SetStrict(true) // duplicate mapping keys are an error, not "last one wins"
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil // empty document
		}
		return nil, err
	}
	var extra any
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, err
		}
		return nil, errors.New("expected a single YAML document, found more than one")
	}
	return convertYAML(v)
}

// convertYAML turns the YAML library's values into the generic tree.
func convertYAML(v any) (any, error) {
	switch x := v.(type) {
	case nil, string, bool:
		return x, nil
	case int:
		return json.Number(strconv.Itoa(x)), nil
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), nil
	case uint64:
		return json.Number(strconv.FormatUint(x, 10)), nil
	case float64:
		return floatNumber(x), nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := convertYAML(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		// Sorted so that a key collision is reported the same way every time.
		keys := make([]string, 0, len(x))
		byName := make(map[string]any, len(x))
		for k, e := range x {
			ks, err := keyString(k)
			if err != nil {
				return nil, err
			}
			if _, dup := byName[ks]; dup {
				return nil, fmt.Errorf("mapping key %q appears twice", ks)
			}
			byName[ks] = e
			keys = append(keys, ks)
		}
		sort.Strings(keys)
		for _, k := range keys {
			c, err := convertYAML(byName[k])
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	default:
		return nil, fmt.Errorf("unsupported YAML value of type %T", v)
	}
}

// keyString renders a scalar mapping key as the string the schema compares against.
func keyString(k any) (string, error) {
	switch x := k.(type) {
	case string:
		return x, nil
	case nil:
		return "null", nil
	case bool, int, int64, uint64:
		return fmt.Sprint(x), nil
	case float64:
		return string(floatNumber(x)), nil
	default:
		return "", fmt.Errorf("unsupported mapping key of type %T", k)
	}
}

// floatNumber formats a YAML float so that it never looks like an integer.
func floatNumber(f float64) json.Number {
	switch {
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	case math.IsNaN(f):
		return "NaN"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

// isIntLiteral reports whether a json.Number came from a YAML integer.
func isIntLiteral(n json.Number) bool {
	s := string(n)
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// describe renders a tree value for an error message, the way the user wrote it in YAML.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case json.Number:
		switch x {
		case "+Inf":
			return ".inf"
		case "-Inf":
			return "-.inf"
		case "NaN":
			return ".nan"
		}
		return string(x)
	case string:
		if len(x) > 60 {
			x = x[:60] + "…"
		}
		return "string " + strconv.Quote(x)
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	default:
		return fmt.Sprintf("%v", x)
	}
}
