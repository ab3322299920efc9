package recommend

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// synthYAML is a space of 2 modes × 2 backends × presets × scheduler and load choices whose
// candidates the tests score with a synthetic evaluator instead of the simulator.
const synthYAML = `
traffic:
  source: {type: synthetic, input_tokens: 128, output_tokens: 8}
  load: {type: concurrency, concurrency: {range: {min: 1, max: 64, step: 1}}}
  stop: {requests: 8}
engine:
  mode: {choices: [aggregated, disaggregated]}
  backend: {choices: [vllm, sglang]}
  model: m
  hardware: h200_sxm
  workers:
    aggregated:
      parallelism:
        preset:
          - {replicas: 1, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}
          - {replicas: 2, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}
          - {replicas: 1, tensor: 4, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}
      scheduler: {max_batched_tokens: {choices: [2048, 4096, 8192, 16384]}, max_sequences: {range: {min: 1, max: 512, scale: log}}}
    prefill:
      parallelism: {preset: [{replicas: 1, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}
    decode:
      parallelism: {preset: [{replicas: 1, tensor: 2, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}, {replicas: 4, tensor: 2, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}]}
optimization: {target: throughput, constraints: {max_candidate_gpus: 8}}
`

func mustSpace(t testing.TB, text string, sets ...string) *Space {
	t.Helper()
	rec, err := spec.LoadRecommendation([]byte(text), sets)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := NewSpace(rec, Facts{Model: func(id string) (*catalog.Model, error) { return catalog.LookupModel(id, nil) }})
	if err != nil {
		t.Fatal(err)
	}
	return sp
}

func treeNum(tree map[string]any, path string, def float64) float64 {
	if v, ok := spec.GetPath(tree, path); ok {
		return spec.DomainValueFloat(v)
	}
	return def
}

// synthEvaluate is a smooth synthetic landscape over the candidate's configuration, with a
// single best point (aggregated, sglang, tensor 4, 8192 tokens, ~40 sequences, concurrency 48).
func synthEvaluate(tree map[string]any) Outcome {
	x := 1000.0
	if m, _ := spec.GetPath(tree, "engine.mode"); m == "aggregated" {
		x += 300
		x += 100 * treeNum(tree, "engine.workers.aggregated.parallelism.tensor", 1)
		x -= 200 * math.Abs(math.Log2(treeNum(tree, "engine.workers.aggregated.scheduler.max_batched_tokens", 8192)/8192))
		x -= 50 * math.Abs(math.Log(treeNum(tree, "engine.workers.aggregated.scheduler.max_sequences", 256)/40))
	} else {
		x += 50 * treeNum(tree, "engine.workers.decode.parallelism.replicas", 1)
	}
	if b, _ := spec.GetPath(tree, "engine.backend"); b == "sglang" {
		x += 80
	}
	x -= math.Abs(treeNum(tree, "traffic.load.concurrency", 1) - 48)
	return Outcome{Summary: map[string]any{"output_throughput_tok_s": x, "gpu_hours": 1.0, "duration_ms": 3.6e6}}
}

// runSearch drives a whole search with rounds of the given size and returns the result.
func runSearch(t testing.TB, sp *Space, opt spec.Optimizer, roundSize int) *Result {
	t.Helper()
	res, err := driveSearch(t, sp, opt, roundSize).Result(Provenance{ModuleVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// driveSearch runs every round of a search, evaluating with synthEvaluate.
func driveSearch(t testing.TB, sp *Space, opt spec.Optimizer, roundSize int) *Search {
	t.Helper()
	s := NewSearch(sp, opt)
	runRounds(t, s, roundSize, synthEvaluate)
	return s
}

// runRounds proposes and observes every round of s, evaluating with evaluate.
func runRounds(t testing.TB, s *Search, roundSize int, evaluate func(tree map[string]any) Outcome) {
	t.Helper()
	for {
		round, err := s.Propose(roundSize)
		if err != nil {
			t.Fatal(err)
		}
		if len(round) == 0 {
			return
		}
		if len(round) > roundSize || len(round) > Block {
			t.Fatalf("round of %d for parallelism %d", len(round), roundSize)
		}
		var outs []Outcome
		for _, p := range round {
			if p.Evaluate {
				outs = append(outs, evaluate(p.Candidate.Tree))
			}
		}
		if err := s.Observe(outs); err != nil {
			t.Fatal(err)
		}
	}
}

func opt(alg string, trials int, seed uint64) spec.Optimizer {
	return spec.Optimizer{Algorithm: alg, MaxTrials: trials, Parallelism: 16, CandidateTimeoutSeconds: 600, Seed: seed}
}

// The same seed gives the same bytes, whatever the round size; another seed other bytes.
func TestSearchDeterministic(t *testing.T) {
	sp := mustSpace(t, synthYAML)
	for _, alg := range []string{spec.AlgorithmBayesian, spec.AlgorithmRandom} {
		ref := runSearch(t, sp, opt(alg, 70, 42), 16)
		for _, par := range []int{1, 3, 16, 40} {
			got := runSearch(t, sp, opt(alg, 70, 42), par)
			if !bytes.Equal(got.JSON, ref.JSON) || !bytes.Equal(got.CSV, ref.CSV) {
				t.Errorf("%s: round size %d changes the result", alg, par)
			}
		}
		if other := runSearch(t, sp, opt(alg, 70, 43), 16); bytes.Equal(other.JSON, ref.JSON) {
			t.Errorf("%s: seed 43 gives the bytes of seed 42", alg)
		}
	}
}

// Duplicates are evaluated once and still consume the budget.
func TestSearchCacheHits(t *testing.T) {
	sp := mustSpace(t, synthYAML, "engine.mode=aggregated", "engine.workers={aggregated: {parallelism: {preset: false}, scheduler: {max_batched_tokens: 8192, max_sequences: 256}}}",
		"engine.backend={choices: [vllm, sglang]}", "traffic.load={type: concurrency, concurrency: 4}")
	s := NewSearch(sp, opt(spec.AlgorithmRandom, 6, 1))
	evaluated := 0
	for {
		round, err := s.Propose(4)
		if err != nil {
			t.Fatal(err)
		}
		if len(round) == 0 {
			break
		}
		var outs []Outcome
		for _, p := range round {
			if p.Evaluate {
				evaluated++
				outs = append(outs, synthEvaluate(p.Candidate.Tree))
			}
		}
		must(t, s.Observe(outs))
	}
	res, err := s.Result(Provenance{})
	must(t, err)
	var doc struct {
		Counts map[string]int `json:"counts"`
	}
	must(t, json.Unmarshal(res.JSON, &doc))
	if evaluated != 2 || s.Done() != 6 || doc.Counts["evaluated"] != 2 || doc.Counts["cache_hits"] != 4 {
		t.Errorf("evaluated %d, done %d, counts %v; want 2 simulations, 6 trials, 4 cache hits", evaluated, s.Done(), doc.Counts)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Every preset entry gets a trial when the budget allows, whatever the optimiser.
func TestSearchPresetCoverage(t *testing.T) {
	sp := mustSpace(t, synthYAML)
	// 3 aggregated presets + 1 disaggregated pair within 8 GPUs (TP1 + 4×TP2 needs 9) = 4.
	for _, alg := range []string{spec.AlgorithmBayesian, spec.AlgorithmRandom} {
		s := NewSearch(sp, opt(alg, 4, 9))
		round, err := s.Propose(16)
		must(t, err)
		seen := map[string]bool{}
		for _, p := range round {
			paths, values := sp.Assignments(p.Candidate.Point)
			key := ""
			for i, path := range paths {
				if len(path) > 11 && path[len(path)-11:] == "parallelism" {
					b, _ := json.Marshal(spec.PlainTree(values[i]))
					key += path + string(b)
				}
			}
			seen[key] = true
		}
		if len(round) != 4 || len(seen) != 4 {
			t.Errorf("%s: %d trials covered %d preset branches, want 4", alg, len(round), len(seen))
		}
	}
	if c := coverage(sp, opt(spec.AlgorithmRandom, 3, 9)); c != nil {
		t.Errorf("coverage beyond the budget: %v", c)
	}
}

// Each planner sub-item's preset entries get a trial too when the budget allows (after the
// parallelism presets), their conditions forced up the chain: an FPM sampling entry needs a
// throughput-scaling policy, which needs the planner enabled.
func TestSearchPlannerPresetCoverage(t *testing.T) {
	sp := mustSpace(t, synthYAML, "optimization.target=goodput", "evaluation={sla: {ttft_ms: 500, itl_ms: 50}}",
		"planner={scaling_policy: {preset: [load_180_5, throughput_180_5, hybrid_600_5]}, fpm_sampling: {preset: [small, large]}, load_sensitivity: {preset: [aggressive, conservative]}}")
	// 4 parallelism branches + 3 scaling policies + 2 FPM samplings + 2 sensitivities = 11.
	for _, alg := range []string{spec.AlgorithmBayesian, spec.AlgorithmRandom} {
		s := NewSearch(sp, opt(alg, 11, 9))
		round, err := s.Propose(16)
		must(t, err)
		seen := map[string]bool{}
		for _, p := range round {
			for i, prm := range sp.Params {
				if prm.Labels != nil && !math.IsNaN(p.Candidate.Point[i]) {
					seen[prm.Name+"="+prm.Labels[int(p.Candidate.Point[i])]] = true
				}
			}
		}
		for _, want := range []string{"planner.scaling_policy=load_180_5", "planner.scaling_policy=throughput_180_5", "planner.scaling_policy=hybrid_600_5",
			"planner.fpm_sampling=small", "planner.fpm_sampling=large", "planner.load_sensitivity=aggressive", "planner.load_sensitivity=conservative"} {
			if !seen[want] {
				t.Errorf("%s: the first %d trials never tried %s (saw %v)", alg, len(round), want, seen)
			}
		}
	}
	// Over budget the planner sub-items that do not fit are left to the optimiser.
	if c := coverage(sp, opt(spec.AlgorithmRandom, 8, 9)); len(c) != 7 {
		t.Errorf("coverage of 8 trials: %d items, want 4 parallelism + 3 scaling policies", len(c))
	}
}

// Rounds are observed before the next is proposed, and never cross a refit block.
func TestSearchRoundAPI(t *testing.T) {
	sp := mustSpace(t, synthYAML)
	s := NewSearch(sp, opt(spec.AlgorithmBayesian, 40, 3))
	r1, err := s.Propose(10)
	must(t, err)
	if len(r1) != 10 {
		t.Fatalf("first round %d", len(r1))
	}
	if _, err := s.Propose(10); err == nil {
		t.Error("a second round before observing the first")
	}
	if err := s.Observe(nil); err == nil {
		t.Error("observing fewer outcomes than evaluations")
	}
	var outs []Outcome
	for _, p := range r1 {
		if p.Evaluate {
			outs = append(outs, synthEvaluate(p.Candidate.Tree))
		}
	}
	must(t, s.Observe(outs))
	r2, err := s.Propose(10)
	must(t, err)
	if len(r2) != Block-10 || r2[0].Trial != 10 {
		t.Errorf("second round: %d proposals from trial %d; want %d from 10", len(r2), r2[0].Trial, Block-10)
	}
}

// On the synthetic landscape the model-based optimiser finds at least what random search
// finds with the same budget (128 trials) for at least four of five seeds, and on average.
func TestBayesianBeatsRandom(t *testing.T) {
	sp := mustSpace(t, synthYAML)
	best := func(r *Result) float64 { return r.Rows[0].Candidate.Score }
	wins, sumB, sumR := 0, 0.0, 0.0
	for seed := uint64(1); seed <= 5; seed++ {
		b := best(runSearch(t, sp, opt(spec.AlgorithmBayesian, 128, seed), 16))
		r := best(runSearch(t, sp, opt(spec.AlgorithmRandom, 128, seed), 16))
		if b >= r {
			wins++
		}
		sumB, sumR = sumB+b, sumR+r
		t.Logf("seed %d: bayesian %.1f random %.1f", seed, b, r)
	}
	if wins < 4 || sumB <= sumR {
		t.Errorf("bayesian at least as good as random for %d of 5 seeds, mean %.1f vs %.1f", wins, sumB/5, sumR/5)
	}
}

// The default ladder of Llama 3.1 8B on H200 within 8 GPUs: tensor 1, 2, 4, 8 with every
// replica count that fits, and disaggregated pairs within the budget.
func TestDefaultLadder(t *testing.T) {
	sp := mustSpace(t, `
engine: {model: meta-llama/Meta-Llama-3.1-8B-Instruct, hardware: h200_sxm, workers: {aggregated: {}, prefill: {}, decode: {}}}
optimization: {constraints: {max_candidate_gpus: 8}}
`)
	sizes := map[string]int{}
	for _, p := range sp.Params {
		sizes[p.Name] = len(p.Values)
	}
	// Aggregated: TP1 ×1..8, TP2 ×1..4, TP4 ×1..2, TP8 ×1 = 15.
	if sizes["engine.workers.aggregated.parallelism"] != 15 {
		t.Errorf("aggregated ladder %d, want 15", sizes["engine.workers.aggregated.parallelism"])
	}
	// Pairs of (TP, replicas) per role with prefill + decode GPUs ≤ 8: per GPU count n the
	// shapes are c(n) = 1,2,1,3,1,2,1 for n = 1..7, and Σ_{a+b≤8} c(a)·c(b) = 71.
	if got := sizes["engine.workers.prefill.parallelism+engine.workers.decode.parallelism"]; got != 71 {
		t.Errorf("disaggregated pairs %d, want 71", got)
	}
	// A MoE model also tries attention data parallelism and expert parallelism.
	sp = mustSpace(t, `
engine: {mode: aggregated, backend: vllm, model: Qwen/Qwen3-30B-A3B, hardware: h200_sxm, workers: {aggregated: {}}}
optimization: {constraints: {max_candidate_gpus: 2}}
`)
	var shapes []string
	for _, v := range sp.Params[0].Values {
		m := spec.PlainTree(v[0]).(map[string]any)
		shapes = append(shapes, fmt.Sprintf("r%d t%d ad%d mt%d me%d", m["replicas"], m["tensor"], m["attention_data"], m["moe_tensor"], m["moe_expert"]))
	}
	want := []string{"r1 t1 ad1 mt1 me1", "r2 t1 ad1 mt1 me1", "r1 t2 ad1 mt2 me1", "r1 t2 ad1 mt1 me2", "r1 t1 ad2 mt2 me1", "r1 t1 ad2 mt1 me2"}
	if fmt.Sprint(shapes) != fmt.Sprint(want) {
		t.Errorf("MoE ladder %v\nwant %v", shapes, want)
	}
	_ = strconv.Itoa
}

// A default-ladder shape is proposed only with a backend it fits: Llama 3.1 70B at TP1 on
// an H200 fits TensorRT-LLM's fraction of free memory, not vLLM's or SGLang's fraction of the
// total, so TP1 comes only with trtllm — in coverage, random and model-based trials alike.
func TestLadderShapesOnlyWithBackendsTheyFit(t *testing.T) {
	sp := mustSpace(t, `
traffic: {source: {type: synthetic}, load: {type: concurrency, concurrency: 8}, stop: {requests: 8}}
engine: {mode: aggregated, backend: {choices: [vllm, sglang, trtllm]}, model: meta-llama/Llama-3.1-70B, hardware: h200_sxm, workers: {aggregated: {}}}
optimization: {target: throughput, constraints: {max_candidate_gpus: 8}}
`)
	for _, alg := range []string{spec.AlgorithmBayesian, spec.AlgorithmRandom} {
		s := driveSearch(t, sp, opt(alg, 200, 3), 16)
		tp1 := 0
		for _, c := range s.Candidates() {
			b, _ := spec.GetPath(c.Tree, "engine.backend")
			if treeNum(c.Tree, "engine.workers.aggregated.parallelism.tensor", 1) == 1 {
				tp1++
				if b != spec.BackendTRTLLM {
					t.Fatalf("%s: %s proposed with TP1, which leaves it no KV cache", alg, b)
				}
			}
		}
		if tp1 == 0 {
			t.Errorf("%s: TP1 never proposed with trtllm, which it fits", alg)
		}
	}
}

// Size counts what Enumerate lists, conditional parameters included.
func TestSpaceSizeCountsTheEnumeration(t *testing.T) {
	planner := []string{"optimization.target=goodput", "evaluation={sla: {ttft_ms: 500, itl_ms: 50}}",
		"planner={scaling_policy: {preset: [load_180_5, throughput_180_5, hybrid_600_5]}}",
		"engine.workers.aggregated.scheduler.max_sequences={choices: [4, 64]}"}
	for _, sets := range [][]string{{"engine.workers.aggregated.scheduler.max_sequences={choices: [4, 64]}"}, planner} {
		s := mustSpace(t, synthYAML, append(sets, "traffic.load.concurrency={choices: [1, 8]}")...)
		pts, err := s.Enumerate(1 << 20)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Size(); got != float64(len(pts)) || len(pts) < 20 {
			t.Errorf("Size %v, Enumerate lists %d points", got, len(pts))
		}
	}
	if got := mustSpace(t, synthYAML).Size(); !math.IsInf(got, 1) {
		t.Errorf("a continuous range: Size %v, want +Inf", got)
	}
}
