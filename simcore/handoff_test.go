package simcore

import (
	"testing"

	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// kv_transfer.handoff_ms: a number is used as is; auto is the default timing model's
// per-backend value when both roles use default timing, else 0 (docs/semantics/simulation.md §11.4).
func TestHandoffMsResolution(t *testing.T) {
	const defaultDisagg = "engine: {model: meta-llama/Meta-Llama-3.1-8B-Instruct, hardware: h200_sxm, mode: disaggregated, workers: {prefill: {}, decode: {}}}\n"
	for _, tc := range []struct {
		name string
		sets []string
		want float64
	}{
		{"auto vllm", nil, perf.HandoffMs("vllm")},
		{"auto sglang", []string{"engine.backend=sglang"}, perf.HandoffMs("sglang")},
		{"auto trtllm", []string{"engine.backend=trtllm"}, perf.HandoffMs("trtllm")},
		{"explicit", []string{"engine.kv_transfer={handoff_ms: 12.5}"}, 12.5},
		{"explicit zero", []string{"engine.backend=sglang", "engine.kv_transfer={handoff_ms: 0}"}, 0},
		{"auto with fixed prefill timing", []string{"engine.backend=sglang", "engine.workers.prefill.timing={type: fixed, prefill_ms: 1, decode_ms: 1}"}, 0},
		{"auto with polynomial decode timing", []string{"engine.backend=sglang", "engine.workers.decode.timing={type: polynomial}"}, 0},
	} {
		cfg, err := spec.LoadConfig([]byte(defaultDisagg), tc.sets)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		plan, _, err := lower(cfg, &Input{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if plan.Transfer.HandoffMs != tc.want {
			t.Errorf("%s: handoff %g ms, want %g", tc.name, plan.Transfer.HandoffMs, tc.want)
		}
	}
	for _, b := range perf.Backends {
		if _, ok := perf.DefaultCalibration().HandoffMs[b]; !ok {
			t.Errorf("the calibration has no hand-off latency for %s", b)
		}
	}
	if perf.HandoffMs("sglang") <= 0 {
		t.Error("SGLang's calibrated hand-off latency is not positive")
	}
}

// A fixed-timing run with handoff_ms shifts E8's TTFT and e2e by exactly that much.
func TestHandoffMsPredict(t *testing.T) {
	m := summaryOf(t, predict(t, isolatedDisaggregated(""), "engine.kv_transfer={handoff_ms: 12.5}"))
	wantNum(t, m, "mean_ttft_ms", 13.5)
	wantNum(t, m, "mean_e2e_latency_ms", 16.5)
}

// TensorRT-LLM runs disaggregated (docs/semantics/simulation.md §7 amended): E8 gives TTFT 1 and e2e 4.
func TestTRTLLMDisaggregatedE8(t *testing.T) {
	m := summaryOf(t, predict(t, isolatedDisaggregated("  backend: trtllm\n")))
	wantNum(t, m, "completed_requests", 1)
	wantNum(t, m, "mean_ttft_ms", 1)
	wantNum(t, m, "mean_e2e_latency_ms", 4)
}
