package calibration

import (
	"strconv"
	"strings"
	"testing"

	"aisimulate/simcore/measure"
	"aisimulate/simcore/spec"
)

// The recipes' receive interval: 10 below concurrency 16 and 30 from it for closed-loop
// aggregated SGLang rows of DeepSeek-R1/V3 and Qwen3.5 on B200/B300; none for any other
// model, GPU, backend, mode or an open loop. RowConfig writes it where there is one.
func TestRecipeRecvInterval(t *testing.T) {
	row := func(edit func(r *measure.Row)) *measure.Measurement {
		r := &measure.Row{ID: "r", Backend: "sglang", Model: "deepseek-ai/DeepSeek-R1", System: "b200_sxm", Mode: measure.ModeAgg,
			Concurrency: 8, ISL: 1024, OSL: 1024, Agg: measure.Role{Par: spec.Parallelism{Tensor: 8}}}
		edit(r)
		return &measure.Measurement{ID: r.ID, Row: r, Model: r.Model, Backend: r.Backend, Concurrency: r.Concurrency, ISL: r.ISL, OSL: r.OSL}
	}
	for _, c := range []struct {
		name string
		edit func(r *measure.Row)
		want int
	}{
		{"DeepSeek-R1 B200 c8", func(r *measure.Row) {}, 10},
		{"DeepSeek-R1 B200 c15", func(r *measure.Row) { r.Concurrency = 15 }, 10},
		{"DeepSeek-R1 B200 c16", func(r *measure.Row) { r.Concurrency = 16 }, 30},
		{"DeepSeek-V3 B300 c128", func(r *measure.Row) { r.Model, r.System, r.Concurrency = "deepseek-ai/DeepSeek-V3", "b300_sxm", 128 }, 30},
		{"Qwen3.5 B200 c4", func(r *measure.Row) { r.Model, r.Concurrency = "Qwen/Qwen3.5-397B-A17B", 4 }, 10},
		{"GLM-5 B200", func(r *measure.Row) { r.Model = "zhipuai/GLM-5" }, 0},
		{"H200", func(r *measure.Row) { r.System = "h200_sxm" }, 0},
		{"vLLM", func(r *measure.Row) { r.Backend = "vllm" }, 0},
		{"disaggregated", func(r *measure.Row) { r.Mode = measure.ModeDisagg }, 0},
		{"open loop", func(r *measure.Row) { r.Concurrency = 0 }, 0},
	} {
		m := row(c.edit)
		if got := RecipeRecvInterval(m); got != c.want {
			t.Errorf("%s: interval %d, want %d", c.name, got, c.want)
		}
		if m.Concurrency == 0 {
			m.RequestRate = 1
		}
		yaml := string(spec.EmitYAML(RowConfig(m)))
		want := "recv_interval: " + strconv.Itoa(c.want) + "\n"
		if has := strings.Contains(yaml, want); has != (c.want > 0) || c.want == 0 && strings.Contains(yaml, "recv_interval") {
			t.Errorf("%s: row configuration with %q: %v, want %v:\n%s", c.name, want, has, c.want > 0, yaml)
		}
	}
}
