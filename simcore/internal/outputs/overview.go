package outputs

import (
	"strconv"

	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// NewOverview builds the overview of a run from its configuration, accounting and result.
func NewOverview(cfg *spec.Config, acc Accounting, res *replay.Result) *report.Overview {
	e := cfg.Engine
	o := &report.Overview{SLA: acc.SLA, Deployment: report.Deployment{Model: e.Model, Hardware: e.Hardware, Backend: e.Backend, Mode: e.Mode}}
	if acc.CatalogModel != e.Model {
		o.Deployment.CatalogModel = acc.CatalogModel
	}
	group := func(role string, w *spec.Worker, gpus int) {
		if w == nil {
			return
		}
		o.Deployment.Workers = append(o.Deployment.Workers, report.WorkerGroup{Role: role, Hardware: w.Hardware,
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
func attainment(s *report.SLA, res *replay.Result) []report.BoundAttainment {
	var out []report.BoundAttainment
	if s.HasTTFT {
		out = append(out, report.BoundAttainment{Metric: "TTFT", BoundMs: s.TTFTMs})
	}
	if s.HasITL {
		out = append(out, report.BoundAttainment{Metric: "ITL", BoundMs: s.ITLMs})
	}
	if s.HasE2E {
		out = append(out, report.BoundAttainment{Metric: "E2E", BoundMs: s.E2EMs})
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
