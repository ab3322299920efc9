package report

import "strings"

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
	// Uncalibrated is the default model's summary when a calibration profile applied
	// (prediction.json's `uncalibrated`), nil otherwise.
	Uncalibrated map[string]any
}

// Deployment describes the served model and the workers, as the configuration sets them.
type Deployment struct {
	Model, Hardware, Backend, Mode string
	// CatalogModel is the catalog id Model resolved to when it differs from Model (an alias
	// such as llama-3.1-8b), else "".
	CatalogModel string
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

// ModelText is the model as the readable table and the browser app echo it: the catalog id
// an alias resolved to, followed by the id as given ("meta-llama/Meta-Llama-3.1-8B (given as
// llama-3.1-8b)"), or the id itself.
func (d Deployment) ModelText() string {
	if d.CatalogModel == "" {
		return d.Model
	}
	return d.CatalogModel + " (given as " + d.Model + ")"
}

// GPUs is the number of GPUs of every group at its configured replica count.
func (d Deployment) GPUs() int {
	n := 0
	for _, w := range d.Workers {
		n += w.GPUs()
	}
	return n
}

// HardwareLine is "h200_sxm × 2 GPUs, vllm, aggregated": what the deployment runs on, as the
// readable table and the browser app show it.
func (d Deployment) HardwareLine() string {
	return d.Hardware + " × " + plural(d.GPUs(), "GPU") + ", " + d.Backend + ", " + d.Mode
}

// Line is "decode: 2 replicas × TP4 on b200_sxm, fixed timing": the group's replicas and
// parallelism (its GPU when it differs from the deployment's), and its timing model.
func (w WorkerGroup) Line(deploymentHardware string) string {
	text := w.Role + ": " + plural(w.Replicas, "replica") + " × " + w.Parallelism
	if w.Hardware != "" && w.Hardware != deploymentHardware {
		text += " on " + w.Hardware
	}
	return text + ", " + w.Timing + " timing"
}

// BoundAttainment is how many completed requests met one SLA bound.
type BoundAttainment struct {
	// Metric is TTFT, ITL or E2E; BoundMs the bound.
	Metric  string
	BoundMs float64
	// Met of Completed requests met the bound.
	Met, Completed int
}

// Label is the bound as written for people: "TTFT ≤ 200 ms", and for ITL "ITL (request mean)
// ≤ 20 ms", since the bound tests each request's mean gap, not the pooled gaps of the Inter
// Token Latency statistics (docs/semantics/outputs.md §4.3).
func (a BoundAttainment) Label() string {
	name := a.Metric
	if name == "ITL" {
		name = "ITL (request mean)"
	}
	return name + " ≤ " + trimNumber(a.BoundMs) + " ms"
}

// Share is the share of completed requests meeting the bound, "80.0%" ("n/a" without any).
func (a BoundAttainment) Share() string { return Share(float64(a.Met), float64(a.Completed)) }

// SLA is the goodput bounds of evaluation.sla (docs/semantics/outputs.md §4.3); zero fields
// are unset.
type SLA struct {
	TTFTMs, ITLMs, E2EMs    float64
	HasTTFT, HasITL, HasE2E bool
}

// Text is the deployment in one line, as the browser app and the docs embed echo it: the
// model (ModelText), the hardware line, then each group's Line, joined by " · ".
func (d Deployment) Text() string {
	parts := []string{d.ModelText(), d.HardwareLine()}
	for _, w := range d.Workers {
		parts = append(parts, w.Line(d.Hardware))
	}
	return strings.Join(parts, " · ")
}

// SLAShare is one SLA card: an id, a label and the share of completed requests.
type SLAShare struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Share string `json:"share"`
}

// SLAShares are the SLA cards of the readable table's SLA and goodput lines: the share of
// completed requests meeting each bound ("sla-ttft", "sla-itl", "sla-e2e"), then the share
// meeting all of them ("goodput-share", when the summary has the goodput count); summary
// looks a summary key up.
func (o *Overview) SLAShares(summary func(key string) (float64, bool)) []SLAShare {
	var out []SLAShare
	for _, b := range o.Attainment {
		out = append(out, SLAShare{ID: "sla-" + strings.ToLower(b.Metric), Label: b.Label(), Share: b.Share()})
	}
	if good, ok := summary(KeyGoodputCompletedRequests); ok {
		done, _ := summary(KeyCompletedRequests)
		out = append(out, SLAShare{ID: "goodput-share", Label: "Met every SLA bound", Share: Share(good, done)})
	}
	return out
}
