package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recommendYAMLs runs recommend-small with sets and returns each written configuration's
// text by file name, and recommendation.json's candidates.
func recommendYAMLs(t *testing.T, sets ...string) (string, map[string]string, []map[string]any) {
	t.Helper()
	out, r := recommendOut(t, sets...)
	if r.code != 0 {
		t.Fatalf("recommend %v: exit %d: %s", sets, r.code, r.stderr)
	}
	names, err := filepath.Glob(filepath.Join(out, "recommendations", "*.yaml"))
	must(t, err)
	yamls := map[string]string{}
	for _, n := range names {
		yamls[n] = readFile(t, n)
	}
	var doc struct {
		Candidates []map[string]any `json:"candidates"`
	}
	must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "recommendation.json"))), &doc))
	return out, yamls, doc.Candidates
}

// repredict runs predict on a written configuration from the directory recommend ran in,
// once per kind (the first configuration of each kind the caller names).
func repredict(t *testing.T, out, name, kind string, done map[string]bool) {
	t.Helper()
	if done[kind] {
		return
	}
	done[kind] = true
	if p := runIn(filepath.Dir(out), nil, "predict", "--stack", "dynamo", "--config", name, "--output-dir", name+".out"); p.code != 0 {
		t.Errorf("re-predicting %s: %d %s", name, p.code, p.stderr)
	}
}

// engine.kv_transfer with a mode domain: the disaggregated candidates carry it, the
// aggregated ones do not (docs/recommend.md, "Domains"), and each kind re-predicts.
func TestRecommendKVTransferWithModeDomain(t *testing.T) {
	out, _, cands := recommendYAMLs(t, "engine.kv_transfer={bandwidth_gb_per_second: 25}")
	done := map[string]bool{}
	for i, c := range cands {
		cfg := c["prediction_config"].(map[string]any)
		engine := cfg["engine"].(map[string]any)
		disagg := engine["mode"] == "disaggregated"
		mode := map[bool]string{true: "disaggregated", false: "aggregated"}[disagg]
		kt, has := engine["kv_transfer"].(map[string]any)
		if has != disagg || has && kt["bandwidth_gb_per_second"] != 25.0 {
			t.Errorf("candidate %d: %s with kv_transfer %v", i, mode, engine["kv_transfer"])
		}
		if c["status"] == "feasible" && !done[mode] {
			// JSON is YAML: the concrete configuration as recommendation.json holds it.
			name := filepath.Join(out, mode+".yaml")
			b, err := json.Marshal(cfg)
			must(t, err)
			must(t, os.WriteFile(name, b, 0o644))
			repredict(t, out, name, mode, done)
		}
	}
	if !done["aggregated"] || !done["disaggregated"] {
		t.Errorf("feasible candidates re-predicted for %v; the test needs both modes", done)
	}
}

// A kv_capacity_fraction load is searched (its fraction a domain) and each candidate keeps
// it, re-predicting to the same metrics (docs/config.md, "kv_capacity_fraction").
func TestRecommendKVCapacityFraction(t *testing.T) {
	out, yamls, cands := recommendYAMLs(t, "traffic.load={type: kv_capacity_fraction, fraction: {choices: [0.002, 0.01]}}")
	fractions := map[any]bool{}
	for _, c := range cands {
		fractions[c["config"].(map[string]any)["traffic.load.fraction"]] = true
	}
	if len(fractions) != 2 {
		t.Errorf("candidate fractions %v, want both choices", fractions)
	}
	for n, y := range yamls {
		if !strings.Contains(y, "type: kv_capacity_fraction") {
			t.Errorf("%s lost its load:\n%s", n, y)
		}
		repredict(t, out, n, "", map[string]bool{})
	}
	// predict takes it too, and refuses a capacity below one request with the role's numbers.
	dir := t.TempDir()
	r := runIn(dir, nil, "predict", "--stack", "dynamo", "--config", filepath.Join(repoRoot, "examples", "e2.yaml"),
		"--set", "traffic.load={type: kv_capacity_fraction, fraction: 1}", "--set", "traffic.source.input_tokens=100000", "--output-dir", "o")
	if r.code != 2 || !strings.Contains(r.stderr, "traffic.load: aggregated KV capacity ") || !strings.Contains(r.stderr, "cannot hold one request averaging 100002 tokens") {
		t.Errorf("predict with too little KV capacity: %d %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "o")); !os.IsNotExist(err) {
		t.Error("a refused prediction wrote outputs")
	}
}

// engine.backend_version as a per-backend mapping: each candidate carries its backend's entry;
// the aliases are versions like any other.
func TestRecommendBackendVersionMapping(t *testing.T) {
	out, yamls, _ := recommendYAMLs(t, "engine.backend_version={vllm: current, sglang: next}")
	seen := map[string]bool{}
	for n, y := range yamls {
		for backend, version := range map[string]string{"vllm": "current", "sglang": "next"} {
			if strings.Contains(y, "backend: "+backend+"\n") {
				if !strings.Contains(y, "backend_version: "+version+"\n") {
					t.Errorf("%s: backend %s without backend_version %s:\n%s", n, backend, version, y)
				}
				repredict(t, out, n, backend, seen)
			}
		}
	}
	if !seen["vllm"] || !seen["sglang"] {
		t.Errorf("backends seen %v; the test needs both", seen)
	}
}

// The planner: a pareto target with a complete SLA is planner target sla (so explicit
// throughput-scaling policies are allowed), an explicit one-entry load_predictor list is
// honoured without a trace, and every scaling policy of the list gets a trial.
func TestRecommendPlannerInputs(t *testing.T) {
	out, yamls, cands := recommendYAMLs(t, "optimization.target=pareto", "engine.mode=aggregated",
		"engine.workers={aggregated: {parallelism: {preset: [{replicas: 2, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}, kv_cache: {block_size: 16, capacity: {type: fixed, blocks: 4096}}}}",
		"planner={policy: enabled, scaling_policy: {preset: [throughput_180_5, load_180_5, hybrid_600_5]}, load_predictor: {preset: [arima_raw]}}")
	policies := map[any]bool{}
	for _, c := range cands {
		policies[c["config"].(map[string]any)["planner.scaling_policy"]] = true
	}
	for _, p := range []string{"throughput_180_5", "load_180_5", "hybrid_600_5"} {
		if !policies[p] {
			t.Errorf("scaling policy %s never tried (tried %v)", p, policies)
		}
	}
	throughput, done := 0, map[string]bool{}
	for n, y := range yamls {
		if !strings.Contains(y, "target: sla") {
			t.Errorf("%s: planner target is not sla:\n%s", n, y)
		}
		if strings.Contains(y, "enable_throughput_scaling: true") {
			throughput++
			if !strings.Contains(y, "load_predictor: arima\n") || !strings.Contains(y, "load_predictor_log1p: false\n") {
				t.Errorf("%s: the [arima_raw] predictor was not honoured:\n%s", n, y)
			}
		}
		repredict(t, out, n, "", done)
	}
	if throughput == 0 {
		t.Error("no written candidate scales on throughput; the test needs one")
	}
}

// A tiny candidate_timeout_seconds times out every candidate, however short its simulation:
// the work budget holds to the step (docs/recommend.md, "Timeouts").
func TestRecommendTinyTimeout(t *testing.T) {
	out, r := recommendOut(t, "optimizer.candidate_timeout_seconds=0.000001")
	if r.code != 1 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Counts map[string]int `json:"counts"`
	}
	must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(out, "recommendation.json"))), &doc))
	if doc.Counts["timed_out"] == 0 || doc.Counts["feasible"] != 0 || doc.Counts["timed_out"]+doc.Counts["infeasible"] != doc.Counts["evaluated"] {
		t.Errorf("counts %v: every simulated candidate should time out", doc.Counts)
	}
}

// The default ladder proposes a shape only with a backend it fits: Llama 3.1 70B at TP1 on an
// H200 runs on TensorRT-LLM, never on vLLM or SGLang, so no trial is wasted as unsupported.
func TestRecommendLadderFitsEachBackend(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "r.yaml"), []byte(`traffic:
  source: {type: synthetic, input_tokens: 512, output_tokens: 16}
  load: {type: concurrency, concurrency: 4}
  stop: {requests: 8}
engine:
  mode: aggregated
  backend: {choices: [vllm, sglang, trtllm]}
  model: meta-llama/Llama-3.1-70B
  hardware: h200_sxm
  workers: {aggregated: {}}
optimization: {target: throughput, constraints: {max_candidate_gpus: 8}}
optimizer: {max_trials: 40, seed: 5}
`), 0o644))
	r := runIn(dir, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo", "--config", "r.yaml", "--output-dir", "out")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var doc struct {
		Counts     map[string]int   `json:"counts"`
		Candidates []map[string]any `json:"candidates"`
	}
	must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "out", "recommendation.json"))), &doc))
	if doc.Counts["unsupported"] != 0 {
		t.Errorf("counts %v: no trial should propose a shape its backend cannot hold", doc.Counts)
	}
	tp1 := 0
	for _, c := range doc.Candidates {
		cfg := c["config"].(map[string]any)
		if cfg["engine.workers.aggregated.parallelism"].(map[string]any)["tensor"] == 1.0 {
			tp1++
			if cfg["engine.backend"] != "trtllm" {
				t.Errorf("TP1 proposed with %v", cfg["engine.backend"])
			}
		}
	}
	if tp1 == 0 {
		t.Error("TP1 never proposed with trtllm, which it fits")
	}
}

// Through the binary, on the rare-optimum benchmark space: the model-based optimiser's first
// block is not random search's, and it proposes nothing outside the GPU budget, where random
// search proposes plenty (docs/recommend.md, "The search").
func TestRecommendBayesianDesignAndBudget(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	run := func(alg string) []map[string]any {
		out := "out-" + alg
		r := runIn(dir, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo",
			"--config", filepath.Join(repoRoot, "examples", "bench-recommend", "rare-optimum.yaml"),
			"--set", "optimizer.algorithm="+alg, "--set", "optimizer.max_trials=24", "--set", "optimizer.seed=4", "--output-dir", out)
		if r.code != 0 && r.code != 1 {
			t.Fatalf("%s: exit %d: %s", alg, r.code, r.stderr)
		}
		var doc struct {
			Candidates []map[string]any `json:"candidates"`
		}
		must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(dir, out, "recommendation.json"))), &doc))
		return doc.Candidates
	}
	bayes, random := run("bayesian"), run("random")
	overBudget := func(cs []map[string]any) int {
		n := 0
		for _, c := range cs {
			if c["reason_category"] == "gpus" {
				n++
			}
		}
		return n
	}
	if n := overBudget(bayes); n != 0 {
		t.Errorf("bayesian proposed %d candidates outside the GPU budget", n)
	}
	if overBudget(random) == 0 {
		t.Error("random search proposed nothing outside the budget; the space no longer tests it")
	}
	same := 0
	for i := 0; i < 16 && i < len(bayes) && i < len(random); i++ {
		b, _ := json.Marshal(bayes[i]["config"])
		r, _ := json.Marshal(random[i]["config"])
		if string(b) == string(r) {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d of the first 16 bayesian candidates are random search's", same)
	}
}
