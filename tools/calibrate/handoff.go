package main

import (
	"math"

	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/rows"
)

// The hand-off latency (kv_transfer.handoff_ms: auto, docs/semantics/simulation.md §11.4) is fitted per
// backend as its own term, after the group and family coefficients and with the frontend
// latency in place: the median, over the backend's fitted disaggregated rows at concurrency
// ≤ handoffMaxConc, of the measured TTFT minus the surrogate's TTFT without a hand-off, within
// [0, handoffMaxMs]. The median is the L1-optimal constant offset, the fit's loss for one
// additive term. It is estimated apart from the L1 fit because disaggregated TTFT carries no
// weight there (ttftWeight: the surrogate's disaggregated TTFT is a queueing approximation),
// while at such low concurrency a prompt meets at most a few others on its prefill rank, so
// the surrogate's TTFT is the prefill pass plus the frontend latency, as the simulator's is.

// handoffMaxConc is the highest concurrency whose disaggregated rows estimate the hand-off
// latency: beyond it measured TTFT queues (up to seconds for TensorRT-LLM at concurrency 8),
// which no per-request latency explains.
const handoffMaxConc = 4

// handoffMaxMs bounds the hand-off latency (a fixed cost per request of control round trips
// and decode-side scheduling, not a queue).
const handoffMaxMs = 1000.0

// handoffMinRows is the fewest rows a backend's own estimate needs; a backend with fewer
// takes handoffBorrow's value.
const handoffMinRows = 10

// handoffBorrow names, for a backend with too few low-concurrency disaggregated rows, the
// backend whose hand-off latency it takes: vLLM's NIXL hand-off is source-first like
// TensorRT-LLM's (docs/semantics/simulation.md §11.3).
var handoffBorrow = map[string]string{"vllm": "trtllm"}

// fitHandoff sets c.HandoffMs for every backend from the rows ps (the fit's training rows).
func fitHandoff(c *perf.Calibration, ps []*rows.Prepared) {
	res := map[string][]float64{}
	for _, p := range ps {
		r := p.Row
		if r.Mode != "disagg" || r.Concurrency > handoffMaxConc {
			continue
		}
		g, _ := c.Group(r.Backend, p.Family())
		t, _ := p.Predict(g, c.Family(p.Family()), 0)
		res[r.Backend] = append(res[r.Backend], r.TTFT-t)
	}
	c.HandoffMs = map[string]float64{}
	for _, b := range perf.Backends {
		if v := res[b]; len(v) >= handoffMinRows {
			c.HandoffMs[b] = math.Min(handoffMaxMs, math.Max(0, rows.Median(v)))
		}
	}
	for _, b := range perf.Backends {
		if _, ok := c.HandoffMs[b]; !ok {
			c.HandoffMs[b] = c.HandoffMs[handoffBorrow[b]]
		}
	}
}
