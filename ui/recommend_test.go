package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"reflect"
	"regexp"
	"strconv"
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
	svg := ParetoSVG(v, 480, []string{"candidate-000002"})
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
	// The axes fit the data: x 400..800 widened by 5 % (380..820) is 200..1000 (200 is the
	// smallest nice step that reaches 820 in 4 steps from a multiple at or below 380); y
	// 90..150 widened (87..153) is 80..160 in steps of 20. At width 480 the plot spans x
	// 62..464 and y 36..252, so the feasible point (400, 150) sits at (62 + 402·0.25,
	// 252 − 216·0.875).
	if !strings.Contains(svg, `data-x0="200" data-x1="1000" data-y0="80" data-y1="160"`) {
		t.Errorf("axis ranges: %s", svg[:strings.Index(svg, ">")])
	}
	if circles[1][4] != "162.5" || circles[1][5] != "63.0" {
		t.Errorf("feasible point at (%s, %s), want (162.5, 63.0)", circles[1][4], circles[1][5])
	}
	for _, want := range []string{`fill="none"`, "#1 candidate-000001 (feasible)\naggregated · vllm · h200_sxm · 1× TP2 · 2 GPUs\n400 tok/s per GPU, 150 tok/s per user",
		"throughput_per_gpu", "throughput_per_user", `class="pt-rank"`, `viewBox="0 0 480 300"`} {
		if !strings.Contains(svg, want) {
			t.Errorf("svg lacks %q", want)
		}
	}
	if n := strings.Count(svg, `class="pick-ring"`); n != 1 {
		t.Errorf("%d pick rings, want 1 (the picked candidate)", n)
	}
	if empty := ParetoSVG(&recview.View{}, 480, nil); !strings.Contains(empty, "no simulated candidate") {
		t.Error("empty chart")
	}
	// Drawn at the box's width, clamped to [280, 720]; a narrow chart puts its legend on a
	// row of its own.
	for _, c := range []struct {
		width float64
		view  string
	}{{300, `viewBox="0 0 300 318"`}, {100, `viewBox="0 0 280 318"`}, {2000, `viewBox="0 0 720 300"`}} {
		if svg := ParetoSVG(v, c.width, nil); !strings.Contains(svg, c.view) {
			t.Errorf("width %v: want %s", c.width, c.view)
		}
	}
}

// Points at one position share one label; a crowd of ranked points gets labels that
// overlap neither each other nor any point, inside the plot.
func TestParetoRankLabelsDoNotOverlap(t *testing.T) {
	var pts []recview.Point
	for i := 0; i < 10; i++ {
		// Ranks 1..10 in a tight cluster, ranks 2 and 3 at one position.
		x, y := 300+float64(i%4)*4, 200+float64(i/4)*3
		if i == 2 {
			x, y = 300+4, 200
		}
		pts = append(pts, recview.Point{CandidateID: fmt.Sprintf("c%d", i), Feasible: true, X: f(x), Y: f(y), Rank: i + 1})
	}
	pts = append(pts, recview.Point{CandidateID: "far", X: f(900), Y: f(100)})
	svg := ParetoSVG(&recview.View{Points: pts}, 360, nil)
	labels := regexp.MustCompile(`<text class="pt-rank" x="([\d.]+)" y="([\d.]+)">([\d,]+)</text>`).FindAllStringSubmatch(svg, -1)
	var texts []string
	var boxes []box
	for _, l := range labels {
		x, _ := strconv.ParseFloat(l[1], 64)
		y, _ := strconv.ParseFloat(l[2], 64)
		texts = append(texts, l[3])
		boxes = append(boxes, box{x, y - paretoRankFont*labelAscentEm, x + paretoRankFont*labelCharEm*float64(len(l[3])), y + paretoRankFont*labelDescentEm})
	}
	if want := []string{"1", "2,3", "4", "5", "6", "7", "8", "9", "10"}; !reflect.DeepEqual(texts, want) {
		t.Fatalf("labels %v, want %v", texts, want)
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			if o := boxes[i].overlap(boxes[j]); o > 0.01 {
				t.Errorf("labels %s and %s overlap by %.1f", texts[i], texts[j], o)
			}
		}
	}
	if !strings.Contains(svg, `class="pt-leader"`) {
		t.Error("a crowded label should sit away from its point with a leader line")
	}
}

func TestNiceRangeFitsTheData(t *testing.T) {
	near := func(x, y float64) bool { return math.Abs(x-y) <= 1e-9*math.Max(1, math.Abs(y)) }
	for _, c := range []struct{ lo, hi, a, b float64 }{
		{0, 860, 0, 1000}, {135, 219, 125, 225}, {380, 820, 200, 1000}, {0, 0.8, 0, 0.8}, {5, 5, 4.5, 5.5}, {0, 0, -1, 1},
	} {
		if a, b := niceRange(c.lo, c.hi); !near(a, c.a) || !near(b, c.b) {
			t.Errorf("niceRange(%v, %v) = %v, %v; want %v, %v", c.lo, c.hi, a, b, c.a, c.b)
		}
	}
	// Property: the axis holds the range, its ticks are multiples of the step, and it spans
	// at most 8/3 of the range.
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		lo := r.Float64() * math.Pow(10, float64(r.IntN(8)-3))
		hi := lo + r.Float64()*math.Pow(10, float64(r.IntN(8)-3)) + 1e-6
		a, b := niceRange(lo, hi)
		step := (b - a) / 4
		if a > lo || b < hi || b-a > 8.0/3*(hi-lo)*(1+1e-9) || math.Abs(a/step-math.Round(a/step)) > 1e-6*math.Max(1, math.Abs(a/step)) {
			t.Fatalf("niceRange(%v, %v) = %v, %v", lo, hi, a, b)
		}
	}
}

func TestTogglePickKeepsTheNewestTwo(t *testing.T) {
	var p []string
	for _, c := range []struct {
		id   string
		want []string
	}{{"a", []string{"a"}}, {"b", []string{"a", "b"}}, {"c", []string{"b", "c"}}, {"b", []string{"c"}}, {"c", []string{}}} {
		p = TogglePick(p, c.id)
		if !reflect.DeepEqual(p, c.want) {
			t.Fatalf("after %s: %v, want %v", c.id, p, c.want)
		}
	}
}

func TestCompareRowsAndConfigDiff(t *testing.T) {
	v := &recview.View{Target: "goodput", Objectives: []string{"goodput"}}
	a := recview.Row{Rank: 1, Score: f(200), UsedGPUs: 2, Summary: "aggregated · vllm · h200_sxm · 1× TP2",
		Metrics: map[string]*float64{recview.RowMetrics[0].Key: f(200)}}
	b := recview.Row{Rank: 3, Score: f(150), UsedGPUs: 1, Summary: "aggregated · vllm · h200_sxm · 1× TP1",
		Metrics: map[string]*float64{recview.RowMetrics[0].Key: f(0)}}
	lines := CompareRows(v, a, b)
	got := map[string]CompareLine{}
	for _, l := range lines {
		got[l.Label] = l
	}
	for label, want := range map[string]CompareLine{
		"rank":                        {"rank", "1", "3", ""},
		"deployment":                  {"deployment", a.Summary, b.Summary, ""},
		"GPUs":                        {"GPUs", "2", "1", "−50.0%"},
		"score (goodput)":             {"score (goodput)", "200", "150", "−25.0%"},
		recview.RowMetrics[0].Heading: {recview.RowMetrics[0].Heading, "200", "0", "−100.0%"},
		recview.RowMetrics[1].Heading: {recview.RowMetrics[1].Heading, "–", "–", ""},
	} {
		if got[label] != want {
			t.Errorf("%s: %+v, want %+v", label, got[label], want)
		}
	}
	if _, ok := got["USD/h"]; ok {
		t.Error("prices compared without prices")
	}
	diff := ConfigDiff("engine:\n  backend: vllm\n  workers: {aggregated: {parallelism: {tensor: 2}}}\nlist: [1, 2]\n",
		"engine:\n  backend: vllm\n  workers: {aggregated: {parallelism: {tensor: 1, replicas: 2}}}\nlist: [1, 3]\nextra: null\n")
	want := []string{"engine.workers.aggregated.parallelism.tensor: 2 → 1", "list[1]: 2 → 3",
		"engine.workers.aggregated.parallelism.replicas: – → 2", "extra: – → null"}
	if !reflect.DeepEqual(diff, want) {
		t.Errorf("diff %q, want %q", diff, want)
	}
	if d := ConfigDiff("a: 1\n", "a: 1\n"); len(d) != 0 {
		t.Errorf("same configurations differ: %q", d)
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
