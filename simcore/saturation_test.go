package simcore

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"aisimulate/simcore/report"
)

// saturationOf is the saturation section of a prediction, decoded from prediction.json.
func saturationOf(t *testing.T, out *Output) map[string]any {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(out.PredictionJSON, &doc); err != nil {
		t.Fatal(err)
	}
	m, ok := doc[report.KeySaturation].(map[string]any)
	if !ok {
		t.Fatalf("prediction.json has no %s object", report.KeySaturation)
	}
	return m
}

// wantSection compares a decoded section with the values of docs/semantics/outputs.md.
func wantSection(t *testing.T, name string, got, want map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: saturation = %v\nwant %v", name, got, want)
	}
}

// S1 of docs/semantics/outputs.md §3.4: examples/overload.yaml serves 200 of 250 requests/s,
// its queue grows; the whole prediction.json is the golden file.
func TestSaturationS1Golden(t *testing.T) {
	yaml, err := os.ReadFile("../examples/overload.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := predict(t, string(yaml))
	wantGolden(t, "testdata/overload_prediction.json", out.PredictionJSON)
	wantSection(t, "S1", saturationOf(t, out), map[string]any{
		"first_release_ms": 0.0, "last_release_ms": 32.0, "offered_request_rate_rps": 250.0,
		"served_request_rate_rps": 200.0, "waiting_at_last_release": 2.0, "queue_growth_rps": 62.5,
		"prefill_queue_growth_rps": nil, "decode_queue_growth_rps": nil, "queue_trend": "growing", "bottleneck": nil,
	})
	if got, want := report.SaturationSentence(out.Saturation),
		"Overloaded: offered 250 req/s, served 200 req/s; the queue was still growing at the last arrival (2 waiting)."; got != want {
		t.Errorf("sentence = %q\nwant %q", got, want)
	}
}

// S2 of docs/semantics/outputs.md §3.4: in disaggregated mode the role whose queue grows is the
// bottleneck, decode with a one-sequence decode worker, prefill with 3 ms prefill passes.
func TestSaturationS2Bottleneck(t *testing.T) {
	const traffic = `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 4}
  load: {type: constant_rate, requests_per_second: 500}
  stop: {requests: 9}
engine:
  mode: disaggregated
`
	cfg := traffic + disaggFixedEngine
	decode := saturationOf(t, predict(t, cfg, "engine.workers.decode.scheduler={max_sequences: 1}"))
	wantSection(t, "decode-bound", decode, map[string]any{
		"first_release_ms": 0.0, "last_release_ms": 16.0, "offered_request_rate_rps": 500.0,
		"served_request_rate_rps": 321.42857142857144, "waiting_at_last_release": 2.0, "queue_growth_rps": 125.0,
		"prefill_queue_growth_rps": 0.0, "decode_queue_growth_rps": 125.0, "queue_trend": "growing", "bottleneck": "decode",
	})
	prefill := saturationOf(t, predict(t, cfg, "engine.workers.prefill.timing={type: fixed, prefill_ms: 3, decode_ms: 1}"))
	wantSection(t, "prefill-bound", prefill, map[string]any{
		"first_release_ms": 0.0, "last_release_ms": 16.0, "offered_request_rate_rps": 500.0,
		"served_request_rate_rps": 300.0, "waiting_at_last_release": 3.0, "queue_growth_rps": 125.0,
		"prefill_queue_growth_rps": 125.0, "decode_queue_growth_rps": 0.0, "queue_trend": "growing", "bottleneck": "prefill",
	})
	// The same nine requests at 250 requests/s: decode needs 3 ms per request and they come every
	// 4 ms, so nothing queues and no role is named.
	kept := saturationOf(t, predict(t, cfg, "traffic.load.requests_per_second=250", "engine.workers.decode.scheduler={max_sequences: 1}"))
	if kept["queue_trend"] != report.TrendSteady || kept["bottleneck"] != nil || kept["waiting_at_last_release"] != 0.0 {
		t.Errorf("kept-up disaggregated run: %v, want a steady queue, nothing waiting and no bottleneck", kept)
	}
}

// A closed loop (E2) keeps up; six clients for six requests release them all at 0, in one
// 5 ms batch (1200 requests/s served), with no window, so no offered rate, growth or trend.
func TestSaturationSteadyAndOneInstant(t *testing.T) {
	e2 := saturationOf(t, predict(t, e2Traffic+fixedEngine))
	wantSection(t, "E2", e2, map[string]any{
		"first_release_ms": 0.0, "last_release_ms": 10.0, "offered_request_rate_rps": 500.0,
		"served_request_rate_rps": 400.0, "waiting_at_last_release": 0.0, "queue_growth_rps": 0.0,
		"prefill_queue_growth_rps": nil, "decode_queue_growth_rps": nil, "queue_trend": "steady", "bottleneck": nil,
	})
	burst := predict(t, e2Traffic+fixedEngine, "traffic.load.concurrency=6")
	wantSection(t, "burst", saturationOf(t, burst), map[string]any{
		"first_release_ms": 0.0, "last_release_ms": 0.0, "offered_request_rate_rps": nil,
		"served_request_rate_rps": 1200.0, "waiting_at_last_release": 0.0, "queue_growth_rps": nil,
		"prefill_queue_growth_rps": nil, "decode_queue_growth_rps": nil, "queue_trend": nil, "bottleneck": nil,
	})
}
