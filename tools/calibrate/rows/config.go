package rows

import (
	"fmt"
	"strings"

	"aisimulate/simcore/spec"
)

// ConfigYAML is the prediction configuration that replays a measured row through the
// simulator: synthetic ISL/OSL at the row's concurrency, 10 requests per concurrency slot,
// prefix caching off, max_sequences ≥ the per-rank concurrency, the row's (repaired)
// parallelism and quantisation, default timing and capacity. t supplies the repaired
// parallelism (Build); nil uses the row's columns as they are.
func ConfigYAML(r *Row, t *Timings) string {
	var b strings.Builder
	fmt.Fprintf(&b, "traffic:\n  source: {type: synthetic, input_tokens: %d, output_tokens: %d}\n", r.ISL, r.OSL)
	fmt.Fprintf(&b, "  load: {type: concurrency, concurrency: %d}\n  stop: {requests: %d}\n", r.Concurrency, 10*r.Concurrency)
	mode := "aggregated"
	if r.Mode == "disagg" {
		mode = "disaggregated"
	}
	fmt.Fprintf(&b, "engine:\n  mode: %s\n  model: %s\n  hardware: %s\n  backend: %s\n", mode, yq(r.Model), r.System, r.Backend)
	q := r.Quant()
	if q.Gemm != "" {
		fmt.Fprintf(&b, "  gemm_quant_mode: %s\n", q.Gemm)
	}
	if q.MoE != "" {
		fmt.Fprintf(&b, "  moe_quant_mode: %s\n", q.MoE)
	}
	if q.KVCache != "" {
		fmt.Fprintf(&b, "  kvcache_quant_mode: %s\n", q.KVCache)
	}
	b.WriteString("  workers:\n")
	role := func(name string, workers int, p spec.Parallelism) {
		p = clean(p)
		if workers < 1 {
			workers = 1
		}
		seqs := (r.Concurrency + p.AttentionData*workers - 1) / (p.AttentionData * workers)
		if seqs < 256 {
			seqs = 256
		}
		fmt.Fprintf(&b, "    %s:\n", name)
		fmt.Fprintf(&b, "      parallelism: {replicas: %d, tensor: %d, pipeline: %d, attention_data: %d, moe_tensor: %d, moe_expert: %d}\n",
			workers, p.Tensor, p.Pipeline, p.AttentionData, p.MoeTensor, p.MoeExpert)
		fmt.Fprintf(&b, "      scheduler: {max_sequences: %d}\n", seqs)
		b.WriteString("      kv_cache: {prefix_caching: false, capacity: {type: default}}\n")
		b.WriteString("      timing: {type: default}\n")
	}
	if r.Mode == "disagg" {
		pp, dp := r.Prefill.Par, r.Decode.Par
		if t != nil {
			pp, dp = t.PrefillPar, t.DecodePar
		}
		role("prefill", r.Prefill.Workers, pp)
		role("decode", r.Decode.Workers, dp)
	} else {
		p := r.Agg.Par
		if t != nil {
			p = t.AggPar
		}
		role("aggregated", 1, p)
	}
	return b.String()
}

// yq quotes a YAML scalar when it could be misread.
func yq(s string) string {
	if strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`") || s == "" {
		return "\"" + strings.ReplaceAll(s, "\"", "\\\"") + "\""
	}
	return s
}
