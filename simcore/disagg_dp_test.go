package simcore

import (
	"strings"
	"testing"

	"aisimulate/simcore/spec"
)

// Attention DP in disaggregated roles (docs/semantics/simulation.md §11.5 amended): bytes_per_token: auto
// uses the prefill role's per-rank tensor size (Llama-3.1-8B, 8 KV heads: TP 2 → 2·32·4·128·2
// = 65536 B/token, whatever attention_data is), GPUs per worker count tensor × attention_data,
// and two simultaneous requests on dp-2 roles run as E8 (TTFT 1, e2e 4) side by side.
func TestDisaggregatedAttentionDP(t *testing.T) {
	const yaml = "engine: {model: meta-llama/Meta-Llama-3.1-8B-Instruct, hardware: h200_sxm, mode: disaggregated, workers: {prefill: {parallelism: {tensor: 2, attention_data: 2}}, decode: {parallelism: {attention_data: 4}}}}\n"
	cfg, err := spec.LoadConfig([]byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	plan, acc, err := lower(cfg, &Input{})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Transfer.BytesPerToken != 65536 || plan.Prefill.DP != 2 || plan.Decode.DP != 4 {
		t.Errorf("bytes/token %d, dp %d/%d; want 65536, 2/4", plan.Transfer.BytesPerToken, plan.Prefill.DP, plan.Decode.DP)
	}
	if acc.PrefillGPUsPerWorker != 4 || acc.DecodeGPUsPerWorker != 4 {
		t.Errorf("GPUs per worker %d/%d, want 4/4", acc.PrefillGPUsPerWorker, acc.DecodeGPUsPerWorker)
	}

	fixed := isolatedDisaggregated("")
	fixed = strings.Replace(fixed, "    prefill:\n", "    prefill:\n      parallelism: {attention_data: 2}\n", 1)
	fixed = strings.Replace(fixed, "    decode:\n", "    decode:\n      parallelism: {attention_data: 2}\n", 1)
	m := summaryOf(t, predict(t, fixed, "traffic.load.concurrency=2", "traffic.stop.requests=2"))
	wantNum(t, m, "completed_requests", 2)
	wantNum(t, m, "max_ttft_ms", 1)
	wantNum(t, m, "max_e2e_latency_ms", 4)
	wantNum(t, m, "prefill_gpus_per_worker", 2)
	wantNum(t, m, "decode_gpus_per_worker", 2)
}
