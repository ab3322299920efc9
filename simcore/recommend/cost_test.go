package recommend

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

// A disaggregated run priced per role: 2 prefill workers of 1 GPU on h100 for 3,600 s and
// 1 decode worker of 2 GPUs on h200 for 3,600 s is 2·2.9 + 2·3.7 = 13.2 USD in one hour;
// 1,000,000 output tokens of which half met the SLA.
func TestCostOf(t *testing.T) {
	rec := &spec.Recommendation{Optimization: spec.Optimization{GPUHourCost: map[string]float64{"h100_sxm": 2.9, "h200_sxm": 3.7}}}
	summary := map[string]any{
		"prefill_worker_seconds": 7200.0, "prefill_gpus_per_worker": 1,
		"decode_worker_seconds": 3600.0, "decode_gpus_per_worker": 2,
		"duration_ms": 3.6e6, "total_output_tokens": 1_000_000, "goodput_output_throughput_tok_s": 500_000.0 / 3600,
	}
	c, ok := CostOf(rec, RoleHardware{Prefill: "h100_sxm", Decode: "h200_sxm"}, summary)
	if !ok || math.Abs(c.USDPerHour-13.2) > 1e-12 || math.Abs(c.USDPerMTok-13.2) > 1e-12 || math.Abs(c.USDPerGoodMTok-26.4) > 1e-9 {
		t.Errorf("cost %+v", c)
	}
	summary["goodput_output_throughput_tok_s"] = 0.0
	if c, _ := CostOf(rec, RoleHardware{Prefill: "h100_sxm", Decode: "h200_sxm"}, summary); !math.IsInf(c.USDPerGoodMTok, 1) {
		t.Errorf("no good tokens: %v per million, want +Inf", c.USDPerGoodMTok)
	}
	if _, ok := CostOf(&spec.Recommendation{}, RoleHardware{}, summary); ok {
		t.Error("priced without gpu_hour_cost")
	}
	tree := map[string]any{"engine": map[string]any{"mode": "disaggregated", "hardware": "h200_sxm",
		"workers": map[string]any{"prefill": map[string]any{"hardware": "h100_sxm"}, "decode": map[string]any{}}}}
	if hw := HardwareOf(tree); hw != (RoleHardware{Prefill: "h100_sxm", Decode: "h200_sxm"}) {
		t.Errorf("HardwareOf = %+v", hw)
	}
}
