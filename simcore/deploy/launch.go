package deploy

import (
	"fmt"
	"strings"

	"aisimulate/simcore/spec"
)

// standaloneCommand is the backend's own server command of a role, before its table's
// options: `vllm serve`, `python -m sglang.launch_server`, `trtllm-serve` (docs/artifacts.md,
// "Launch scripts"). Ports are each server's documented default.
func (d *deployment) standaloneCommand(r role) (cmd []string, rest []string) {
	switch d.backend {
	case spec.BackendVLLM:
		return []string{"vllm", "serve", d.model, "--host", "0.0.0.0", "--port", "8000"}, d.engineArgs(r)
	case spec.BackendSGLang:
		return []string{"python", "-m", "sglang.launch_server", "--model-path", d.model, "--host", "0.0.0.0", "--port", "30000"}, d.engineArgs(r)
	}
	return []string{"trtllm-serve", d.model, "--backend", "pytorch", "--host", "0.0.0.0", "--port", "8000"}, nil
}

// launchScript is a POSIX shell script starting one worker of a role with the engine alone.
func (d *deployment) launchScript(r role) []byte {
	var b strings.Builder
	p := r.w.Parallelism
	fmt.Fprintf(&b, "#!/bin/sh\n# The %s role of %s: one worker of %d, %d × %s GPUs (tensor %d, pipeline %d, attention data %d, MoE tensor %d, MoE expert %d).\n",
		r.name, d.name, p.Replicas, r.gpus, oneLine(r.hardware), p.Tensor, p.Pipeline, p.AttentionData, p.MoeTensor, p.MoeExpert)
	if r.nodes > 1 {
		fmt.Fprintf(&b, "# A worker spans %d nodes of %d GPUs: start it with the backend's multi-node launcher.\n", r.nodes, r.gpusPerNode)
	}
	b.WriteString("# The engine alone, with the options the simulation used; " + ManifestName + "\n" +
		"# runs the same options under Dynamo (frontend, router, planner). docs/artifacts.md\nset -eu\n")
	cmd, opts := d.standaloneCommand(r)
	b.WriteString("exec")
	for _, a := range cmd {
		b.WriteString(" " + shellQuote(a))
	}
	for i := 0; i < len(opts); i++ {
		b.WriteString(" \\\n    " + shellQuote(opts[i]))
		if i+1 < len(opts) && !strings.HasPrefix(opts[i+1], "--") {
			i++
			b.WriteString(" " + shellQuote(opts[i]))
		}
	}
	if d.backend == spec.BackendTRTLLM {
		b.WriteString(" \\\n    --extra_llm_api_options \"$(dirname \"$0\")/" + r.name + ".yaml\"")
	}
	b.WriteString("\n")
	return []byte(b.String())
}

// shellQuote returns s as one POSIX shell word: unchanged when it holds only characters no
// shell treats specially, else in single quotes (a single quote inside is closed, escaped
// with a backslash and reopened).
func shellQuote(s string) string {
	safe := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_-./:=,+@%", c)) {
			safe = false
			break
		}
	}
	if safe {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
