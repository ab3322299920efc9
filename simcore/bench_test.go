package simcore

import (
	"fmt"
	"os"
	"testing"
	"testing/fstest"
)

// denseConfig is the dense reference case: synthetic 1024/128, concurrency 64, one
// worker, polynomial timing, fixed capacity of 16,384 blocks of 64.
func denseConfig(requests int) string {
	return fmt.Sprintf(`
traffic:
  source: {type: synthetic, input_tokens: 1024, output_tokens: 128}
  load: {type: concurrency, concurrency: 64}
  stop: {requests: %d}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {block_size: 64, capacity: {type: fixed, blocks: 16384}}
      timing: {type: polynomial}
`, requests)
}

// BenchmarkDense reports simulated requests per second of the dense case natively.
func BenchmarkDense(b *testing.B) {
	for _, n := range []int{16384, 131072} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			cfg := []byte(denseConfig(n))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Predict(Input{ConfigYAML: cfg}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "req/s")
		})
	}
}

// BenchmarkConversationTrace replays the Mooncake conversation trace (../shared/traces,
// skipped when absent) on 8 replicas with the KV router and polynomial timing.
func BenchmarkConversationTrace(b *testing.B) {
	const trace = "../../shared/traces/conversation_trace.jsonl"
	data, err := os.ReadFile(trace)
	if err != nil {
		b.Skip("shared traces not available")
	}
	files := fstest.MapFS{"conversation_trace.jsonl": {Data: data}}
	cfg := []byte(`
traffic:
  source: {type: trace, format: mooncake, paths: [conversation_trace.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  workers:
    aggregated:
      parallelism: {replicas: 8}
      kv_cache: {capacity: {type: fixed, blocks: 16384}}
      timing: {type: polynomial}
router: {policy: kv_router}
`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		out, err := Predict(Input{ConfigYAML: cfg, Files: files})
		if err != nil {
			b.Fatal(err)
		}
		if out.Summary["completed_requests"] != int64(12031) {
			b.Fatalf("completed %v", out.Summary["completed_requests"])
		}
	}
}
