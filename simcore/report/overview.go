package report

import (
	"strconv"

	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/spec"
)

// Overview is what the readable table (ReadableTable) shows besides the summary: the
// deployment as configured and, when an SLA is set, how many requests met each bound.
type Overview struct {
	// Deployment is the model, GPU, backend, mode and worker groups.
	Deployment Deployment
	// SLA is evaluation.sla, nil when absent.
	SLA *SLA
	// Attainment has one entry per SLA bound that is set, in the order TTFT, ITL, E2E.
	Attainment []BoundAttainment
	// Intervals is prediction.json's `intervals` object, nil when the timing has none.
	Intervals map[string]any
}

// Deployment describes the served model and the workers, as the configuration sets them.
type Deployment struct {
	Model, Hardware, Backend, Mode string
	// Workers lists the worker groups: `aggregated`, or `prefill` then `decode`.
	Workers []WorkerGroup
}

// WorkerGroup is one role's workers.
type WorkerGroup struct {
	Role     string
	Hardware string
	// Replicas is the configured replica count (the Planner may change it during the run).
	Replicas int
	// GPUsPerReplica is the GPUs one worker occupies (the summary's *_gpus_per_worker).
	GPUsPerReplica int
	// Parallelism is the parallelism in short form, e.g. "TP2" or "TP4 PP2 EP8".
	Parallelism string
	// Timing is the pass-time model: default, polynomial or fixed (docs/timing.md).
	Timing string
}

// GPUs is the number of GPUs of the group at its configured replica count.
func (w WorkerGroup) GPUs() int { return w.Replicas * w.GPUsPerReplica }

// BoundAttainment is how many completed requests met one SLA bound.
type BoundAttainment struct {
	// Metric is TTFT, ITL or E2E; BoundMs the bound.
	Metric  string
	BoundMs float64
	// Met of Completed requests met the bound.
	Met, Completed int
}

// NewOverview builds the overview of a run from its configuration, accounting and result.
func NewOverview(cfg *spec.Config, acc Accounting, res *replay.Result) *Overview {
	e := cfg.Engine
	o := &Overview{SLA: acc.SLA, Deployment: Deployment{Model: e.Model, Hardware: e.Hardware, Backend: e.Backend, Mode: e.Mode}}
	group := func(role string, w *spec.Worker, gpus int) {
		if w == nil {
			return
		}
		o.Deployment.Workers = append(o.Deployment.Workers, WorkerGroup{Role: role, Hardware: w.Hardware,
			Replicas: w.Parallelism.Replicas, GPUsPerReplica: gpus, Parallelism: parallelismText(w.Parallelism), Timing: w.Timing.Type})
	}
	if acc.Disaggregated {
		group("prefill", e.Prefill, acc.PrefillGPUsPerWorker)
		group("decode", e.Decode, acc.DecodeGPUsPerWorker)
	} else {
		group("aggregated", e.Aggregated, acc.DecodeGPUsPerWorker)
	}
	if acc.SLA != nil {
		o.Attainment = attainment(acc.SLA, res)
	}
	return o
}

// parallelismText is the short form of a parallelism: TP always, PP, DP (attention data)
// and EP/MoE-TP only when above 1.
func parallelismText(p spec.Parallelism) string {
	s := "TP" + strconv.Itoa(p.Tensor)
	for _, part := range []struct {
		name string
		n    int
	}{{"PP", p.Pipeline}, {"DP", p.AttentionData}, {"MoE-TP", p.MoeTensor}, {"EP", p.MoeExpert}} {
		if part.n > 1 {
			s += " " + part.name + strconv.Itoa(part.n)
		}
	}
	return s
}

// attainment counts, per set bound, the completed requests meeting it, with the per-bound
// tests goodput combines (docs/semantics/outputs.md §4.3): a request without a first token meets no TTFT or
// ITL bound and meets the E2E bound by its terminal time.
func attainment(s *SLA, res *replay.Result) []BoundAttainment {
	var out []BoundAttainment
	if s.HasTTFT {
		out = append(out, BoundAttainment{Metric: "TTFT", BoundMs: s.TTFTMs})
	}
	if s.HasITL {
		out = append(out, BoundAttainment{Metric: "ITL", BoundMs: s.ITLMs})
	}
	if s.HasE2E {
		out = append(out, BoundAttainment{Metric: "E2E", BoundMs: s.E2EMs})
	}
	for i := 0; i < res.Outcomes.Len(); i++ {
		r := res.Outcomes.At(i)
		if !isCompleted(r) {
			continue
		}
		ttft, e2e := nonNeg(r.FirstToken-r.Arrival), nonNeg(r.LastToken-r.Arrival)
		for j := range out {
			out[j].Completed++
			var met bool
			switch out[j].Metric {
			case "TTFT":
				met = r.Tokens >= 1 && ttftMet(s, ttft)
			case "ITL":
				met = r.Tokens >= 1 && itlMet(s, ttft, e2e, r.Tokens)
			case "E2E":
				if r.Tokens >= 1 {
					met = e2eMet(s, e2e)
				} else {
					met = e2eMet(s, r.Terminal-r.Arrival)
				}
			}
			if met {
				out[j].Met++
			}
		}
	}
	return out
}
