package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestFloatExamples(t *testing.T) {
	point1, point2 := 0.1, 0.2
	point3 := point1 + point2
	// Every example of docs/semantics/outputs.md §2.1, plus boundaries of the positional range.
	cases := []struct {
		v    float64
		want string
	}{
		{0, "0.0"}, {1, "1.0"}, {15, "15.0"}, {0.015, "0.015"}, {0.0001, "0.0001"},
		{1e15, "1000000000000000.0"}, {point3, "0.30000000000000004"}, {400, "400.0"},
		{1e-05, "1e-05"}, {2.5e-05, "2.5e-05"}, {1.43495e-07, "1.43495e-07"},
		{4.166666666666667e-06, "4.166666666666667e-06"}, {1e16, "1e+16"}, {1.5e16, "1.5e+16"},
		{1.2345678901234568e+17, "1.2345678901234568e+17"}, {1e22, "1e+22"},
		{math.Copysign(0, -1), "0.0"}, {-1.5, "-1.5"}, {-2.5e-05, "-2.5e-05"},
		{123456789012345.6, "123456789012345.6"}, {0.00012345, "0.00012345"},
		{9999999999999998, "9999999999999998.0"}, {1e100, "1e+100"}, {5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {12800, "12800.0"},
		{333.3333333333333, "333.3333333333333"}, {0.4330127018922193, "0.4330127018922193"},
	}
	for _, c := range cases {
		got, err := Compact(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("Compact(%v) = %q, %v; want %q", c.v, got, err, c.want)
		}
	}
}

func TestIntegers(t *testing.T) {
	cases := []struct {
		v    any
		want string
	}{
		{0, "0"}, {6, "6"}, {-17, "-17"}, {int64(math.MinInt64), "-9223372036854775808"},
		{uint64(math.MaxUint64), "18446744073709551615"}, {int32(-3), "-3"}, {uint32(7), "7"},
		{[]int{1, -2, 3}, "[1,-2,3]"},
	}
	for _, c := range cases {
		got, err := Compact(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("Compact(%#v) = %q, %v; want %q", c.v, got, err, c.want)
		}
	}
}

func TestNonFiniteIsError(t *testing.T) {
	for _, v := range []any{math.NaN(), math.Inf(1), math.Inf(-1), []float64{1, math.NaN()},
		map[string]any{"a": []any{math.Inf(1)}}} {
		if _, err := Compact(v); !errors.Is(err, ErrNonFinite) {
			t.Errorf("Compact(%v) error = %v, want ErrNonFinite", v, err)
		}
		if _, err := Pretty(v); !errors.Is(err, ErrNonFinite) {
			t.Errorf("Pretty(%v) error = %v, want ErrNonFinite", v, err)
		}
	}
	if _, err := AppendFloat(nil, math.NaN()); err != ErrNonFinite {
		t.Errorf("AppendFloat(NaN) error = %v", err)
	}
}

func TestUnsupportedType(t *testing.T) {
	_, err := Compact(map[string]any{"x": float32(1)})
	if err == nil || !strings.Contains(err.Error(), "float32") {
		t.Fatalf("error = %v, want unsupported float32", err)
	}
}

func TestStrings(t *testing.T) {
	cases := []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{`"\`, `"\"\\"`},
		{"\b\f\n\r\t", `"\b\f\n\r\t"`},
		{"\x00\x01\x1f", `"\u0000\u0001\u001f"`},
		{"/", `"/"`},
		{"\x7f", `"\u007f"`}, // Python ensure_ascii escapes everything above U+007E
		{"é", `"\u00e9"`},
		{"€", `"\u20ac"`},
		{"😀", `"\ud83d\ude00"`},
		{"\uffff", `"\uffff"`},
		{"a\xffb", `"a\ufffdb"`},
	}
	for _, c := range cases {
		got, err := Compact(c.in)
		if err != nil || string(got) != c.want {
			t.Errorf("Compact(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestPrettyExample(t *testing.T) {
	// docs/semantics/outputs.md §2.3
	v := map[string]any{"b": "é", "a": []any{1, map[string]any{}}}
	got, err := Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"a\": [\n    1,\n    {}\n  ],\n  \"b\": \"\\u00e9\"\n}\n"
	if string(got) != want {
		t.Fatalf("Pretty =\n%s\nwant\n%s", got, want)
	}
}

func TestCompactExample(t *testing.T) {
	// docs/semantics/outputs.md §2.2
	got, err := Compact(map[string]any{"b": []int{1, 2}, "a": 1})
	if err != nil || string(got) != `{"a":1,"b":[1,2]}` {
		t.Fatalf("Compact = %s, %v", got, err)
	}
}

func TestPrettyNestedAndEmpty(t *testing.T) {
	v := map[string]any{
		"z":     []map[string]any{{"k": nil, "j": true}},
		"empty": []any{},
		"e2":    []string{},
		"f":     []float64{1, 0.5},
		"s":     []string{"x"},
		"m":     map[string]any{"é": false, "e": 2},
	}
	got, err := Pretty(v)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "e2": [],
  "empty": [],
  "f": [
    1.0,
    0.5
  ],
  "m": {
    "e": 2,
    "\u00e9": false
  },
  "s": [
    "x"
  ],
  "z": [
    {
      "j": true,
      "k": null
    }
  ]
}
`
	if string(got) != want {
		t.Fatalf("Pretty =\n%s\nwant\n%s", got, want)
	}
	c, _ := Compact(v)
	wantC := `{"e2":[],"empty":[],"f":[1.0,0.5],"m":{"e":2,"\u00e9":false},"s":["x"],"z":[{"j":true,"k":null}]}`
	if string(c) != wantC {
		t.Fatalf("Compact = %s", c)
	}
}

func TestKeysSortedByCodePoint(t *testing.T) {
	// U+FF01 (3 UTF-8 bytes) sorts before U+1F600 (4 bytes); "B" < "a" < "é".
	got, _ := Compact(map[string]any{"😀": 1, "！": 2, "a": 3, "B": 4, "é": 5})
	want := `{"B":4,"a":3,"\u00e9":5,"\uff01":2,"\ud83d\ude00":1}`
	if string(got) != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

// decodeCanonical parses JSON keeping the int/float distinction of the canonical layout:
// a number literal without '.', 'e' or 'E' is an int64, any other a float64.
func decodeCanonical(t testing.TB, b []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false
	}
	if d.More() {
		return nil, false
	}
	return convertNumbers(v)
}

func convertNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, true
			}
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsInf(f, 0) {
			return nil, false
		}
		if f == 0 {
			f = 0 // drop the sign of zero: the encoder writes -0 as 0.0
		}
		return f, true
	case []any:
		for i := range x {
			var ok bool
			if x[i], ok = convertNumbers(x[i]); !ok {
				return nil, false
			}
		}
	case map[string]any:
		for k := range x {
			c, ok := convertNumbers(x[k])
			if !ok {
				return nil, false
			}
			x[k] = c
		}
	}
	return v, true
}

func equalValues(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equalValues(xv, yv) {
				return false
			}
		}
		return true
	}
	return a == b
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzCompact parses arbitrary JSON with encoding/json, encodes it canonically and checks
// that parsing the output gives back the same values, that the output is ASCII, that
// floats keep a '.' or exponent, and that encoding is idempotent.
func FuzzCompact(f *testing.F) {
	f.Add([]byte(`{"b":[1,2.5,-0.0,1e300],"a":"\u00e9\ud83d\ude00","c":null,"d":true}`))
	f.Add([]byte(`[0.1, 1e-7, 123456789012345678, "\u007f\n"]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := decodeCanonical(t, data)
		if !ok {
			return
		}
		out, err := Compact(v)
		if err != nil {
			t.Fatalf("Compact: %v", err)
		}
		if !isASCII(out) {
			t.Fatalf("non-ASCII output %q", out)
		}
		back, ok := decodeCanonical(t, out)
		if !ok {
			t.Fatalf("output does not parse: %s", out)
		}
		w, _ := decodeCanonical(t, data)
		if !equalValues(w, back) {
			t.Fatalf("round trip changed value:\nin  %s\nout %s", data, out)
		}
		again, _ := Compact(back)
		if !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %s vs %s", out, again)
		}
		p, err := Pretty(v)
		if err != nil {
			t.Fatal(err)
		}
		pv, ok := decodeCanonical(t, p)
		if !ok || !equalValues(pv, back) {
			t.Fatalf("pretty output differs: %s", p)
		}
		checkPrettyCompact(t, out, p)
	})
}

// checkPrettyCompact checks that AppendPrettyCompact lays out compact exactly as Pretty
// did (pretty), with and without a line prefix, appending to existing bytes.
func checkPrettyCompact(t *testing.T, compact, pretty []byte) {
	t.Helper()
	want := bytes.TrimSuffix(pretty, []byte("\n"))
	if got := AppendPrettyCompact(nil, compact, ""); !bytes.Equal(got, want) {
		t.Fatalf("AppendPrettyCompact(%s)\n got %s\nwant %s", compact, got, want)
	}
	want = append([]byte("x"), bytes.ReplaceAll(want, []byte("\n"), []byte("\n    "))...)
	if got := AppendPrettyCompact([]byte("x"), compact, "    "); !bytes.Equal(got, want) {
		t.Fatalf("AppendPrettyCompact(%s) with a prefix\n got %s\nwant %s", compact, got, want)
	}
}

// The pretty layout of compact bytes is Pretty's, for strings with quotes and backslashes
// on every side of an 8-byte boundary (the scans read 8 bytes at a time), numbers of every
// length, nesting and empty containers.
func TestAppendPrettyCompact(t *testing.T) {
	var values []any
	for n := 0; n < 20; n++ {
		for _, c := range []string{`"`, `\`, "\n", ",", "}", "]", ":", "a"} {
			s := strings.Repeat("k", n) + c + strings.Repeat("v", 20-n)
			values = append(values, map[string]any{s: s, "n": []any{n, float64(n) / 7, 1e300, -0.5, []any{}, map[string]any{}}}, s)
		}
		values = append(values, []any{strings.Repeat("9", n), int64(1) << n * 12345, map[string]any{"a": map[string]any{"b": []any{nil, true, false}}}})
	}
	values = append(values, 0, "", 1.5, nil, []any{}, map[string]any{})
	for _, v := range values {
		c, err := Compact(v)
		if err != nil {
			t.Fatal(err)
		}
		p, err := Pretty(v)
		if err != nil {
			t.Fatal(err)
		}
		checkPrettyCompact(t, c, p)
	}
}

// FuzzFloat checks every finite float64 round-trips exactly and is written as a float.
func FuzzFloat(f *testing.F) {
	for _, v := range []float64{0, 1, 0.1, 1e15, 1e16, 1e-4, 1e-5, 5e-324, math.MaxFloat64, -3.25} {
		f.Add(math.Float64bits(v))
	}
	f.Fuzz(func(t *testing.T, bits uint64) {
		v := math.Float64frombits(bits)
		out, err := AppendFloat(nil, v)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			if err != ErrNonFinite {
				t.Fatalf("non-finite %v gave %q, %v", v, out, err)
			}
			return
		}
		s := string(out)
		if !strings.ContainsAny(s, ".e") {
			t.Fatalf("%v written as %q without '.' or exponent", v, s)
		}
		back, err := strconv.ParseFloat(s, 64)
		if err != nil || (back != v && !(v == 0 && back == 0)) {
			t.Fatalf("%v written as %q parses back as %v (%v)", v, s, back, err)
		}
		if v == 0 && s != "0.0" {
			t.Fatalf("zero written as %q", s)
		}
		if want := floatRule(v); s != want {
			t.Fatalf("%v (bits %#x) written as %q, the rule gives %q", v, bits, s, want)
		}
	})
}

// floatRule is docs/semantics/outputs.md §2.1 written plainly: the shortest digits and the
// exponent from strconv's 'e' format, laid out by the rule with strings.
func floatRule(v float64) string {
	if v == 0 {
		return "0.0"
	}
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	mant, expText, _ := strings.Cut(strconv.FormatFloat(v, 'e', -1, 64), "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	n := len(digits)
	switch {
	case exp < -4 || exp >= 16:
		out := digits[:1]
		if n > 1 {
			out += "." + digits[1:]
		}
		esign := "+"
		if exp < 0 {
			esign, exp = "-", -exp
		}
		return fmt.Sprintf("%s%se%s%02d", sign, out, esign, exp)
	case exp < 0:
		return sign + "0." + strings.Repeat("0", -exp-1) + digits
	case exp+1 >= n:
		return sign + digits + strings.Repeat("0", exp+1-n) + ".0"
	default:
		return sign + digits[:exp+1] + "." + digits[exp+1:]
	}
}

// The float layout equals the rule on millions of floats: random bit patterns (every
// exponent), times as a simulation writes them (uniform over several decades, whole numbers,
// few decimals) and the edges of the positional range and of the digit counts.
func TestFloatLayout(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	check := func(v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return
		}
		if got, want := string(appendFloat([]byte("x"), v)[1:]), floatRule(v); got != want {
			t.Fatalf("%v (bits %#x): %q, the rule gives %q", v, math.Float64bits(v), got, want)
		}
	}
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	for range n {
		check(math.Float64frombits(rnd.Uint64()))
		check(rnd.Float64() * math.Pow(10, float64(rnd.IntN(26)-8)))
		check(-rnd.Float64() * math.Pow(10, float64(rnd.IntN(26)-8)))
		check(float64(rnd.Int64N(1 << 54)))
		check(float64(rnd.IntN(1_000_000)) / math.Pow(10, float64(rnd.IntN(8))))
	}
	for e := -330; e <= 310; e++ {
		p := math.Pow(10, float64(e))
		for _, v := range []float64{p, math.Nextafter(p, 0), math.Nextafter(p, math.Inf(1)), 2 * p, 9.5 * p, 1.25 * p, 123456789012345.67 * p / 1e14} {
			check(v)
			check(-v)
		}
	}
	for _, v := range []float64{5e-324, math.SmallestNonzeroFloat64 * 3, math.MaxFloat64, 1e-4, 9.999999999999999e-05, 1e16, 9999999999999998, 1 << 53, 1<<53 + 2} {
		check(v)
		check(-v)
	}
}

// FuzzString checks strings decode back (valid UTF-8) and the output is ASCII.
func FuzzString(f *testing.F) {
	for _, s := range []string{"", "plain", "\"\\\b\f\n\r\t\x00\x7f/", "é€😀", "a\xffb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := Compact(s)
		if err != nil {
			t.Fatal(err)
		}
		if !isASCII(out) {
			t.Fatalf("non-ASCII output %q", out)
		}
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("output %q does not parse: %v", out, err)
		}
		// string([]rune(s)) maps each invalid byte to U+FFFD, as the encoder does.
		if want := string([]rune(s)); back != want {
			t.Fatalf("round trip %q -> %q -> %q", s, out, back)
		}
	})
}

func BenchmarkCompactRecord(b *testing.B) {
	rec := map[string]any{
		"admission_count": 1, "arrival_time_ms": 0.0, "decode_admit_ms": nil, "e2e_latency_ms": 5.0,
		"first_token_ms": 2.0, "input_length": 32, "itl_ms": 1.5, "session_id": nil,
		"terminal_status": "completed", "uuid": "00000000-0000-0000-0000-000000000001",
		"routing_history":          []any{map[string]any{"dp_rank": 0, "outcome": "immediate", "queue_wait_ms": 0.0}},
		"pressure_record_ordinals": []int{},
	}
	buf := make([]byte, 0, 4096)
	var enc Encoder
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var err error
		buf, err = enc.AppendCompact(buf[:0], rec)
		if err != nil {
			b.Fatal(err)
		}
	}
}

// A non-finite value inside objects is named by its key path, and still is ErrNonFinite.
func TestNonFiniteNamesTheKey(t *testing.T) {
	_, err := Pretty(map[string]any{"summary": map[string]any{"a": 1.0, "mean_ttft_ms": math.Inf(1)}})
	var nf *NonFiniteError
	if !errors.As(err, &nf) || nf.Path != "summary.mean_ttft_ms" || !errors.Is(err, ErrNonFinite) {
		t.Fatalf("error %v", err)
	}
	if _, err := Compact(math.NaN()); err != ErrNonFinite {
		t.Errorf("a bare NaN: %v", err)
	}
}
