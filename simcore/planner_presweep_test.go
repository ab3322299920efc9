package simcore

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

const plannerRecYAML = `
traffic:
  source: {type: trace, format: mooncake, paths: [t.jsonl]}
  load: {type: trace_timestamps}
engine:
  mode: aggregated
  backend: vllm
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers: {aggregated: {parallelism: {preset: [{replicas: 1, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}, scheduler: {max_batched_tokens: 8192, max_sequences: 256}}}
evaluation: {sla: {ttft_ms: 500, itl_ms: 50}}
planner: {policy: enabled, scaling_policy: {preset: [throughput_180_5, throughput_600_5]}}
optimization: {target: goodput}
`

// rampTrace has windows of 180 s whose request count grows by two per window.
func rampTrace(windows int) []byte {
	var b strings.Builder
	for k := 0; k < windows; k++ {
		for j := 0; j < 2*(k+1); j++ {
			fmt.Fprintf(&b, `{"timestamp": %d, "input_length": 64, "output_length": 4, "hash_ids": [%d]}`+"\n", k*180000+j*1000, k*100+j)
		}
	}
	return []byte(b.String())
}

// The loss of a forecast is the notes' weighted log error.
func TestWindowLoss(t *testing.T) {
	w := predictorWindow{requests: 2, isl: 100, osl: 10}
	if got := windowLoss(2, 100, 10, w); got != 0 {
		t.Errorf("exact forecast: %v", got)
	}
	want := 0.4*math.Abs(xmath.Log1p(100)-xmath.Log1p(200)) + 0.4*math.Abs(xmath.Log1p(10)-xmath.Log1p(20))
	if got := windowLoss(1, 100, 10, w); got != want {
		t.Errorf("half the requests: %v, want %v", got, want)
	}
	if got := windowLoss(-5, 100, 10, predictorWindow{}); got != 0.1*xmath.Log1p(100)+0.1*xmath.Log1p(10) {
		t.Errorf("negative forecast is clamped: %v", got)
	}
}

// On a rising trace the linear-trend predictor (prophet) beats constant_last at both
// intervals; a trace shorter than the warm-up has no winner (constant_last); without a trace
// nothing is swept.
func TestPredictorPreSweep(t *testing.T) {
	files := fstest.MapFS{"t.jsonl": {Data: rampTrace(24)}}
	rc, err := NewRecommender(RecommendInput{ConfigName: "r.yaml", ConfigYAML: []byte(plannerRecYAML), Files: files})
	if err != nil {
		t.Fatal(err)
	}
	rec := rc.Recommendation()
	ps := rec.Planner
	if len(ps.Predictors) != 11 || fmt.Sprint(ps.Intervals) != "[180 600]" {
		t.Fatalf("predictors %d intervals %v", len(ps.Predictors), ps.Intervals)
	}
	w180, ok := ps.Winners[180]
	if !ok || ps.Predictors[w180].Label == "constant_last" {
		t.Errorf("180 s winner %v (%v)", w180, ok)
	}
	if got := ps.Predictors[w180].Label; got != "prophet_w20_raw" {
		t.Errorf("180 s winner %s", got)
	}
	if w600, ok := ps.Winners[600]; !ok || ps.Predictors[w600].Label != "prophet_w20_raw" {
		t.Errorf("600 s winner %v (%v)", w600, ok)
	}
	// The winner is written into a candidate with that interval.
	tree := rec.Candidate([]string{"planner.policy", "planner.enable_throughput_scaling", "planner.enable_load_scaling",
		"planner.throughput_adjustment_interval_seconds", "planner.load_adjustment_interval_seconds"},
		[]any{spec.PlannerEnabled, true, false, ps.Groups[0].Entries[0].Values[2], ps.Groups[0].Entries[0].Values[3]})
	if p := tree["planner"].(map[string]any); p["load_predictor"] != "prophet" || p["prophet_window_size"] != ps.Predictors[w180].Values[2] || p["kalman_r"] != nil {
		t.Errorf("candidate planner %v", p)
	}
	// Five windows of 180 s: the warm-up (five points) leaves nothing to score.
	rc, err = NewRecommender(RecommendInput{ConfigName: "r.yaml", ConfigYAML: []byte(plannerRecYAML), Files: fstest.MapFS{"t.jsonl": {Data: rampTrace(5)}}})
	if err != nil {
		t.Fatal(err)
	}
	if rec = rc.Recommendation(); len(rec.Planner.Winners) != 0 {
		t.Errorf("short trace winners %v", rec.Planner.Winners)
	}
	// A synthetic workload keeps constant_last.
	syn := strings.Replace(plannerRecYAML, "  source: {type: trace, format: mooncake, paths: [t.jsonl]}\n  load: {type: trace_timestamps}",
		"  source: {type: synthetic, input_tokens: 64, output_tokens: 4}\n  load: {type: concurrency, concurrency: 2}\n  stop: {requests: 4}", 1)
	rc, err = NewRecommender(RecommendInput{ConfigName: "r.yaml", ConfigYAML: []byte(syn)})
	if err != nil {
		t.Fatal(err)
	}
	if rec = rc.Recommendation(); len(rec.Planner.Winners) != 0 {
		t.Errorf("synthetic winners %v", rec.Planner.Winners)
	}
}

// Every candidate of a planner search is a valid prediction: none is unsupported or failed.
func TestPlannerRecommendationRuns(t *testing.T) {
	files := fstest.MapFS{"t.jsonl": {Data: rampTrace(6)}}
	res, err := Recommend(RecommendInput{ConfigName: "r.yaml", ConfigYAML: []byte(plannerRecYAML), Files: files,
		Sets: []string{"optimizer={max_trials: 12, parallelism: 4}", "planner={scaling_policy: {preset: [load_180_5, hybrid_180_5]}}"}})
	if err != nil {
		t.Fatal(err)
	}
	text := string(res.JSON)
	for _, bad := range []string{`"unsupported": 0`, `"failed": 0`} {
		if !strings.Contains(text, bad) {
			t.Errorf("want %s in counts:\n%s", bad, text[:min(len(text), 600)])
		}
	}
	for _, want := range []string{`"planner.scaling_policy": "hybrid_180_5"`, `"planner.policy": "enabled"`} {
		if !strings.Contains(text, want) {
			t.Errorf("no candidate with %s", want)
		}
	}
}
