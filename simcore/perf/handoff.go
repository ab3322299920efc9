package perf

// Calibrated per-request disaggregated hand-off latencies of the default timing model, in ms:
// the control round trips, connection set-up and decode-side scheduling a KV hand-off costs
// on top of moving the bytes. Where they come from: docs/timing.md (hand-off latency).
const (
	// HandoffSGLangMs is the median excess of measured SGLang disaggregated TTFT over the
	// simulated TTFT without a hand-off latency, at concurrency ≤ 8.
	HandoffSGLangMs = 330.0
	// HandoffTRTLLMMs is the median excess of measured TensorRT-LLM disaggregated TTFT over
	// the simulated TTFT without a hand-off latency, at concurrency ≤ 4 and 1024 output
	// tokens (beyond that the measurements queue for seconds, which no hand-off explains).
	HandoffTRTLLMMs = 150.0
	// HandoffVLLMMs: no measured vLLM disaggregated run at low concurrency exists; vLLM's
	// NIXL hand-off is source-first like TensorRT-LLM's, so it takes TensorRT-LLM's value.
	HandoffVLLMMs = HandoffTRTLLMMs
)

// HandoffMs is kv_transfer.handoff_ms: auto for a backend whose prefill and decode roles
// both use the default timing model (docs/semantics/simulation.md §11.4); 0 for an unknown backend, which
// validation never lets through.
func HandoffMs(backend string) float64 {
	switch backend {
	case "vllm":
		return HandoffVLLMMs
	case "sglang":
		return HandoffSGLangMs
	case "trtllm":
		return HandoffTRTLLMMs
	}
	return 0
}
