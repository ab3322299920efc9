package ui

import (
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"aisimulate/simcore/spec"
	"aisimulate/wasm/jsapi/recview"
)

func recKnob(t *testing.T, d *Doc, id string) Knob {
	t.Helper()
	for _, k := range d.RecommendKnobs() {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("no knob %q", id)
	return Knob{}
}

func TestDefaultSweepIsTheExample(t *testing.T) {
	b, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if DefaultSweep != string(b) {
		t.Error("ui/sweeps/small.yaml differs from examples/recommend-small.yaml")
	}
}

// The form shows the schema's default domains when engine.mode / engine.backend are omitted.
func TestRecommendDefaultDomainsAreTheSchemas(t *testing.T) {
	d, _ := ParseDoc(DefaultSweep)
	d.Delete("engine.mode")
	d.Delete("engine.backend")
	rec, err := spec.LoadRecommendation([]byte(d.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, dm := range rec.Domains {
		if dm.Path == "engine.mode" || dm.Path == "engine.backend" {
			var vs []string
			for _, c := range dm.Choices {
				vs = append(vs, c.(string))
			}
			got[dm.Path] = strings.Join(vs, ",")
		}
	}
	if m := recKnob(t, d, "rec-mode").Value; m != got["engine.mode"] || m != "aggregated,disaggregated" {
		t.Errorf("mode knob %q, schema default %q", m, got["engine.mode"])
	}
	if b := recKnob(t, d, "rec-backend").Value; b != got["engine.backend"] || b != "vllm,sglang" {
		t.Errorf("backend knob %q, schema default %q", b, got["engine.backend"])
	}
}

func TestRecommendKnobsReadTheSweep(t *testing.T) {
	d, _ := ParseDoc(DefaultSweep)
	want := map[string]string{"rec-model": "meta-llama/Meta-Llama-3.1-8B-Instruct", "rec-hardware": "h200_sxm",
		"rec-backend": "vllm,sglang", "rec-mode": "aggregated,disaggregated", "rec-max-gpus": "4", "rec-target": "goodput",
		"rec-algorithm": "screened", "rec-max-trials": "24", "rec-seed": "7"}
	for id, v := range want {
		if k := recKnob(t, d, id); k.Value != v {
			t.Errorf("%s = %q, want %q", id, k.Value, v)
		}
	}
	if k := recKnob(t, d, "rec-target"); strings.Join(k.Options, ",") != strings.Join(spec.Targets, ",") {
		t.Errorf("targets %v", k.Options)
	}
}

// Form edits rewrite the YAML into a sweep that loads: one choice is a concrete value, several a
// domain in the options' order; removing a mode drops its roles, adding one declares them.
func TestApplyRecommendWritesLoadableSweeps(t *testing.T) {
	d, _ := ParseDoc(DefaultSweep)
	must := func(id, v string) {
		t.Helper()
		if err := d.ApplyRecommend(id, v); err != nil {
			t.Fatal(err)
		}
		if _, err := spec.LoadRecommendation([]byte(d.String()), nil); err != nil {
			t.Fatalf("after %s=%q the sweep does not load: %v\n%s", id, v, err, d.String())
		}
	}
	must("rec-backend", "trtllm,vllm")
	if !strings.Contains(d.String(), "backend:\n    choices:\n    - vllm\n    - trtllm\n") {
		t.Errorf("backend domain not in option order:\n%s", d.String())
	}
	must("rec-backend", "sglang")
	if d.GetString("engine.backend") != "sglang" {
		t.Errorf("one backend is a concrete value: %v", d.Get("engine.backend"))
	}
	must("rec-mode", "aggregated")
	if d.Get("engine.workers.prefill") != nil || d.Get("engine.workers.decode") != nil || d.GetString("engine.mode") != "aggregated" {
		t.Errorf("aggregated only keeps the prefill/decode roles:\n%s", d.String())
	}
	must("rec-mode", "aggregated,disaggregated")
	if d.Get("engine.workers.prefill") == nil || d.Get("engine.workers.decode") == nil {
		t.Errorf("disaggregated roles not declared:\n%s", d.String())
	}
	must("rec-mode", "disaggregated")
	if d.Get("engine.workers.aggregated") != nil {
		t.Errorf("aggregated role kept:\n%s", d.String())
	}
	must("rec-max-gpus", "8")
	must("rec-target", "pareto")
	must("rec-max-trials", "40")
	must("rec-seed", "3")
	must("rec-algorithm", "random")
	rec, _ := spec.LoadRecommendation([]byte(d.String()), nil)
	if rec.Optimization.MaxGPUs != 8 || rec.Optimization.Target != "pareto" || rec.Optimizer.MaxTrials != 40 || rec.Optimizer.Seed != 3 || rec.Optimizer.Algorithm != "random" {
		t.Errorf("optimization %+v optimizer %+v", rec.Optimization, rec.Optimizer)
	}
	must("rec-seed", "")
	if d.Get("optimizer.seed") != nil {
		t.Error("an emptied field is removed")
	}
	// No mode checked: the simulator names the field.
	_ = d.ApplyRecommend("rec-mode", "")
	_, err := spec.LoadRecommendation([]byte(d.String()), nil)
	var se *spec.Error
	if err == nil || !errors.As(err, &se) || d.RecommendKnobFor(se.Path) != "rec-mode" {
		t.Errorf("empty mode: %v", err)
	}
	if err := d.ApplyRecommend("nope", "x"); err == nil {
		t.Error("unknown knob accepted")
	}
}

func TestMultiValue(t *testing.T) {
	for _, c := range []struct {
		value, choice string
		on            bool
		want          string
	}{{"vllm,sglang", "trtllm", true, "vllm,sglang,trtllm"}, {"vllm,sglang", "vllm", false, "sglang"}, {"", "vllm", true, "vllm"}, {"vllm", "vllm", true, "vllm"}} {
		if got := multiValue(c.value, c.choice, c.on); got != c.want {
			t.Errorf("multiValue(%q, %q, %v) = %q, want %q", c.value, c.choice, c.on, got, c.want)
		}
	}
}

func TestRecHashRoundTripsAndIsDistinctFromPredictions(t *testing.T) {
	h := EncodeRecHash(DefaultSweep)
	if !strings.HasPrefix(h, "rec=") {
		t.Fatalf("hash %q", h[:10])
	}
	if y, ok := DecodeRecHash("#" + h); !ok || y != DefaultSweep {
		t.Error("rec hash does not round-trip")
	}
	if _, ok := DecodeHash("#" + h); ok {
		t.Error("a sweep link read as a prediction")
	}
	if _, ok := DecodeRecHash("#" + EncodeHash("a: 1")); ok {
		t.Error("a prediction link read as a sweep")
	}
}

func f(x float64) *float64 { return &x }

func TestParetoSVGMarksFeasibilityAndLinksCandidates(t *testing.T) {
	v := &recview.View{XKey: "throughput_per_gpu", YKey: "throughput_per_user", Points: []recview.Point{
		{CandidateID: "candidate-000001", Status: "feasible", Feasible: true, X: f(400), Y: f(150), Rank: 1, UsedGPUs: 2, Summary: "aggregated · vllm · h200_sxm · 1× TP2"},
		{CandidateID: "candidate-000002", Status: "infeasible", X: f(800), Y: f(90), UsedGPUs: 1, Summary: "aggregated · sglang · h200_sxm · 1× TP1"},
		{CandidateID: "candidate-000003", Status: "infeasible", X: nil, Y: f(1)},
	}}
	svg := ParetoSVG(v)
	circles := regexp.MustCompile(`<circle class="pt (\w+)" data-candidate="([\w-]+)" data-feasible="(\w+)" cx="([\d.]+)" cy="([\d.]+)"`).FindAllStringSubmatch(svg, -1)
	if len(circles) != 2 {
		t.Fatalf("%d points, want 2 (a point without coordinates is left out)", len(circles))
	}
	// Infeasible drawn first (under the feasible ones), as a hollow ring.
	if circles[0][1] != "infeasible" || circles[0][2] != "candidate-000002" || circles[0][3] != "false" {
		t.Errorf("first circle %v", circles[0][1:4])
	}
	if circles[1][1] != "feasible" || circles[1][2] != "candidate-000001" || circles[1][3] != "true" {
		t.Errorf("second circle %v", circles[1][1:4])
	}
	// x axis to countAxisMax(800) = 800, y to countAxisMax(150) = 200: the feasible point at
	// (400, 150) is in the middle of the plot horizontally, 3/4 up.
	if circles[1][4] != "263.0" || circles[1][5] != "67.5" {
		t.Errorf("feasible point at (%s, %s), want (263.0, 67.5)", circles[1][4], circles[1][5])
	}
	for _, want := range []string{`fill="none"`, "#1 candidate-000001 (feasible)\naggregated · vllm · h200_sxm · 1× TP2 · 2 GPUs\n400 tok/s per GPU, 150 tok/s per user",
		"throughput_per_gpu", "throughput_per_user", `class="pt-rank"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if empty := ParetoSVG(&recview.View{}); !strings.Contains(empty, "no simulated candidate") {
		t.Error("empty chart")
	}
}

func TestYAMLBundleKeepsEveryFileByteForByte(t *testing.T) {
	files := []BundleFile{{"recommendations/0001.yaml", "a: 1\n"}, {"recommendations/0002.yaml", "b: 2\n"}}
	got := YAMLBundle(files)
	want := "---\n# recommendations/0001.yaml\na: 1\n---\n# recommendations/0002.yaml\nb: 2\n"
	if got != want {
		t.Errorf("bundle %q", got)
	}
}

func TestParseRecommendView(t *testing.T) {
	b, _ := json.Marshal(recview.View{Target: "goodput", Rows: []recview.Row{{Rank: 1, CandidateID: "candidate-000001", Score: f(3)}}})
	v, err := ParseRecommendView(string(b))
	if err != nil || v.Target != "goodput" || len(v.Rows) != 1 || *v.Rows[0].Score != 3 {
		t.Errorf("view %+v, %v", v, err)
	}
	pts, err := ParsePoints(`[{"candidate_id":"candidate-000002","status":"infeasible","feasible":false,"x":1.5,"y":2,"used_gpus":1,"score":null,"rank":0,"config":"","summary":""}]`)
	if err != nil || len(pts) != 1 || pts[0].CandidateID != "candidate-000002" || *pts[0].X != 1.5 || pts[0].Feasible {
		t.Errorf("points %+v, %v", pts, err)
	}
	if countText(1, "file") != "1 file" || countText(3, "file") != "3 files" {
		t.Error("countText")
	}
	if OptionalNum(nil) != "–" || OptionalNum(f(1234)) != "1234" {
		t.Error("OptionalNum")
	}
}
