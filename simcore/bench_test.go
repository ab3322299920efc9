package simcore

import (
	"fmt"
	"testing"
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
