package rows

import (
	"fmt"
	"strings"

	"aisimulate/simcore"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// ConfigYAML is the prediction configuration that replays a measured row through the
// simulator: synthetic ISL/OSL at the row's concurrency, 10 requests per concurrency slot,
// prefix caching off, max_sequences ≥ the per-rank concurrency, the row's (repaired)
// parallelism and quantisation, default timing and capacity. t supplies the repaired
// parallelism (Build); nil uses the row's columns as they are.
func ConfigYAML(r *Row, t *Timings) string {
	var b strings.Builder
	fmt.Fprintf(&b, "traffic:\n  source: {type: synthetic, input_tokens: %d, output_tokens: %d", r.ISL, r.OSL)
	if Spread > 0 && Spread < 1 {
		// Lengths vary per request as the measuring client drew them (Lengths).
		fmt.Fprintf(&b, ", lengths: {distribution: %s, min_ratio: %g}", spec.LengthsUniform, Spread)
	}
	fmt.Fprintf(&b, "}\n  load: {type: concurrency, concurrency: %d}\n  stop: {requests: %d}\n", r.Concurrency, 10*r.Concurrency)
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
	role := func(name string, workers int, p spec.Parallelism, fraction float64) {
		p = perf.CleanParallelism(p)
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
		if fraction > 0 {
			fmt.Fprintf(&b, "      kv_cache: {prefix_caching: false, capacity: {type: default, memory_fraction: %g}}\n", fraction)
		} else {
			b.WriteString("      kv_cache: {prefix_caching: false, capacity: {type: default}}\n")
		}
		b.WriteString("      timing: {type: default}\n")
	}
	if r.Mode == "disagg" {
		pp, dp, pw, dw := r.Prefill.Par, r.Decode.Par, r.Prefill.Workers, r.Decode.Workers
		var pf, df float64
		if t != nil {
			pp, dp, pw, dw, pf, df = t.PrefillPar, t.DecodePar, t.PrefillWorkers, t.DecodeWorkers, t.PrefillFraction, t.DecodeFraction
		}
		role("prefill", pw, pp, pf)
		role("decode", dw, dp, df)
	} else {
		p, workers, f := r.Agg.Par, 1, 0.0
		if t != nil {
			p, workers, f = t.AggPar, t.AggWorkers, t.AggFraction
		}
		role("aggregated", workers, p, f)
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

// Spread, when in (0, 1), makes every replayed request draw its prompt and output lengths
// uniformly from [Spread·L, L] (L = the row's nominal ISL / OSL), as serving benchmarks with
// a random range ratio do; 0 (the default, what the replay rules ask for) replays
// constant lengths. Constant lengths keep the closed loop's waves synchronised, which is what
// the measured TTFT growth with concurrency shows (docs/timing.md).
var Spread = 0.0

// MeanLengths are the mean prompt and output lengths of r's replayed requests: with Spread in
// (0, 1) the mean of the uniform draw of Lengths, (floor(Spread·L) + L) / 2 (921 for L = 1024),
// else the nominal lengths. The calibration surrogate replays these constant lengths, so its
// passes carry the tokens the simulator's varied requests carry on average.
func (r *Row) MeanLengths() (isl, osl int) {
	mean := func(l int) int {
		if Spread <= 0 || Spread >= 1 {
			return l
		}
		return (max(int(Spread*float64(l)), 1) + l) / 2
	}
	return mean(r.ISL), mean(r.OSL)
}

// Lengths returns the prompt and output lengths of the first n requests of a replay: uniform
// in [Spread·L, L], the draw of the synthetic source ConfigYAML writes (simcore.DrawLengths),
// so the simulator and the calibration surrogate replay the same requests; constant lengths
// for a Spread outside (0, 1).
func Lengths(r *Row, n int) (in, out []int) {
	var l spec.Lengths
	if Spread > 0 && Spread < 1 {
		l = spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: Spread, MaxRatio: 1}
	}
	return simcore.DrawLengths(l, r.ISL, r.OSL, n)
}
