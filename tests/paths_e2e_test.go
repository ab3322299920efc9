package tests

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pathsTrace has two requests; the second's 3000-token prompt exceeds the tiny model's
// 2048-position context (engine.context_length: max), so a run that read the tiny model's
// config.json completes 1 request where a catalog model would complete 2.
const pathsTrace = `{"timestamp": 0, "input_length": 1000, "output_length": 4, "hash_ids": [1, 2]}
{"timestamp": 10, "input_length": 3000, "output_length": 4, "hash_ids": [1, 2, 3, 4, 5, 6]}
`

// pathsWorkspace lays out a directory tree for the path forms and returns its root; runs
// start in root/work, configurations live in root/work/conf:
//
//	root/models/tiny/config.json      reached as ../models/tiny or root/models/tiny
//	root/traces/m.jsonl               reached as ../traces/m.jsonl or root/traces/m.jsonl
//	root/work/tiny/config.json        reached as tiny (relative to the working directory)
//	root/work/traces/m.jsonl          reached as traces/m.jsonl
//	root/work/conf/tiny/config.json   broken: found only if paths were relative to the config
//	root/work/conf/traces/m.jsonl     broken, likewise
func pathsWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	model, err := os.ReadFile(filepath.Join(repoRoot, "simcore", "catalog", "testdata", "tiny-model", "config.json"))
	must(t, err)
	write := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("models/tiny/config.json", string(model))
	write("traces/m.jsonl", pathsTrace)
	write("work/tiny/config.json", string(model))
	write("work/traces/m.jsonl", pathsTrace)
	write("work/conf/tiny/config.json", "{not a model")
	write("work/conf/traces/m.jsonl", "not a trace\n")
	return root
}

// pathForms are the three ways of naming the model directory and the trace.
func pathForms(root string) []struct{ name, model, trace string } {
	abs := filepath.ToSlash(root)
	return []struct{ name, model, trace string }{
		{"relative", "tiny", "traces/m.jsonl"},
		{"dotdot", "../models/tiny", "../traces/m.jsonl"},
		{"absolute", abs + "/models/tiny", abs + "/traces/m.jsonl"},
	}
}

const pathsPredict = `traffic:
  source: {type: trace, format: mooncake, paths: [TRACE]}
  load: {type: concurrency, concurrency: 2}
engine:
  model: MODEL
  hardware: h200_sxm
  workers:
    aggregated:
      kv_cache: {capacity: {type: fixed, blocks: 64}}
      timing: {type: fixed, prefill_ms: 1, decode_ms: 1}
`

const pathsRecommend = pathsPredict + `optimization: {target: throughput, constraints: {max_candidate_gpus: 2}}
optimizer: {max_trials: 4, parallelism: 2, seed: 5}
`

// writePathsConfig writes text with the form's model and trace to root/work/conf/name.
func writePathsConfig(t *testing.T, root, name, text, model, trace string) {
	t.Helper()
	text = strings.NewReplacer("MODEL", model, "TRACE", trace).Replace(text)
	if name == "recommend" {
		text = strings.Replace(text, "concurrency: 2}", "concurrency: {choices: [1, 2]}}", 1)
		text = strings.Replace(text, "  hardware: h200_sxm\n", "  hardware: h200_sxm\n  mode: aggregated\n  backend: vllm\n", 1)
	}
	must(t, os.WriteFile(filepath.Join(root, "work", "conf", name+".yaml"), []byte(text), 0o644))
}

// A local model directory and a trace named relative to the working directory, through `..`,
// or absolutely all reach their files from predict (docs/config.md, "File paths"); the
// configuration's own directory plays no part. The three give the same prediction.json.
func TestPredictFilePathForms(t *testing.T) {
	requireCore(t)
	root := pathsWorkspace(t)
	work := filepath.Join(root, "work")
	var first string
	for _, f := range pathForms(root) {
		writePathsConfig(t, root, "predict", pathsPredict, f.model, f.trace)
		r := runIn(work, fixedWall, "predict", "--stack", "dynamo", "--config", "conf/predict.yaml", "--output-dir", "out-"+f.name)
		if r.code != 0 {
			t.Fatalf("%s (model %s, trace %s): exit %d: %s", f.name, f.model, f.trace, r.code, r.stderr)
		}
		got := readFile(t, filepath.Join(work, "out-"+f.name, "prediction.json"))
		if !strings.Contains(got, `"completed_requests": 1,`) || !strings.Contains(got, `"num_requests": 2,`) {
			t.Fatalf("%s: the run did not read the tiny model and the two-request trace:\n%.400s", f.name, got)
		}
		if first == "" {
			first = got
		} else if got != first {
			t.Errorf("%s: prediction.json differs from the relative form's", f.name)
		}
	}
	// The forms given with --set, from another working directory.
	r := runIn(filepath.Join(work, "conf"), fixedWall, "predict", "--stack", "dynamo", "--config", "predict.yaml",
		"--set", "engine.model=../../models/tiny", "--set", "traffic.source.paths=[../../traces/m.jsonl]", "--output-dir", "../out-set")
	if r.code != 0 || readFile(t, filepath.Join(work, "out-set", "prediction.json")) != first {
		t.Errorf("--set with .. paths: exit %d %s", r.code, r.stderr)
	}
	// A directory that holds a broken config.json is reported as that directory, whatever
	// the form (it is not an unknown model).
	for _, model := range []string{"conf/tiny", "../work/conf/tiny", filepath.ToSlash(work) + "/conf/tiny"} {
		r := runIn(work, nil, "predict", "--stack", "dynamo", "--config", "conf/predict.yaml", "--set", "engine.model="+model, "--output-dir", "bad")
		if r.code != 2 || !strings.Contains(r.stderr, "engine.model: model directory \""+model+"\"") || exists(filepath.Join(work, "bad")) {
			t.Errorf("broken model %s: exit %d %q", model, r.code, r.stderr)
		}
	}
}

// recommend reads the same forms in its own instance, in its evaluator instances and, with
// --remote, in an edge worker's file system of uploaded parts (same bytes as local); every
// recommendations/NNNN.yaml it writes re-predicts from the same working directory.
func TestRecommendFilePathForms(t *testing.T) {
	requireCore(t)
	root := pathsWorkspace(t)
	work := filepath.Join(root, "work")
	server, _ := evaluatingServer(t, binaryVersion(t))
	for _, f := range pathForms(root) {
		writePathsConfig(t, root, "recommend", pathsRecommend, f.model, f.trace)
		out := "rec-" + f.name
		r := runIn(work, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0", "AISIMULATE_EVALUATORS=2"},
			"recommend", "--stack", "dynamo", "--config", "conf/recommend.yaml", "--output-dir", out)
		if r.code != 0 {
			t.Fatalf("%s (model %s, trace %s): exit %d: %s", f.name, f.model, f.trace, r.code, r.stderr)
		}
		var doc struct {
			Candidates []struct {
				Status  string         `json:"status"`
				Metrics map[string]any `json:"metrics"`
			} `json:"candidates"`
		}
		must(t, json.Unmarshal([]byte(readFile(t, filepath.Join(work, out, "recommendation.json"))), &doc))
		if len(doc.Candidates) == 0 {
			t.Fatalf("%s: no candidates", f.name)
		}
		for i, c := range doc.Candidates {
			if c.Status != "feasible" || c.Metrics["completed_requests"] != 1.0 {
				t.Errorf("%s: candidate %d is %s with %v completed requests, want feasible with 1 (the tiny model's context)", f.name, i, c.Status, c.Metrics["completed_requests"])
			}
		}
		rr := runIn(work, []string{"AISIMULATE_FIXED_WALL_TIME_MS=0"}, "recommend", "--stack", "dynamo",
			"--config", "conf/recommend.yaml", "--output-dir", out+"-remote", "--remote", server.URL)
		if rr.code != 0 {
			t.Fatalf("%s --remote: exit %d: %s", f.name, rr.code, rr.stderr)
		}
		sameTree(t, readTree(t, filepath.Join(work, out+"-remote")), readTree(t, filepath.Join(work, out)), f.name+" --remote")
		best := filepath.Join(out, "recommendations", "0001.yaml")
		if y := readFile(t, filepath.Join(work, best)); !strings.Contains(y, f.model) || !strings.Contains(y, f.trace) {
			t.Errorf("%s: the echo does not name the paths as written:\n%s", f.name, y)
		}
		if p := runIn(work, nil, "predict", "--stack", "dynamo", "--config", best, "--output-dir", out+"-again"); p.code != 0 {
			t.Errorf("%s: re-predicting %s: exit %d %s", f.name, best, p.code, p.stderr)
		}
	}
}
