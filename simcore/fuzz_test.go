package simcore

import (
	"errors"
	"fmt"
	"testing"

	"aisimulate/simcore/spec"
)

// FuzzPredictKnobs drives small but extreme scheduler, cache and traffic knobs through the
// whole pipeline: a configuration is either rejected with a *spec.Error or simulated to the
// end (every request terminal) — never a panic, a hang or another error.
func FuzzPredictKnobs(f *testing.F) {
	f.Add(uint8(0), uint16(32), uint16(4), uint8(2), uint16(8192), uint16(256), uint8(64), uint16(256), uint8(1), uint8(0), uint8(0))
	f.Add(uint8(1), uint16(1), uint16(1), uint8(1), uint16(1), uint16(1), uint8(1), uint16(1), uint8(1), uint8(1), uint8(1))
	f.Add(uint8(2), uint16(500), uint16(90), uint8(7), uint16(64), uint16(3), uint8(16), uint16(40), uint8(2), uint8(2), uint8(1))
	// SGLang chunked prefill of a 9,001-token prompt, alone on its rank, then with sessions
	// and the KV router.
	f.Add(uint8(1), uint16(9000), uint16(50), uint8(0), uint16(8192), uint16(64), uint8(1), uint16(400), uint8(0), uint8(0), uint8(4))
	f.Add(uint8(1), uint16(9000), uint16(50), uint8(3), uint16(8192), uint16(64), uint8(1), uint16(400), uint8(1), uint8(0), uint8(7))
	// vLLM sessions with shared prefixes under KV pressure (shared, unique and dead blocks).
	f.Add(uint8(0), uint16(700), uint16(60), uint8(6), uint16(2048), uint16(64), uint8(15), uint16(200), uint8(2), uint8(0), uint8(3))
	f.Add(uint8(0), uint16(100), uint16(40), uint8(4), uint16(8192), uint16(256), uint8(16), uint16(12), uint8(1), uint8(1), uint8(8+16))
	f.Add(uint8(2), uint16(64), uint16(30), uint8(5), uint16(8192), uint16(256), uint8(16), uint16(9), uint8(1), uint8(1), uint8(16+1))
	f.Add(uint8(1), uint16(300), uint16(30), uint8(6), uint16(8192), uint16(256), uint8(1), uint16(400), uint8(0), uint8(1), uint8(8+16+2))
	f.Fuzz(func(t *testing.T, backend uint8, isl, osl uint16, conc uint8, mbt, maxSeq uint16, bs uint8, blocks uint16, replicas, dp, router uint8) {
		b := []string{"vllm", "sglang", "trtllm"}[backend%3]
		if b == "sglang" {
			bs = 1
		}
		// router's higher bits pick the source shape: multi-turn sessions sharing prefix
		// blocks (shared, unique and dead KV blocks side by side), and long prompts that
		// SGLang prefills in chunks.
		inputs, outputs, capacity := int(isl)%3000+1, int(osl)%200+1, int(blocks)%600+1
		if router&4 != 0 {
			inputs = int(isl)%12000 + 1
			if b == "sglang" {
				capacity *= 32 // pages of one token
			}
		}
		source := fmt.Sprintf("{type: synthetic, input_tokens: %d, output_tokens: %d}", inputs, outputs)
		stop := "{requests: 12}"
		requests := 12
		if router&2 != 0 {
			source = fmt.Sprintf("{type: synthetic-session, new_input_tokens_per_turn: %d, output_tokens_per_turn: %d, session: {turns: 2, shared_prefix_ratio: 0.5, prefix_groups: 2}}", inputs, outputs)
			stop, requests = "{sessions: 6}", 12
		}
		worker := fmt.Sprintf(`
      parallelism: {replicas: %d, attention_data: %d}
      scheduler: {max_batched_tokens: %d, max_sequences: %d}
      kv_cache: {block_size: %d, capacity: {type: fixed, blocks: %d}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}`, int(replicas)%3+1, int(dp)%2+1, int(mbt)%9000+1, int(maxSeq)%300+1,
			int(bs)%128+1, capacity)
		// Higher bits still: MTP bursts (docs/semantics/simulation.md §5.4), and disaggregated serving with
		// both roles alike and a hand-off latency (docs/semantics/simulation.md §11.4, §11.5).
		extra, workers := "", "\n    aggregated:"+worker
		if router&8 != 0 {
			extra += "  nextn: 2\n  nextn_accept_rates: [0.7, 0.5]\n"
		}
		if router&16 != 0 {
			extra += "  mode: disaggregated\n  kv_transfer: {handoff_ms: 0.5}\n"
			workers = "\n    prefill:" + worker + "\n    decode:" + worker
		}
		cfg := fmt.Sprintf(`
traffic:
  source: %s
  load: {type: concurrency, concurrency: %d}
  stop: %s
engine:
%s  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: %s
  context_length: 16384
  workers:%s
router: {policy: %s}
`, source, int(conc)%16+1, stop, extra, b, workers, []string{"round_robin", "kv_router"}[router%2])
		out, err := Predict(Input{ConfigYAML: []byte(cfg)})
		if err != nil {
			var se *spec.Error
			if !errors.As(err, &se) {
				t.Fatalf("non-configuration error %v\n%s", err, cfg)
			}
			return
		}
		if out.Summary["num_requests"] != requests {
			t.Fatalf("num_requests %v\n%s", out.Summary["num_requests"], cfg)
		}
	})
}
