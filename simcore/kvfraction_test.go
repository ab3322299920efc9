package simcore

import (
	"bytes"
	"errors"
	"testing"

	"aisimulate/simcore/spec"
)

// A kv_capacity_fraction load runs exactly as the concurrency load the reference's rule
// gives (docs/config.md, "kv_capacity_fraction"): capacity = blocks × block size × attention
// DP × replicas of the aggregated or decode role, a request holds isl + osl // 2 tokens,
// concurrency = max(1, floor(fraction × (capacity // expected))); a load-relative stop
// counts against that concurrency.
func TestKVCapacityFractionIsItsConcurrency(t *testing.T) {
	const agg = "traffic: {source: {type: synthetic, input_tokens: 100, output_tokens: 51}, load: LOAD, stop: {requests_per_load_unit: 2}}\n" +
		"engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, workers: {aggregated: {parallelism: {replicas: 2}, " +
		"kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 64}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"
	const disagg = "traffic: {source: {type: synthetic, input_tokens: 100, output_tokens: 51}, load: LOAD, stop: {requests_per_load_unit: 2}}\n" +
		"engine: {model: meta-llama/Meta-Llama-3.1-8B, hardware: h200_sxm, mode: disaggregated, workers: {" +
		"prefill: {kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 4096}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}, " +
		"decode: {parallelism: {replicas: 3}, kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 32}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}}\n"
	wall := 0.0
	run := func(yaml, load string) *Output {
		t.Helper()
		out, err := Predict(Input{ConfigYAML: []byte(bytes.ReplaceAll([]byte(yaml), []byte("LOAD"), []byte(load))), FixedWallTimeMs: &wall})
		if err != nil {
			t.Fatalf("%s: %v", load, err)
		}
		return out
	}
	for _, c := range []struct {
		name, yaml, fraction, concurrency string
	}{
		// 64 × 16 × 2 = 2048 tokens, 100 + 51 // 2 = 125 per request: 2048 // 125 = 16.
		{"aggregated half", agg, "0.5", "8"},
		{"aggregated over one", agg, "1.3", "20"}, // floor(1.3 × 16) = 20
		{"aggregated tiny", agg, "0.01", "1"},     // max(1, 0)
		// The decode role: 32 × 16 × 3 = 1536 tokens; 1536 // 125 = 12.
		{"disaggregated", disagg, "0.75", "9"},
	} {
		got := run(c.yaml, "{type: kv_capacity_fraction, fraction: "+c.fraction+"}")
		want := run(c.yaml, "{type: concurrency, concurrency: "+c.concurrency+"}")
		if !bytes.Equal(got.PredictionJSON, want.PredictionJSON) {
			t.Errorf("%s: fraction %s does not run as concurrency %s", c.name, c.fraction, c.concurrency)
		}
	}
	_, err := Predict(Input{ConfigYAML: []byte(bytes.ReplaceAll([]byte(agg), []byte("input_tokens: 100"), []byte("input_tokens: 3000"))),
		Sets: []string{"traffic.load={type: kv_capacity_fraction, fraction: 1}"}})
	var se *spec.Error
	if !errors.As(err, &se) || se.Path != "traffic.load" || se.Msg != "aggregated KV capacity 2048 tokens cannot hold one request averaging 3025 tokens; give the role more KV capacity or use a concurrency load" {
		t.Errorf("a capacity below one request: %v", err)
	}
}
