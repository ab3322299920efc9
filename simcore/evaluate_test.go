package simcore

import (
	"strings"
	"testing"

	"aisimulate/simcore/recommend"
)

// An outcome survives its wire form with each number's kind: 2.0 stays a float, 2 an int;
// the intervals travel with the summary.
func TestOutcomeWireKeepsNumberKinds(t *testing.T) {
	in := recommend.Outcome{Summary: map[string]any{"f": 2.0, "i": 2, "big": 1e21, "s": "x",
		"nested": map[string]any{"g": 0.5, "n": []any{1, 1.5}}},
		Intervals: map[string]any{"mean_ttft_ms": map[string]any{"n": 3, "p10": 1.0, "p90": 2.5}}}
	b := EncodeOutcome(in)
	if want := `{"intervals":{"mean_ttft_ms":{"n":3,"p10":1.0,"p90":2.5}},"reason":"","status":"","summary":{"big":1e+21,"f":2.0,"i":2,"nested":{"g":0.5,"n":[1,1.5]},"s":"x"}}`; string(b) != want {
		t.Fatalf("wire form\n%s\nwant\n%s", b, want)
	}
	out, err := DecodeOutcome(b)
	if err != nil {
		t.Fatal(err)
	}
	if out.Summary["f"] != 2.0 || out.Summary["i"] != 2 || out.Summary["big"] != 1e21 {
		t.Errorf("decoded %#v", out.Summary)
	}
	if n := out.Summary["nested"].(map[string]any)["n"].([]any); n[0] != 1 || n[1] != 1.5 {
		t.Errorf("nested %#v", n)
	}
	if iv := out.Intervals["mean_ttft_ms"].(map[string]any); iv["n"] != 3 || iv["p10"] != 1.0 || iv["p90"] != 2.5 {
		t.Errorf("intervals %#v", iv)
	}
}

// Bytes that are not an outcome are an error, never a silently empty summary.
func TestDecodeOutcomeRejectsMalformed(t *testing.T) {
	for _, b := range []string{``, `{`, `{"status":"weird"}`, `{"status":""}`, `{"status":"","summary":{"x":1.0e}}`} {
		if _, err := DecodeOutcome([]byte(b)); err == nil || !strings.HasPrefix(err.Error(), "malformed evaluation outcome") {
			t.Errorf("%q: %v", b, err)
		}
	}
	o, err := DecodeOutcome(EncodeOutcome(recommend.Outcome{Status: recommend.StatusTimedOut, Reason: "r"}))
	if err != nil || o.Status != recommend.StatusTimedOut || o.Reason != "r" || o.Summary != nil || o.Intervals != nil {
		t.Errorf("timed out: %+v %v", o, err)
	}
}
