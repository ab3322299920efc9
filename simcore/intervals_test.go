package simcore

import (
	"os"
	"testing"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/report"
	"aisimulate/simcore/uncertainty"
)

// The quickstart (vLLM, aggregated, 10 clients: group vllm/agg/c1-32) gets the default
// model's bands of that group; the whole intervals object is a golden file (regenerate with
// -update after `make intervals`).
func TestQuickstartIntervalsGolden(t *testing.T) {
	cfg, err := os.ReadFile("../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := predict(t, string(cfg))
	got, err := canon.Pretty(out.Intervals)
	if err != nil {
		t.Fatal(err)
	}
	wantGolden(t, "testdata/quickstart_intervals.json", got)
	g := uncertainty.Group{Backend: "vllm", Mode: uncertainty.ModeAgg, Regime: "c1-32"}
	b, _ := uncertainty.Default(g)
	lo, hi, ok := report.IntervalOf(out.Intervals, report.TTFT.Key(report.Mean))
	wantLo, wantHi := b.TTFT.Interval(out.Summary[report.TTFT.Key(report.Mean)].(float64))
	if !ok || lo != wantLo || hi != wantHi || out.Intervals[report.KeyIntervalGroup] != g.String() {
		t.Errorf("mean TTFT interval [%v, %v] of %v, want [%v, %v] of %s", lo, hi, out.Intervals[report.KeyIntervalGroup], wantLo, wantHi, g)
	}
	if lo > hi {
		t.Errorf("interval [%v, %v] is reversed", lo, hi)
	}
}

// The group follows backend, mode and load: a closed loop by its concurrency per replica, an
// open loop by the requests in flight (Little's law); a fixed timing gets no interval.
func TestIntervalGroupOfAPrediction(t *testing.T) {
	base := `
traffic:
  source: {type: synthetic, input_tokens: 256, output_tokens: 16}
  load: {type: concurrency, concurrency: 40}
  stop: {requests: 80}
engine:
  model: meta-llama/Meta-Llama-3.1-8B
  hardware: h200_sxm
  backend: sglang
  workers:
    aggregated:
      parallelism: {replicas: 2, tensor: 1}
`
	for _, c := range []struct {
		name string
		sets []string
		want any
	}{
		{"per replica", nil, "sglang/agg/c1-32"},
		{"one replica", []string{"engine.workers.aggregated.parallelism.replicas=1"}, "sglang/agg/c33-128"},
		{"trtllm", []string{"engine.backend=trtllm", "engine.workers.aggregated.parallelism.replicas=1"}, "trtllm/agg/c33-128"},
		{"poisson: few in flight", []string{"traffic.load={type: poisson, requests_per_second: 5}"}, "sglang/agg/c1-32"},
		{"fixed timing", []string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: 1, decode_ms: 1}"}, nil},
	} {
		out := predict(t, base, c.sets...)
		var got any
		if out.Intervals != nil {
			got = out.Intervals[report.KeyIntervalGroup]
		}
		if got != c.want {
			t.Errorf("%s: group %v, want %v", c.name, got, c.want)
		}
	}
}
