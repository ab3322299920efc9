package deploy

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// title is the one-line description of the deployment.
func (d *deployment) title() string {
	return fmt.Sprintf("%s: %s, %s %s, %d GPUs", d.name, oneLine(d.model), d.backend, d.cfg.Engine.Mode, d.totalGPUs())
}

// figureRow is one predicted figure of the README: its label and summary key.
type figureRow struct{ label, key string }

// figures are the predicted figures the README lists, in order; a key the summary lacks (no
// SLA, no goodput) is left out.
var figures = []figureRow{
	{"TTFT mean (ms)", report.TTFT.Key(report.Mean)},
	{"TTFT p90 (ms)", report.TTFT.Key(report.P90)},
	{"ITL mean (ms)", report.ITL.Key(report.Mean)},
	{"TPOT mean (ms)", report.TPOT.Key(report.Mean)},
	{"E2E latency mean (ms)", report.E2ELatency.Key(report.Mean)},
	{"E2E latency p90 (ms)", report.E2ELatency.Key(report.P90)},
	{"output throughput (tokens/s)", report.KeyOutputThroughputTokS},
	{"request throughput (requests/s)", report.KeyRequestThroughputRPS},
	{"goodput (output tokens/s)", report.KeyGoodputOutputThroughputTokS},
	{"goodput (requests/s)", report.KeyGoodputRequestThroughputRPS},
	{"completed requests", report.KeyCompletedRequests},
	{"GPU-hours", report.KeyGPUHours},
}

// number reads a JSON number of a summary or intervals object (float64 after decoding, an
// integer type when built in process).
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// figure formats a predicted value: whole numbers as integers, one decimal from 1 up, three
// significant digits below.
func figure(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if math.Abs(v) >= 1 {
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// readme is README.md: what was chosen, the predicted figures with their intervals, how to
// deploy, and what the simulation did not model.
func (d *deployment) readme() []byte {
	var b strings.Builder
	e := d.cfg.Engine
	fmt.Fprintf(&b, "# Deployment %04d: %s\n\n", d.in.Number, d.name)
	if d.in.Heading != "" {
		b.WriteString(d.in.Heading + ". ")
	}
	fmt.Fprintf(&b, "Written by aisimulate from `%s` (docs/artifacts.md).\n\n## What was chosen\n\n", mdCode(d.in.Source))
	fmt.Fprintf(&b, "- model: `%s`\n", mdCode(d.model))
	fmt.Fprintf(&b, "- backend: %s, %s serving, %d GPUs in all\n", d.backend, e.Mode, d.totalGPUs())
	fmt.Fprintf(&b, "- router: %s\n", d.routerText())
	fmt.Fprintf(&b, "- planner: %s\n\n", d.plannerText())
	b.WriteString("| role | replicas | GPU | GPUs per worker | tensor | pipeline | attention data | MoE tensor | MoE expert | max batched tokens | max sequences | block size | prefix caching | KV memory |\n")
	b.WriteString("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |\n")
	for _, r := range d.roles {
		p, s, kv := r.w.Parallelism, r.w.Scheduler, r.w.KVCache
		mem := "fraction " + ftoa(kv.Capacity.MemoryFraction)
		switch {
		case !defaultCapacity(r):
			mem = itoa(kv.Capacity.Blocks) + " blocks"
		case kv.Capacity.MemoryFraction == 0:
			mem = "derived from the GPU"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %t | %s |\n",
			r.name, p.Replicas, mdCode(r.hardware), r.gpus, p.Tensor, p.Pipeline, p.AttentionData, p.MoeTensor, p.MoeExpert,
			s.MaxBatchedTokens, s.MaxSequences, kv.BlockSize, kv.PrefixCaching, mem)
	}
	b.WriteString("\n## Predicted figures\n\n")
	d.writeFigures(&b)
	b.WriteString("\n## Files\n\n")
	fmt.Fprintf(&b, "- `%s`: the DynamoGraphDeployment (Dynamo %s images). Create the Hugging Face token secret, then apply it:\n\n", ManifestName, DynamoVersion)
	fmt.Fprintf(&b, "  ```sh\n  kubectl create secret generic %s -n <namespace> --from-literal=HF_TOKEN=<token>\n  kubectl apply -n <namespace> -f %s\n  ```\n\n", hfTokenSecret, ManifestName)
	fmt.Fprintf(&b, "  The frontend serves the OpenAI API on port %d.\n", frontendPort)
	for _, r := range d.roles {
		fmt.Fprintf(&b, "- `launch/%s.sh`: one %s worker with the engine alone (%s)", r.name, r.name, d.serverName())
		if d.backend == spec.BackendTRTLLM {
			fmt.Fprintf(&b, "; `launch/%s.yaml` holds its engine options, the same file the manifest mounts", r.name)
		}
		b.WriteString(".\n")
	}
	b.WriteString("\n## What the simulation did not model\n\n")
	for _, c := range d.caveats() {
		b.WriteString("- " + c + "\n")
	}
	return []byte(b.String())
}

// writeFigures writes the table of predicted figures, with the 80 % interval of each mean
// the intervals object gives (prediction.json's `intervals`).
func (d *deployment) writeFigures(b *strings.Builder) {
	if d.in.Intervals != nil {
		b.WriteString("| figure | predicted | 80 % interval |\n| --- | ---: | --- |\n")
	} else {
		b.WriteString("| figure | predicted |\n| --- | ---: |\n")
	}
	for _, f := range figures {
		v, ok := number(d.in.Summary[f.key])
		if !ok {
			continue
		}
		fmt.Fprintf(b, "| %s | %s |", f.label, figure(v))
		if d.in.Intervals != nil {
			band := "—"
			if iv, isMap := d.in.Intervals[f.key].(map[string]any); isMap {
				lo, okLo := number(iv["p10"])
				hi, okHi := number(iv["p90"])
				if okLo && okHi {
					band = figure(lo) + " – " + figure(hi)
				}
			}
			b.WriteString(" " + band + " |")
		}
		b.WriteString("\n")
	}
	if d.in.Intervals == nil {
		b.WriteString("\nNo error bars: the prediction carries no intervals (fixed or polynomial timing, or a build without them).\n")
	} else {
		b.WriteString("\nThe interval is where a measurement of this deployment lies 8 times in 10, by the timing model's measured error (the intervals the simulation reported with its figures: prediction.json's, or the candidate's in recommendation.json).\n")
	}
}

// serverName is the backend's own server command.
func (d *deployment) serverName() string {
	switch d.backend {
	case spec.BackendVLLM:
		return "`vllm serve`"
	case spec.BackendSGLang:
		return "`python -m sglang.launch_server`"
	}
	return "`trtllm-serve`"
}

// routerText describes the router section.
func (d *deployment) routerText() string {
	r := d.cfg.Router
	if r.Policy != spec.RouterKV {
		return "round robin"
	}
	return fmt.Sprintf("KV router (overlap score credit %s, prefill load scale %s, temperature %s, prefill load model %s)",
		ftoa(r.OverlapScoreCredit), ftoa(r.PrefillLoadScale), ftoa(r.Temperature), r.PrefillLoadModel)
}

// plannerText describes the planner section.
func (d *deployment) plannerText() string {
	p := d.cfg.Planner
	if p.Policy != spec.PlannerEnabled {
		return "disabled (fixed replicas)"
	}
	return fmt.Sprintf("enabled, target %s, throughput scaling %t every %d s, load scaling %t every %d s, predictor %s",
		p.Target, p.EnableThroughputScaling, p.ThroughputAdjustmentIntervalSeconds, p.EnableLoadScaling, p.LoadAdjustmentIntervalSeconds, p.LoadPredictor)
}

// oneLine is s with control characters (line breaks included) replaced by spaces: a
// configuration string (a model directory, a hardware id) written into a comment of a YAML
// file or a shell script cannot end the comment and add a line of its own.
func oneLine(s string) string {
	return strings.Map(func(c rune) rune {
		if c < ' ' || c == 0x7f || c == 0x2028 || c == 0x2029 {
			return ' '
		}
		return c
	}, s)
}

// mdCode makes s safe inside a Markdown code span or table cell: one line, backquotes as
// quotes, bars as slashes.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", "/").Replace(oneLine(s))
}
