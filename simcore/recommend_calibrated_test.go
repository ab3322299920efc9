package simcore

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// recommendSmallCalibrated runs examples/recommend-small.yaml with the example profile
// (Llama 3.1 8B, H200, vLLM, aggregated, concurrency 8–64) and returns recommendation.json
// decoded, and the profile's bytes.
func recommendSmallCalibrated(t *testing.T, strict bool, sets ...string) (map[string]any, []byte) {
	t.Helper()
	text, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prof, err := os.ReadFile(exampleProfile)
	if err != nil {
		t.Fatal(err)
	}
	wall := 0.0
	res, err := Recommend(RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: text, Sets: sets, ModuleVersion: "test", FixedWallTimeMs: &wall,
		Calibrations: []NamedFile{{Name: "profile.json", Data: prof}}, StrictCalibration: strict})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(res.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	return doc, prof
}

// calibratable reports whether a recommend-small candidate is of the example profile's
// engine: vLLM, aggregated (model and GPU are fixed in the search).
func calibratable(c map[string]any) bool {
	cfg := c["config"].(map[string]any)
	return cfg["engine.backend"] == "vllm" && cfg["engine.mode"] == "aggregated"
}

// recommend --calibration: exactly the candidates of the profile's model, GPU, backend and
// mode are calibrated (their intervals' source is the profile; their parallelism may differ,
// which doubles the band), the others keep the default model and its bands; the provenance
// names the profile by hash and counts the calibrated candidates. A calibrated candidate's
// outcome is `predict --calibration` of its configuration.
func TestRecommendWithACalibration(t *testing.T) {
	doc, prof := recommendSmallCalibrated(t, false)
	sum := sha256.Sum256(prof)
	cal := doc["provenance"].(map[string]any)["calibration"].(map[string]any)
	p0 := cal["profiles"].([]any)[0].(map[string]any)
	if p0["file"] != "profile.json" || p0["sha256"] != hex.EncodeToString(sum[:]) || cal["strict"] != false {
		t.Errorf("provenance.calibration = %v", cal)
	}
	calibrated, other := 0, 0
	for _, x := range doc["candidates"].([]any) {
		c := x.(map[string]any)
		iv, _ := c["intervals"].(map[string]any)
		if iv == nil {
			continue
		}
		got := iv[report.KeyIntervalSource] == report.IntervalSourceCalibration
		if got != calibratable(c) {
			t.Errorf("%s (%v): intervals source %v", c["candidate_id"], c["config"], iv[report.KeyIntervalSource])
		}
		if got {
			calibrated++
		} else {
			other++
		}
	}
	if calibrated == 0 || other == 0 || cal["calibrated_candidates"] != float64(calibrated) {
		t.Errorf("%d calibrated, %d not; provenance says %v", calibrated, other, cal["calibrated_candidates"])
	}

	// A calibrated candidate evaluated here equals predict --calibration of its YAML.
	tree := candidateTree(t, roundTripConfig+`traffic:
  source: {type: synthetic, input_tokens: 1024, output_tokens: 128}
  load: {type: concurrency, concurrency: 16}
  stop: {requests: 64}
`)
	req := NewEvaluationRequest("c.yaml", tree, WorkBudget(spec.Optimizer{CandidateTimeoutSeconds: 600}))
	req.Calibrations = []NamedFile{{Name: "profile.json", Data: prof}}
	o, err := DecodeOutcome(Evaluate(req, nil))
	if err != nil || o.Status != "" {
		t.Fatalf("evaluation: %v %s %s", err, o.Status, o.Reason)
	}
	zero := 0.0
	want, err := Predict(Input{ConfigYAML: []byte(req.ConfigYAML), FixedWallTimeMs: &zero, Calibrations: req.Calibrations})
	if err != nil {
		t.Fatal(err)
	}
	for _, pair := range [][2]map[string]any{{o.Summary, want.Summary}, {o.Intervals, want.Intervals}} {
		a, _ := canon.Compact(pair[0])
		b, _ := canon.Compact(pair[1])
		if string(a) != string(b) {
			t.Errorf("evaluation\n%s\npredict --calibration\n%s", a, b)
		}
	}
}

// --strict-calibration: a candidate the profile does not cover is unsupported, naming why —
// another backend or mode, a parallelism the profile was not measured on, or a load outside
// the measured concurrencies [8, 64] (the search runs the profile's lengths, 1024/128).
func TestRecommendStrictCalibration(t *testing.T) {
	doc, _ := recommendSmallCalibrated(t, true, "traffic.source={type: synthetic, input_tokens: 1024, output_tokens: 128}")
	covered := 0
	for _, x := range doc["candidates"].([]any) {
		c := x.(map[string]any)
		cfg := c["config"].(map[string]any)
		tp1 := cfg["engine.workers.aggregated.parallelism"] != nil && cfg["engine.workers.aggregated.parallelism"].(map[string]any)["tensor"] == 1.0
		in := calibratable(c) && tp1 && cfg["traffic.load.concurrency"].(float64) >= 8
		reason, _ := c["reason"].(string)
		strict := strings.Contains(reason, "--strict-calibration")
		if in == (c["status"] == "unsupported") || strict == in {
			t.Errorf("%s (%v): status %v reason %q", c["candidate_id"], cfg, c["status"], reason)
		}
		if in {
			covered++
		}
	}
	if covered == 0 {
		t.Error("no candidate inside the profile: the test does not test")
	}
}

// An evaluation request carries the profiles' bytes exactly (base64 in JSON) and is
// evaluated to the same outcome after crossing a boundary; without profiles its JSON has no
// calibration keys, as before.
func TestEvaluationRequestCarriesTheProfile(t *testing.T) {
	prof, err := os.ReadFile(exampleProfile)
	if err != nil {
		t.Fatal(err)
	}
	tree := candidateTree(t, roundTripConfig+`traffic:
  source: {type: synthetic, input_tokens: 1024, output_tokens: 128}
  load: {type: concurrency, concurrency: 128}
  stop: {requests: 64}
`)
	req := NewEvaluationRequest("c.yaml", tree, WorkBudget(spec.Optimizer{CandidateTimeoutSeconds: 600}))
	plain, _ := json.Marshal(req)
	if strings.Contains(string(plain), "calibration") {
		t.Errorf("a request without profiles: %s", plain)
	}
	req.Calibrations, req.StrictCalibration = []NamedFile{{Name: "p.json", Data: prof}}, false
	b, _ := json.Marshal(req)
	var back EvaluationRequest
	if err := json.Unmarshal(b, &back); err != nil || string(back.Calibrations[0].Data) != string(prof) {
		t.Fatalf("round trip: %v", err)
	}
	if string(Evaluate(back, nil)) != string(Evaluate(req, nil)) {
		t.Error("the outcome changed across the boundary")
	}
	back.StrictCalibration = true
	if o, _ := DecodeOutcome(Evaluate(back, nil)); o.Status != "unsupported" || !strings.Contains(o.Reason, "outside the validity domain") {
		t.Errorf("strict, concurrency 128 outside [8, 64]: %s %q", o.Status, o.Reason)
	}
}
