package recommend

import (
	"reflect"
	"strings"
	"testing"

	"aisimulate/simcore/spec"
)

// Candidates that differ only in a knob the evaluation ignores fold into one deployment with
// that knob named; candidates with other metrics or another deployment never fold.
func TestDistinctFoldsKnobsThatChangedNothing(t *testing.T) {
	sp := mustSpace(t, synthYAML, "traffic.load.concurrency=8", "engine.workers.aggregated.scheduler.max_sequences=64")
	s := NewSearch(sp, opt(spec.AlgorithmRandom, 200, 3))
	runRounds(t, s, 16, func(tree map[string]any) Outcome {
		// Ignores max_batched_tokens: the metrics depend on the deployment only.
		x := 1000.0 + 10*treeNum(tree, "engine.workers.aggregated.parallelism.tensor", 0) +
			treeNum(tree, "engine.workers.decode.parallelism.replicas", 0)
		if b, _ := spec.GetPath(tree, "engine.backend"); b == "sglang" {
			x += 5
		}
		return Outcome{Summary: map[string]any{"output_throughput_tok_s": x, "gpu_hours": 1.0, "duration_ms": 3.6e6}}
	})
	ranked := Rank(s.Candidates())
	ds := sp.Distinct(ranked)
	folded := 0
	seen := map[string]bool{}
	for i, d := range ds {
		if seen[d.Summary] {
			t.Errorf("deployment %q listed twice", d.Summary)
		}
		seen[d.Summary] = true
		if i > 0 && d.Rank <= ds[i-1].Rank {
			t.Errorf("ranks not increasing: %d after %d", d.Rank, ds[i-1].Rank)
		}
		if ranked[d.Rank-1] != d.Best {
			t.Errorf("rank %d is not its best candidate", d.Rank)
		}
		for _, c := range d.Alike {
			folded++
			if DeploymentSummary(c.Tree) != d.Summary || metricsKey(c) != metricsKey(d.Best) {
				t.Errorf("%s folded into %s with another deployment or other metrics", c.ID, d.Best.ID)
			}
		}
		// The aggregated role searches max_batched_tokens only; the disaggregated roles have
		// the default scheduler domains.
		if len(d.Alike) > 0 && d.Best.Tree["engine"].(map[string]any)["mode"] == spec.ModeAggregated &&
			!reflect.DeepEqual(d.Knobs, []string{"engine.workers.aggregated.scheduler.max_batched_tokens"}) {
			t.Errorf("%s: knobs %v", d.Summary, d.Knobs)
		}
		for _, k := range d.Knobs {
			if !strings.Contains(k, ".scheduler.") {
				t.Errorf("%s: knob %s changes the deployment", d.Summary, k)
			}
		}
	}
	if folded == 0 || len(ds)+folded != len(ranked) {
		t.Errorf("%d deployments + %d folded for %d ranked candidates", len(ds), folded, len(ranked))
	}
}

// DeploymentSummary names mode, backend, hardware and each role's shape.
func TestDeploymentSummary(t *testing.T) {
	tree := map[string]any{"engine": map[string]any{"backend": "vllm", "hardware": "h200_sxm", "mode": "disaggregated",
		"workers": map[string]any{
			"prefill": map[string]any{"parallelism": map[string]any{"replicas": 2, "tensor": 1, "pipeline": 1}},
			"decode":  map[string]any{"hardware": "b200_sxm", "parallelism": map[string]any{"replicas": 1, "tensor": 2, "moe_expert": 2}},
		}}}
	want := "disaggregated · vllm · h200_sxm · prefill 2× TP1 · decode 1× TP2 EP2 on b200_sxm"
	if got := DeploymentSummary(tree); got != want {
		t.Errorf("DeploymentSummary = %q, want %q", got, want)
	}
}
