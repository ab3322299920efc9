package simcore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"aisimulate/simcore/canon"
)

// canonicalValue parses canonical JSON keeping ints (no '.' or exponent) apart from floats,
// so re-encoding it with canon gives the same bytes.
func canonicalValue(t *testing.T, b []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	var conv func(any) any
	conv = func(v any) any {
		switch x := v.(type) {
		case json.Number:
			if !strings.ContainsAny(string(x), ".eE") {
				n, _ := x.Int64()
				return n
			}
			f, _ := x.Float64()
			return f
		case []any:
			for i := range x {
				x[i] = conv(x[i])
			}
		case map[string]any:
			for k := range x {
				x[k] = conv(x[k])
			}
		}
		return v
	}
	return conv(v)
}

const e2Traffic = `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: concurrency, concurrency: 2}
  stop: {requests: 6}
`

// Detail sections add a `details` member to prediction.json (every other member unchanged)
// and wrap the JSON stdout as {"details": …, "summary": …}; without them prediction.json has
// exactly the four members of docs/semantics/outputs.md §3.1.
func TestDetailSections(t *testing.T) {
	wall := 12.5
	plain, err := Predict(Input{ConfigYAML: []byte(e2Traffic + fixedEngine), FixedWallTimeMs: &wall})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain.StdoutJSON, plain.SummaryJSON) {
		t.Errorf("StdoutJSON without details = %q, want the summary line", plain.StdoutJSON)
	}
	out, err := Predict(Input{ConfigYAML: []byte(e2Traffic + fixedEngine), FixedWallTimeMs: &wall, Detail: []string{"summary", "time"}})
	if err != nil {
		t.Fatal(err)
	}
	wantDetails := `{"requested_sections":["summary","time"],"schema_version":"1.0","skipped":[{"reason":"unsupported by stack","section":"summary"},{"reason":"unsupported by stack","section":"time"}]}`
	if want := `{"details":` + wantDetails + `,"summary":` + strings.TrimSuffix(string(plain.SummaryJSON), "\n") + "}\n"; string(out.StdoutJSON) != want {
		t.Errorf("StdoutJSON = %q\nwant %q", out.StdoutJSON, want)
	}
	if !bytes.Equal(out.SummaryJSON, plain.SummaryJSON) {
		t.Errorf("SummaryJSON changed with details")
	}
	got := canonicalValue(t, out.PredictionJSON).(map[string]any)
	base := canonicalValue(t, plain.PredictionJSON).(map[string]any)
	if len(base) != 6 || len(got) != 7 {
		t.Fatalf("prediction.json members: %d without details, %d with, want 6 and 7 (docs/semantics/outputs.md §3.1)", len(base), len(got))
	}
	details, _ := canon.Compact(got["details"])
	if string(details) != wantDetails {
		t.Errorf("details = %s\nwant %s", details, wantDetails)
	}
	delete(got, "details")
	again, _ := canon.Pretty(got)
	if !bytes.Equal(again, plain.PredictionJSON) {
		t.Errorf("prediction.json without its details member differs from the plain run:\n%s", again)
	}
	if _, err := Predict(Input{ConfigYAML: []byte(e2Traffic + fixedEngine), Detail: []string{"power"}}); err == nil || !strings.Contains(err.Error(), "summary, memory, time, energy, source") {
		t.Errorf("unknown section: err = %v, want one naming the sections", err)
	}
}
