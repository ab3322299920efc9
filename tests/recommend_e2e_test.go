package tests

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"aisimulate/simcore"
)

// recommendOut runs `recommend` on examples/recommend-small.yaml into a fresh directory with
// the wall time fixed, and returns the directory and the result.
func recommendOut(t *testing.T, sets ...string) (string, result) {
	t.Helper()
	return recommendRun(t, nil, nil, sets...)
}

// recommendRun is recommendOut with extra environment entries and extra arguments.
func recommendRun(t *testing.T, env, extra []string, sets ...string) (string, result) {
	t.Helper()
	if !coreReady {
		t.Skip("simulation core not available")
	}
	dir := t.TempDir()
	args := []string{"recommend", "--stack", "dynamo", "--config", filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--output-dir", "out"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	r := runIn(dir, append([]string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, env...), append(args, extra...)...)
	return filepath.Join(dir, "out"), r
}

// readTree reads every file below dir into a map of relative path → bytes.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	must(t, filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	}))
	return out
}

// Every recommendations/NNNN.yaml, re-predicted with `predict`, gives exactly the metrics
// its candidate has in recommendation.json (the wall-clock keys aside).
func TestRecommendRepredict(t *testing.T) {
	out, r := recommendOut(t)
	if r.code != 0 {
		t.Fatalf("recommend: %d %s", r.code, r.stderr)
	}
	var doc struct {
		Candidates []struct {
			ID      string                     `json:"candidate_id"`
			Metrics map[string]json.RawMessage `json:"metrics"`
		} `json:"candidates"`
		Views struct {
			TopN []string `json:"top_n"`
		} `json:"views"`
	}
	raw, err := os.ReadFile(filepath.Join(out, "recommendation.json"))
	must(t, err)
	must(t, json.Unmarshal(raw, &doc))
	byID := map[string]map[string]json.RawMessage{}
	for _, c := range doc.Candidates {
		byID[c.ID] = c.Metrics
	}
	files, _ := filepath.Glob(filepath.Join(out, "recommendations", "*.yaml"))
	if len(files) == 0 || len(files) != len(doc.Views.TopN) {
		t.Fatalf("%d configuration files for %d ranked rows", len(files), len(doc.Views.TopN))
	}
	seen := map[string]bool{}
	for i, f := range files {
		text, err := os.ReadFile(f)
		must(t, err)
		if seen[string(text)] {
			t.Errorf("%s repeats an earlier configuration", f)
		}
		seen[string(text)] = true
		if bytes.Contains(text, []byte("choices")) || bytes.Contains(text, []byte("optimization")) || bytes.Contains(text, []byte("preset")) {
			t.Errorf("%s is not concrete:\n%s", f, text)
		}
		p := runIn(filepath.Dir(out), []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "predict", "--stack", "dynamo", "--config", f,
			"--output-dir", filepath.Join(t.TempDir(), "p"), "--format", "json")
		if p.code != 0 {
			t.Fatalf("predict %s: %d %s", f, p.code, p.stderr)
		}
		var summary map[string]json.RawMessage
		must(t, json.Unmarshal([]byte(p.stdout), &summary))
		want := byID[doc.Views.TopN[i]]
		for _, k := range []string{"wall_time_ms", "processed_tokens_per_s", "processed_output_tokens_per_s"} {
			delete(summary, k)
		}
		if len(summary) != len(want) {
			t.Errorf("%s: %d summary keys, candidate has %d", f, len(summary), len(want))
		}
		for k, v := range summary {
			if string(want[k]) != string(v) {
				t.Errorf("%s: %s = %s, candidate %s has %s", f, k, v, doc.Views.TopN[i], want[k])
			}
		}
	}
}

// The result does not depend on how many candidates a round holds, for both optimisers, nor
// on how many module instances evaluate them: parallelism 1 evaluates in the module itself,
// 2, 4 and 16 on that many instances (AISIMULATE_EVALUATORS lifts the cap of one per core).
func TestRecommendParallelismIndependent(t *testing.T) {
	for _, alg := range []string{"bayesian", "random"} {
		var first map[string][]byte
		var firstOut string
		for _, par := range []string{"1", "2", "4", "16"} {
			out, r := recommendRun(t, []string{"AISIMULATE_EVALUATORS=" + par}, nil, "optimizer.algorithm="+alg, "optimizer.parallelism="+par, "optimizer.max_trials=40")
			if r.code != 0 {
				t.Fatalf("%s parallelism %s: %d %s", alg, par, r.code, r.stderr)
			}
			files := readTree(t, out)
			if first == nil {
				first, firstOut = files, r.stdout
				continue
			}
			if len(files) != len(first) || r.stdout != firstOut {
				t.Fatalf("%s parallelism %s: %d files, stdout %q; parallelism 1: %d files, %q", alg, par, len(files), r.stdout, len(first), firstOut)
			}
			for name, b := range first {
				if !bytes.Equal(files[name], b) {
					t.Errorf("%s parallelism %s: %s differs from parallelism 1", alg, par, name)
				}
			}
		}
	}
}

// A search where nothing is feasible still writes the result, names it on stderr and exits 1.
func TestRecommendNothingFeasible(t *testing.T) {
	out, r := recommendOut(t, "optimization.strict_sla=true", "evaluation.sla={ttft_ms: 0.001, itl_ms: 0.001}")
	want := "no feasible candidate found; saved full result to: out/recommendation.json\n"
	if r.code != 1 || r.stderr != want || r.stdout != "" {
		t.Fatalf("code %d stdout %q stderr %q; want 1 and %q", r.code, r.stdout, r.stderr, want)
	}
	raw, err := os.ReadFile(filepath.Join(out, "recommendation.json"))
	must(t, err)
	if !bytes.Contains(raw, []byte(`"feasible": 0`)) || !bytes.Contains(raw, []byte(`"reason_category": "sla"`)) {
		t.Errorf("recommendation.json lacks the infeasible counts:\n%.600s", raw)
	}
	if _, err := os.Stat(filepath.Join(out, "recommendations")); !os.IsNotExist(err) {
		t.Errorf("recommendations/ written without a feasible row: %v", err)
	}
}

// Configuration errors exit 2 with <file>: <dotted.path>: <reason> and write nothing;
// predict keeps rejecting domains.
func TestRecommendConfigErrors(t *testing.T) {
	if !coreReady {
		t.Skip("simulation core not available")
	}
	small := filepath.Join(repoRoot, "examples", "recommend-small.yaml")
	e2 := filepath.Join(repoRoot, "examples", "e2.yaml")
	// agg is an aggregated search of a mooncake-delta trace that does not exist.
	agg := filepath.Join(t.TempDir(), "agg.yaml")
	must(t, os.WriteFile(agg, []byte(`traffic:
  source: {type: trace, format: mooncake-delta, paths: [missing.jsonl]}
  load: {type: concurrency, concurrency: {choices: [1, 2]}}
engine:
  mode: aggregated
  backend: vllm
  model: meta-llama/Meta-Llama-3.1-8B
  hardware: h200_sxm
  workers: {aggregated: {kv_cache: {capacity: {type: fixed, blocks: 64}}, timing: {type: fixed, prefill_ms: 1, decode_ms: 1}}}
optimization: {target: throughput}
`), 0o644))
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"recommend", "-c", small, "--set", "engine.model={choices: [a, b]}"},
			small + ": engine.model: a domain is not allowed here"},
		{[]string{"recommend", "-c", small, "--set", "traffic.load.concurrency={range: {min: 0, max: 8, step: 1}}"},
			small + ": traffic.load.concurrency.range.min: must be greater than 0, got 0\n"},
		{[]string{"recommend", "-c", e2},
			e2 + ": optimization: required section is missing"},
		{[]string{"predict", "-c", e2, "--set", "engine.backend={choices: [vllm, sglang]}"},
			e2 + ": engine.backend: must be one of vllm, sglang, trtllm; got a mapping\n"},
		{[]string{"predict", "-c", small},
			small + ": optimization: predict does not accept ['optimization', 'optimizer']"},
		{[]string{"predict", "-c", e2, "--set", "optimization.target=pareto"},
			e2 + ": --set path 'optimization.target' is not in the schema"},
		// The concrete parts every candidate shares are resolved before the search
		// (docs/recommend.md, "Checks before the search").
		{[]string{"recommend", "-c", small, "--set", "engine.hardware=h999"},
			small + ": engine.hardware: unknown hardware \"h999\"; supported: "},
		{[]string{"recommend", "-c", small, "--set", "engine.hardware=auto", "--set", "optimization.hardware=h999"},
			small + ": optimization.hardware: unknown hardware \"h999\"; supported: "},
		{[]string{"recommend", "-c", small, "--set", "engine.workers.decode.hardware=h999"},
			small + ": engine.workers.decode.hardware: unknown hardware \"h999\"; supported: "},
		{[]string{"recommend", "-c", small, "--set", "engine.model=acme/unknown-7b"},
			small + ": engine.model: unknown model \"acme/unknown-7b\"; close matches: "},
		{[]string{"recommend", "-c", small, "--set", "engine.model=acme/unknown-7b", "--set", "engine.workers={aggregated: {}, prefill: {}, decode: {}}"},
			small + ": engine.model: unknown model \"acme/unknown-7b\"; close matches: "},
		{[]string{"recommend", "-c", agg},
			agg + ": traffic.source.trace.paths: missing.jsonl: cannot open trace file"},
		// The reference's configuration-time checks.
		{[]string{"recommend", "-c", small, "--set", "traffic.source={type: trace, format: mooncake-delta, paths: [t.jsonl]}", "--set", "traffic.stop={}"},
			small + ": engine.mode: trace format 'mooncake-delta' requires engine.mode: aggregated, but the search includes disaggregated candidates"},
		{[]string{"recommend", "-c", agg, "--set", "planner={scaling_policy: {preset: [load_180_5]}}"},
			agg + ": planner.policy: mooncake-delta requires planner.policy=disabled, but the search may enable the planner"},
		{[]string{"recommend", "-c", small, "--set", "router={policy: {choices: [round_robin, kv_router]}, prefill_load_model: {type: aic}}"},
			small + ": router.prefill_load_model.type: 'aic' is incompatible with router.policy='round_robin', which the search includes"},
	} {
		dir := t.TempDir()
		r := runIn(dir, nil, append(c.args, "--stack", "dynamo", "--output-dir", "out")...)
		if r.code != 2 || !strings.Contains(r.stderr, "aisimulate: error: "+c.msg) {
			t.Errorf("%q: code %d stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.msg)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(err) {
			t.Errorf("%q wrote outputs", c.args)
		}
	}
}

// --set reaches optimization in recommend; table and JSON stdout name the written files.
func TestRecommendSetAndStdout(t *testing.T) {
	if !coreReady {
		t.Skip("simulation core not available")
	}
	dir := t.TempDir()
	r := runIn(dir, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo", "--config",
		filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--set", "optimization.target=pareto", "--format", "json")
	if r.code != 0 {
		t.Fatalf("pareto: %d %s", r.code, r.stderr)
	}
	var rows []struct {
		Rank       int                `json:"rank"`
		Objectives map[string]float64 `json:"objectives"`
		UsedGPUs   int                `json:"used_gpus"`
		ConfigPath string             `json:"config_path"`
	}
	must(t, json.Unmarshal([]byte(r.stdout), &rows))
	if len(rows) == 0 {
		t.Fatal("no pareto rows")
	}
	for i, row := range rows {
		if row.Rank != i+1 || len(row.Objectives) != 3 {
			t.Errorf("row %d: %+v", i, row)
		}
		if _, err := os.Stat(filepath.Join(dir, row.ConfigPath)); err != nil {
			t.Errorf("row %d: %v", i, err)
		}
		// The front is sorted by its last objective (goodput_per_gpu) ascending.
		if i > 0 && rows[i-1].Objectives["goodput_per_gpu"] > row.Objectives["goodput_per_gpu"] {
			t.Errorf("front not sorted by goodput_per_gpu at row %d", i)
		}
	}
	r = runIn(dir, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo", "--config",
		filepath.Join(repoRoot, "examples", "recommend-small.yaml"), "--output-dir", "t")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || lines[0] != "AISimulate recommendations" || lines[len(lines)-1] != "Saved full result to: t/recommendation.json" ||
		!strings.HasPrefix(lines[1], "1: goodput=") || !strings.HasSuffix(lines[1], " config=t/recommendations/0001.yaml") {
		t.Errorf("table: %d %q", r.code, r.stdout)
	}
}

// updateGolden, when AISIMULATE_UPDATE_GOLDEN=1, rewrites the golden files instead of
// comparing (review the diff before committing).
var moduleVersion = regexp.MustCompile(`"module_version": "[^"]*"`)

var updateGolden = os.Getenv("AISIMULATE_UPDATE_GOLDEN") == "1"

// A small sweep's files and standard output, byte for byte.
func TestRecommendGolden(t *testing.T) {
	out, r := recommendOut(t, "optimizer.max_trials=24")
	if r.code != 0 {
		t.Fatalf("recommend: %d %s", r.code, r.stderr)
	}
	files := readTree(t, out)
	files["stdout.txt"] = []byte(r.stdout)
	// The module version is the build's (git describe); the golden file holds a placeholder.
	files["recommendation.json"] = moduleVersion.ReplaceAll(files["recommendation.json"], []byte(`"module_version": "VERSION"`))
	golden := filepath.Join("testdata", "recommend-small")
	if updateGolden {
		must(t, os.RemoveAll(golden))
		for name, b := range files {
			must(t, os.MkdirAll(filepath.Dir(filepath.Join(golden, name)), 0o755))
			must(t, os.WriteFile(filepath.Join(golden, name), b, 0o644))
		}
	}
	want := readTree(t, golden)
	if len(want) != len(files) {
		t.Errorf("%d files, golden has %d", len(files), len(want))
	}
	for name, b := range want {
		if !bytes.Equal(files[name], b) {
			t.Errorf("%s differs from %s:\n%s", name, filepath.Join(golden, name), files[name])
		}
	}
}

// --overwrite replaces the known outputs, numbered configurations included, and keeps
// everything else; without it a non-empty directory is refused.
func TestRecommendOverwrite(t *testing.T) {
	if !coreReady {
		t.Skip("simulation core not available")
	}
	dir := t.TempDir()
	// --progress reports trials, the best score and the times on stderr.
	p := runIn(dir, nil, "recommend", "--stack", "dynamo", "--config", filepath.Join(repoRoot, "examples", "recommend-small.yaml"),
		"--output-dir", "p", "--progress")
	if p.code != 0 || !strings.Contains(p.stderr, "trials 24/24  best ") || !strings.Contains(p.stderr, "elapsed ") || !strings.Contains(p.stderr, "remaining ~0s") {
		t.Errorf("--progress: %d %q", p.code, p.stderr)
	}
	must(t, os.MkdirAll(filepath.Join(dir, "out", "recommendations"), 0o755))
	for name, text := range map[string]string{"recommendations/0011.yaml": "old", "recommendations/notes.yaml": "keep",
		"prediction.json": "old", "keep.txt": "keep"} {
		must(t, os.WriteFile(filepath.Join(dir, "out", name), []byte(text), 0o644))
	}
	args := []string{"recommend", "--stack", "dynamo", "--config", filepath.Join(repoRoot, "examples", "recommend-small.yaml"),
		"--output-dir", "out", "--set", "optimizer.max_trials=4"}
	if r := runIn(dir, nil, args...); r.code != 2 || !strings.Contains(r.stderr, "is not empty; pass --overwrite") {
		t.Fatalf("without --overwrite: %d %s", r.code, r.stderr)
	}
	if r := runIn(dir, nil, append(args, "--overwrite")...); r.code != 0 {
		t.Fatalf("--overwrite: %d %s", r.code, r.stderr)
	}
	got := readTree(t, filepath.Join(dir, "out"))
	for _, gone := range []string{"recommendations/0011.yaml", "prediction.json"} {
		if _, ok := got[gone]; ok {
			t.Errorf("%s survived --overwrite", gone)
		}
	}
	for _, kept := range []string{"recommendations/notes.yaml", "keep.txt", "recommendation.json", "recommendation.csv", "recommendations/0001.yaml"} {
		if _, ok := got[kept]; !ok {
			t.Errorf("%s missing", kept)
		}
	}
}

// The module (through bin/aisimulate) and the native core give the same recommendation.json
// for the same inputs, optimiser proposals included.
func TestRecommendNativeEqualsModule(t *testing.T) {
	out, r := recommendOut(t, "optimizer.max_trials=40")
	if r.code != 0 {
		t.Fatalf("recommend: %d %s", r.code, r.stderr)
	}
	text, err := os.ReadFile(filepath.Join(repoRoot, "examples", "recommend-small.yaml"))
	must(t, err)
	zero := 0.0
	native, err := simcore.Recommend(simcore.RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: text,
		Sets: []string{"optimizer.max_trials=40"}, FixedWallTimeMs: &zero})
	must(t, err)
	module, err := os.ReadFile(filepath.Join(out, "recommendation.json"))
	must(t, err)
	norm := func(b []byte) []byte { return moduleVersion.ReplaceAll(b, []byte(`"module_version": "VERSION"`)) }
	if !bytes.Equal(norm(native.JSON), norm(module)) {
		t.Errorf("native recommendation.json differs from the module's")
	}
}

// A round-robin candidate's configuration names its load model as the reference writes it,
// prefill_load_model: {type: none}, and re-predicts.
func TestRecommendRoundRobinEcho(t *testing.T) {
	out, r := recommendOut(t, "router={policy: {choices: [round_robin, kv_router]}}", "engine.mode=aggregated",
		"engine.workers={aggregated: {parallelism: {preset: [{replicas: 2, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}, kv_cache: {capacity: {type: fixed, blocks: 4096}}}}")
	if r.code != 0 {
		t.Fatalf("recommend: %d %s", r.code, r.stderr)
	}
	names, err := filepath.Glob(filepath.Join(out, "recommendations", "*.yaml"))
	must(t, err)
	roundRobin := 0
	for _, n := range names {
		y := readFile(t, n)
		if !strings.Contains(y, "policy: round_robin") {
			continue
		}
		roundRobin++
		if !strings.Contains(y, "router:\n  policy: round_robin\n  prefill_load_model:\n    type: none\n") {
			t.Errorf("%s: the round-robin router is not echoed with its load model:\n%s", n, y)
		}
		if p := runIn(filepath.Dir(out), nil, "predict", "--stack", "dynamo", "--config", n, "--output-dir", "again-"+filepath.Base(n)); p.code != 0 {
			t.Errorf("re-predicting %s: %d %s", n, p.code, p.stderr)
		}
	}
	if roundRobin == 0 {
		t.Fatal("no round-robin candidate among the recommendations")
	}
}

// The readable answer at a terminal (AISIMULATE_TABLE=readable, what the host sets when
// standard output is a terminal), at 80 and 120 columns and for the Pareto target, byte for
// byte; the files are the plain run's.
func TestRecommendReadableGolden(t *testing.T) {
	for _, c := range []struct {
		name    string
		columns string
		sets    []string
	}{
		{"recommend-small.readable80.txt", "80", nil},
		{"recommend-small.readable120.txt", "120", nil},
		{"recommend-small.pareto.readable100.txt", "100", []string{"optimization.target=pareto"}},
	} {
		out, r := recommendRun(t, []string{"AISIMULATE_TABLE=readable", "COLUMNS=" + c.columns}, nil, c.sets...)
		if r.code != 0 {
			t.Fatalf("%s: %d %s", c.name, r.code, r.stderr)
		}
		golden := filepath.Join("testdata", c.name)
		if updateGolden {
			must(t, os.WriteFile(golden, []byte(r.stdout), 0o644))
		}
		want, err := os.ReadFile(golden)
		must(t, err)
		if r.stdout != string(want) {
			t.Errorf("%s differs:\n%s", golden, r.stdout)
		}
		if c.sets == nil {
			files := readTree(t, out)
			plain := readTree(t, filepath.Join("testdata", "recommend-small"))
			if !bytes.Equal(moduleVersion.ReplaceAll(files["recommendation.json"], []byte(`"module_version": "VERSION"`)), plain["recommendation.json"]) {
				t.Errorf("%s: recommendation.json differs from the plain run's", c.name)
			}
		}
		for _, line := range strings.Split(r.stdout, "\n") {
			if n := len([]rune(line)); c.columns == "80" && n > 80 {
				t.Errorf("%s: line of %d runes: %q", c.name, n, line)
			}
		}
	}
}

// When no candidate had a request meet the SLA the readable answer says so in one line and
// still ranks them; the plain table is the reference's, with the search's warnings on stderr.
func TestRecommendReadableNothingMetTheSLA(t *testing.T) {
	_, r := recommendRun(t, []string{"AISIMULATE_TABLE=readable", "COLUMNS=100"}, nil, "evaluation.sla={ttft_ms: 1, itl_ms: 1}")
	if r.code != 0 || !strings.Contains(r.stdout, "\nNo candidate met the SLA for any request; the deployments below are ranked regardless.\n") ||
		strings.Contains(r.stdout, "met the SLA for no request") || !strings.Contains(r.stdout, "SLA: TTFT ≤ 1 ms, ITL ≤ 1 ms\n") {
		t.Errorf("code %d stdout:\n%s", r.code, r.stdout)
	}
	_, p := recommendRun(t, nil, nil, "optimizer.algorithm=bayesian", "optimizer.max_trials=2")
	if p.code != 0 || !strings.HasPrefix(p.stdout, "AISimulate recommendations\n") ||
		p.stderr != "warning: the search simulated 2 of the space's 48 points (4.2 %): another budget or seed may find a better deployment; raise optimizer.max_trials or use optimizer.algorithm: screened\n" {
		t.Errorf("plain: code %d stdout %q stderr %q", p.code, p.stdout, p.stderr)
	}
}

// One sweep over three GPU types with prices, minimising the cost per million good tokens:
// every candidate carries its cost, the readable answer names the systems and the costs, an
// unknown system is exit 2 at its choice.
func TestRecommendHardwareChoicesAndCost(t *testing.T) {
	requireCore(t)
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "hw.yaml"), []byte(`traffic:
  source: {type: synthetic, input_tokens: 512, output_tokens: 32}
  load: {type: concurrency, concurrency: 4}
  stop: {requests: 24}
engine:
  mode: aggregated
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: auto
  backend: vllm
  workers: {aggregated: {scheduler: {max_batched_tokens: 8192, max_sequences: 256}}}
evaluation:
  sla: {ttft_ms: 200, itl_ms: 20}
optimization:
  target: cost_per_million_good_tokens
  hardware: {choices: [h100_sxm, h200_sxm, b200_sxm]}
  gpu_hour_cost: {h100_sxm: 2.9, h200_sxm: 3.7, b200_sxm: 5.5}
  constraints: {max_candidate_gpus: 2}
optimizer: {max_trials: 9}
`), 0o644))
	env := []string{"AISIMULATE_FIXED_WALL_TIME_MS=0", "AISIMULATE_TABLE=readable", "COLUMNS=120"}
	r := runIn(dir, env, "recommend", "--stack", "dynamo", "--config", "hw.yaml", "--output-dir", "out")
	if r.code != 0 || !strings.Contains(r.stdout, "cost/good Mtok") || !strings.Contains(r.stdout, "cost/h") {
		t.Fatalf("code %d stderr %q stdout:\n%s", r.code, r.stderr, r.stdout)
	}
	var doc struct {
		Candidates []struct {
			Config map[string]any     `json:"config"`
			Cost   map[string]float64 `json:"cost"`
			Score  *float64           `json:"score"`
		} `json:"candidates"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "out", "recommendation.json"))
	must(t, err)
	must(t, json.Unmarshal(raw, &doc))
	systems := map[any]bool{}
	for _, c := range doc.Candidates {
		systems[c.Config["engine.hardware"]] = true
		if c.Cost["usd_per_hour"] <= 0 || c.Score == nil || *c.Score != -c.Cost["usd_per_million_good_output_tokens"] {
			t.Errorf("candidate %v: cost %v score %v", c.Config, c.Cost, c.Score)
		}
	}
	if len(systems) != 3 || len(doc.Candidates) != 9 {
		t.Errorf("%d candidates over systems %v, want 9 over all three", len(doc.Candidates), systems)
	}
	r = runIn(dir, env, "recommend", "--stack", "dynamo", "--config", "hw.yaml", "--output-dir", "out2",
		"--set", "optimization.hardware={choices: [h100_sxm, h900_sxm]}", "--set", "optimization.gpu_hour_cost={h100_sxm: 2.9, h900_sxm: 1}")
	if r.code != 2 || !strings.Contains(r.stderr, "hw.yaml: optimization.hardware.choices[1]: ") {
		t.Errorf("unknown system: code %d stderr %q", r.code, r.stderr)
	}
}
