package simcore

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"

	"aisimulate/simcore/recommend"
)

// smallRecommendation runs examples/recommend-small.yaml with remote evaluators (nil: none).
func smallRecommendation(t *testing.T, remote func([]EvaluationRequest) ([]RemoteOutcome, error), distrust func(string, string)) *recommend.Result {
	t.Helper()
	text, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	r, err := NewRecommender(RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: text, FixedWallTimeMs: &zero, ModuleVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var res *recommend.Result
	if remote == nil {
		res, err = r.Run(nil, nil)
	} else {
		res, err = r.RunChecked(Remote{Evaluate: remote, Distrust: distrust}, nil, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// fakeRemote answers as the remote url: honest evaluations passed through edit.
func fakeRemote(url string, edit func(req EvaluationRequest, outcome []byte) []byte, calls *int) func([]EvaluationRequest) ([]RemoteOutcome, error) {
	return func(reqs []EvaluationRequest) ([]RemoteOutcome, error) {
		out := make([]RemoteOutcome, len(reqs))
		for i, r := range reqs {
			*calls++
			out[i] = RemoteOutcome{Outcome: edit(r, Evaluate(r, nil)), Remote: url}
		}
		return out, nil
	}
}

// distrustedKey is the provenance key only a run that distrusted a remote writes.
var distrustedKey = regexp.MustCompile(`(?s),\n    "distrusted_remotes": \[.*?\n    \]`)

// An honest remote gives the local result byte for byte, and nothing is distrusted.
func TestRemoteCheckHonest(t *testing.T) {
	local := smallRecommendation(t, nil, nil)
	calls := 0
	honest := func(_ EvaluationRequest, b []byte) []byte { return b }
	got := smallRecommendation(t, fakeRemote("http://honest", honest, &calls), func(r, why string) { t.Errorf("distrusted %s: %s", r, why) })
	if !bytes.Equal(got.JSON, local.JSON) || !bytes.Equal(got.CSV, local.CSV) || len(got.Distrusted) != 0 {
		t.Errorf("an honest remote changed the result")
	}
	if calls == 0 {
		t.Errorf("the remote evaluated nothing")
	}
}

// A remote that edits outcomes within every range check (a plausible, better TTFT) is caught
// by recomputing the written views: it is distrusted, and the result is the local one with
// the remote named in the provenance.
func TestRemoteCheckLiarWithinRanges(t *testing.T) {
	local := smallRecommendation(t, nil, nil)
	calls := 0
	liar := func(_ EvaluationRequest, b []byte) []byte {
		// Every candidate's goodput looks a little higher: still at most the throughput.
		return bytes.Replace(b, []byte(`"goodput_completed_requests":`), []byte(`"goodput_completed_requests":0,"x":`), 1)
	}
	var told []string
	got := smallRecommendation(t, fakeRemote("http://liar", liar, &calls), func(r, why string) { told = append(told, r+": "+why) })
	if len(told) != 1 || !strings.HasPrefix(told[0], "http://liar: ") || len(got.Distrusted) != 1 {
		t.Fatalf("distrusted %q, result %v", told, got.Distrusted)
	}
	stripped := distrustedKey.ReplaceAll(got.JSON, nil)
	if !bytes.Equal(stripped, local.JSON) || !bytes.Equal(got.CSV, local.CSV) {
		t.Errorf("the corrected result differs from the local one")
	}
	if !bytes.Contains(got.JSON, []byte(`"distrusted_remotes": [`)) || !bytes.Contains(got.JSON, []byte(`"remote": "http://liar"`)) {
		t.Errorf("provenance does not name the remote:\n%s", got.JSON[len(got.JSON)-600:])
	}
}

// Outcomes outside the ranges an evaluation can produce (the audit's edits) distrust the
// remote as they arrive.
func TestRemoteCheckOutOfRange(t *testing.T) {
	local := smallRecommendation(t, nil, nil)
	for _, edit := range []struct{ from, to string }{
		{`"completed_requests":32`, `"completed_requests":-7`},
		{`"goodput_output_throughput_tok_s":`, `"goodput_output_throughput_tok_s":1e308,"y":`},
		{`"completed_requests":32`, `"completed_requests":33`},
		{`"status":""`, `"status":"great"`},
		{`{`, `[`},
		{`"mean_ttft_ms":{"n":631,"p10":`, `"mean_ttft_ms":{"n":631,"p10":1e9,"x":`},
	} {
		calls := 0
		lie := func(_ EvaluationRequest, b []byte) []byte {
			return bytes.Replace(b, []byte(edit.from), []byte(edit.to), 1)
		}
		var told []string
		got := smallRecommendation(t, fakeRemote("http://bad", lie, &calls), func(r, why string) { told = append(told, why) })
		if len(told) != 1 || !strings.HasPrefix(told[0], "an outcome failed the checks: ") {
			t.Errorf("%s → %s: distrusted %q", edit.from, edit.to, told)
		}
		if !bytes.Equal(distrustedKey.ReplaceAll(got.JSON, nil), local.JSON) {
			t.Errorf("%s → %s: the result differs from the local one", edit.from, edit.to)
		}
	}
}

// Every outcome this build computes passes CheckOutcome: the search's candidates, feasible
// or not, and the worked example E2.
func TestCheckOutcomeAcceptsRealOutcomes(t *testing.T) {
	calls := 0
	checked := func(r EvaluationRequest, b []byte) []byte {
		o, err := DecodeOutcome(b)
		if err == nil {
			err = CheckOutcome(o)
		}
		if err != nil {
			t.Errorf("%v\n%s", err, r.ConfigYAML)
		}
		return b
	}
	smallRecommendation(t, fakeRemote("http://x", checked, &calls), nil)
	checked(EvaluationRequest{}, Evaluate(NewEvaluationRequest("e2.yaml", candidateTree(t, e2Config), 1<<40), nil))
}
