package spec

import (
	"encoding/json"
	"errors"
	"testing"
)

// lengthsYAML is aggYAML with a synthetic source of 1000/100 tokens whose lengths mapping is
// the given flow text.
func lengthsYAML(lengths string) string {
	return aggYAML + "traffic: {source: {type: synthetic, input_tokens: 1000, output_tokens: 100, lengths: " + lengths + "}, load: {type: concurrency}, stop: {requests: 5}}\n"
}

func TestLengthsRules(t *testing.T) {
	const p = "traffic.source.synthetic.lengths"
	runRuleCases(t, []ruleCase{
		{name: "uniform one-sided", yaml: lengthsYAML("{distribution: uniform, min_ratio: 0.8}")},
		{name: "uniform symmetric", yaml: lengthsYAML("{distribution: uniform, min_ratio: 0.9, max_ratio: 1.1}")},
		{name: "uniform from one token", yaml: lengthsYAML("{distribution: uniform, min_ratio: 0}")},
		{name: "normal", yaml: lengthsYAML("{distribution: normal, input_stddev_ratio: 0.1, output_stddev_ratio: 0.25}")},
		{name: "constant", yaml: lengthsYAML("{distribution: constant}")},
		{name: "null is absent", yaml: lengthsYAML("null")},
		{name: "by --set", yaml: seedYAML, sets: []string{"traffic.source.lengths={distribution: uniform, min_ratio: 0.8}"}},
		{name: "unknown distribution", yaml: lengthsYAML("{distribution: lognormal}"), path: p + ".distribution", frag: "must be one of constant, uniform, normal"},
		{name: "not a mapping", yaml: lengthsYAML("0.8"), path: p, frag: "must be a mapping"},
		{name: "unknown key", yaml: lengthsYAML("{distribution: uniform, range_ratio: 0.8}"), path: p, frag: "unknown key \"range_ratio\""},
		{name: "key of another distribution", yaml: lengthsYAML("{distribution: uniform, input_stddev_ratio: 0.1}"), path: p, frag: "distribution 'uniform' does not accept ['input_stddev_ratio']; allowed fields: ['min_ratio', 'max_ratio']"},
		{name: "ratio without distribution", yaml: lengthsYAML("{min_ratio: 0.8}"), path: p, frag: "distribution 'constant' does not accept ['min_ratio']; allowed fields: none"},
		{name: "min above one", yaml: lengthsYAML("{distribution: uniform, min_ratio: 1.2}"), path: p + ".min_ratio", frag: "must be at most 1"},
		{name: "negative min", yaml: lengthsYAML("{distribution: uniform, min_ratio: -0.1}"), path: p + ".min_ratio", frag: "must be at least 0"},
		{name: "max below one", yaml: lengthsYAML("{distribution: uniform, max_ratio: 0.9}"), path: p + ".max_ratio", frag: "must be at least 1"},
		{name: "max above two", yaml: lengthsYAML("{distribution: uniform, max_ratio: 2.5}"), path: p + ".max_ratio", frag: "must be at most 2"},
		{name: "stddev above one", yaml: lengthsYAML("{distribution: normal, output_stddev_ratio: 1.5}"), path: p + ".output_stddev_ratio", frag: "must be at most 1"},
		{name: "ratio as text", yaml: lengthsYAML("{distribution: uniform, min_ratio: '0.8'}"), path: p + ".min_ratio", frag: "must be a number"},
		{name: "draw beyond the token bound", yaml: aggYAML + "traffic: {source: {type: synthetic, input_tokens: 1000000000, lengths: {distribution: uniform, max_ratio: 1.5}}, load: {type: concurrency}, stop: {requests: 5}}\n", path: p, frag: "more than 1073741824"},
		{name: "not on sessions", yaml: aggYAML + "traffic: {source: {type: synthetic-session, session: {turns: 3}, lengths: {distribution: uniform}}, load: {type: concurrency}, stop: {sessions: 5}}\n", path: "traffic.source.synthetic-session", frag: "unknown key \"lengths\""},
	})
}

// A decoded constant draw, in any form, is the zero value; a drawn one keeps its ratios.
func TestLengthsDecodeForms(t *testing.T) {
	for _, form := range []string{"{distribution: constant}", "{distribution: uniform}", "{distribution: normal}", "null"} {
		if l := mustLoad(t, lengthsYAML(form)).Traffic.Source.Lengths; l != (Lengths{}) {
			t.Errorf("%s decodes to %+v, want the zero value", form, l)
		}
	}
	want := Lengths{Distribution: LengthsUniform, MinRatio: 0.8, MaxRatio: 1}
	if l := mustLoad(t, lengthsYAML("{distribution: uniform, min_ratio: 0.8}")).Traffic.Source.Lengths; l != want {
		t.Errorf("decoded %+v, want %+v", l, want)
	}
}

// The written form (a profile scope's) holds only the distribution's keys and reads back the
// same; a written form that breaks the configuration's limits is refused naming the key.
func TestLengthsJSONRoundTrip(t *testing.T) {
	for _, l := range []Lengths{
		{Distribution: LengthsUniform, MinRatio: 0, MaxRatio: 1},
		{Distribution: LengthsUniform, MinRatio: 0.9, MaxRatio: 1.1},
		{Distribution: LengthsNormal, InputStddevRatio: 0.1},
	} {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		var back Lengths
		if err := json.Unmarshal(b, &back); err != nil || back != l {
			t.Errorf("%s reads back as %+v, %v", b, back, err)
		}
	}
	if b, _ := json.Marshal(Lengths{Distribution: LengthsNormal, InputStddevRatio: 0.1}); string(b) != `{"distribution":"normal","input_stddev_ratio":0.1,"output_stddev_ratio":0.0}` {
		t.Errorf("written as %s", b)
	}
	var l Lengths
	if err := json.Unmarshal([]byte(`{"distribution": "uniform", "min_ratio": 3}`), &l); err == nil || err.Error() != "lengths.min_ratio: must be at most 1, got 3" {
		t.Errorf("bad written form: %v", err)
	}
}

// ParseLengths (calibrate's --lengths) either refuses its text with a located message or
// returns a draw the configuration's limits accept, whose written form reads back the same.
func FuzzParseLengths(f *testing.F) {
	for _, s := range []string{"{distribution: uniform, min_ratio: 0.8}", "{distribution: normal, input_stddev_ratio: 0.1}", "distribution: constant", "[1]", "{distribution: uniform, max_ratio: .inf}", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		l, err := ParseLengths("--lengths", []byte(text))
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.Msg == "" {
				t.Fatalf("error %T %v is not a located *spec.Error", err, err)
			}
			return
		}
		if e := l.Validate("lengths"); e != nil {
			t.Fatalf("accepted %+v, which Validate refuses: %v", l, e)
		}
		if l.Constant() {
			return
		}
		b, jerr := json.Marshal(l)
		var back Lengths
		if jerr != nil || json.Unmarshal(b, &back) != nil || back != l {
			t.Fatalf("%+v writes %s and reads back %+v", l, b, back)
		}
	})
}
