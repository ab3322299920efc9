package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Python's json module writes the non-finite floats as the bare words NaN, Infinity and
// -Infinity (SGLang's bench_serving writes `"request_rate": Infinity` for an unlimited
// rate), which are not JSON. quoteNonFinite turns each such word outside a string into a
// string ("NaN", "Infinity", "-Infinity"), so the JSON decoder reads the file and the field
// readers decide what the word means there: Infinity is an unlimited rate where a rate is
// read, and every other number must be finite.
func quoteNonFinite(data []byte) []byte {
	if !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
		return data
	}
	out := make([]byte, 0, len(data)+16)
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			out = append(out, c)
			continue
		}
		if w := nonFiniteWord(data[i:]); w != "" {
			out = append(out, '"')
			out = append(out, w...)
			out = append(out, '"')
			i += len(w) - 1
			continue
		}
		out = append(out, c)
	}
	return out
}

// nonFiniteWord is the Python non-finite word b starts with, or "".
func nonFiniteWord(b []byte) string {
	for _, w := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(b, []byte(w)) {
			return w
		}
	}
	return ""
}

// errNotObject is a JSON value that is not an object where one is required.
var errNotObject = errors.New("not a JSON object")

// decodeObjects reads one or more JSON objects written one after another (a file of one run,
// or of runs appended line by line), at most MaxRuns of them.
func decodeObjects(data []byte) ([]map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(quoteNonFinite(data)))
	dec.UseNumber()
	var out []map[string]any
	for {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, errNotObject
		}
		if len(out) == MaxRuns {
			return nil, errors.New("more than " + itoa(MaxRuns) + " benchmark runs in one file; split it")
		}
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, errors.New("no JSON object")
	}
	return out, nil
}
