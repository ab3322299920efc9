package deploy

import (
	"fmt"

	"aisimulate/simcore/spec"
)

// notModelled is what no simulation of this simulator models, whatever the deployment
// (docs/semantics/simulation.md describes what it does model).
var notModelled = []string{
	"Start-up: pulling images, loading weights and capturing CUDA graphs (the simulation starts with every worker ready, or after `startup_seconds` for planner-added workers).",
	"Failures, restarts and Kubernetes scheduling; the frontend's own CPU limits beyond the frontend latency.",
	"Traffic other than the configured workload: real prompts, lengths and arrival times differ.",
	"Sampling parameters, structured output, LoRA adapters and speculative decoding (other than `nextn` MTP drafts).",
}

// caveats are the README's list: the fixed list, then what this deployment's configuration
// or backend cannot carry from the simulation to the real servers.
func (d *deployment) caveats() []string {
	c := append([]string(nil), notModelled...)
	e := d.cfg.Engine
	if d.localModel {
		c = append(c, "`engine.model` is not a catalog model (a local directory): the manifest names it as given; put the weights where every worker can read them and change `--model`/`--model-path`.")
	}
	for _, r := range d.roles {
		p := r.w.Parallelism
		if r.w.Timing.Type != spec.TimingDefault {
			c = append(c, fmt.Sprintf("The %s role used `%s` timing: its figures come from the pass times the configuration gives, not from the GPU model.", r.name, r.w.Timing.Type))
		}
		if p.Pipeline > 1 {
			c = append(c, fmt.Sprintf("The %s role has pipeline parallelism %d: a worker needs %d GPUs, while the simulation's GPU accounting counts tensor × attention data (%d) per worker.", r.name, p.Pipeline, r.gpus, p.Tensor*max(1, p.AttentionData)))
		}
		if r.nodes > 1 && r.gpus%r.gpusPerNode != 0 {
			c = append(c, fmt.Sprintf("A %s worker needs %d GPUs, which nodes of %d do not split evenly; Dynamo's multinode places the same number on every node.", r.name, r.gpus, r.gpusPerNode))
		}
		if r.nodes > 1 {
			c = append(c, fmt.Sprintf("A %s worker spans %d nodes: the simulation priced its collectives with the catalog's inter-node bandwidth only.", r.name, r.nodes))
		}
		switch d.backend {
		case spec.BackendVLLM:
			if p.MoeExpert > 1 && p.MoeExpert != p.Tensor*max(1, p.AttentionData) {
				c = append(c, fmt.Sprintf("vLLM splits experts over all of a worker's ranks (`--enable-expert-parallel`), not the simulated %d-way expert × %d-way MoE tensor split of the %s role.", p.MoeExpert, p.MoeTensor, r.name))
			}
		case spec.BackendSGLang:
			if r.w.Scheduler.PrefillDecodeInterval > 0 {
				c = append(c, fmt.Sprintf("SGLang has no option for the %s role's `prefill_decode_interval` %d; the servers run without it.", r.name, r.w.Scheduler.PrefillDecodeInterval))
			}
		case spec.BackendTRTLLM:
			if p.AttentionData > 1 && p.Tensor > 1 {
				c = append(c, fmt.Sprintf("TensorRT-LLM's attention data parallelism gives every rank its own attention: the %s role's tensor %d inside each attention-DP group is written as %d attention-DP ranks.", r.name, p.Tensor, p.Tensor*p.AttentionData))
			}
		}
	}
	if d.backend == spec.BackendSGLang {
		c = append(c, fmt.Sprintf("SGLang takes no `max_batched_tokens`: its prompt chunk is `--chunked-prefill-size %d`, the value the simulation uses (docs/semantics/simulation.md §8).", sglangChunkedPrefillSize))
	}
	if m := e.KVCacheQuantMode; m != "" && d.kvDtype() == "auto" && m != "bf16" {
		c = append(c, fmt.Sprintf("%s has no KV cache data type for `kvcache_quant_mode: %s`; the servers use the checkpoint's (`auto`).", d.backend, m))
	}
	if e.Mode == spec.ModeDisaggregated {
		if e.KVTransfer == nil || e.KVTransfer.BandwidthGBPerSecond == nil {
			c = append(c, "KV transfer between prefill and decode cost no time in the simulation (`engine.kv_transfer.bandwidth_gb_per_second` unset) beyond the hand-off latency; NIXL transfers take real time.")
		} else {
			c = append(c, fmt.Sprintf("KV transfer was simulated at %s GB/s; NIXL's rate depends on the network between the prefill and decode nodes.", ftoa(*e.KVTransfer.BandwidthGBPerSecond)))
		}
	}
	if p := d.cfg.Planner; p.Policy == spec.PlannerEnabled {
		if p.PrefillMinWorkers != nil || p.DecodeMinWorkers != nil {
			c = append(c, "Dynamo's planner has one minimum worker count (`min_endpoint`); the simulated per-role minimums are not carried over.")
		}
		if p.Target != spec.TargetSLA && !p.EnableLoadScaling {
			c = append(c, fmt.Sprintf("Dynamo's planner turns load scaling on for target `%s`; the simulation ran without it.", p.Target))
		}
		if p.EnableThroughputScaling {
			c = append(c, "Throughput scaling needs the engines profiled before deployment (`pre_deployment_sweeping_mode: rapid`); the simulation used its own timing model instead of a profile.")
		}
	}
	return c
}
