package ui

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/measure"
	"aisimulate/wasm/jsapi/recview"
)

func knob(t *testing.T, d *Doc, id string) Knob {
	t.Helper()
	for _, k := range d.Knobs() {
		if k.ID == id {
			return k
		}
	}
	t.Fatalf("no knob %q", id)
	return Knob{}
}

func TestPresetsParseAndHaveTitles(t *testing.T) {
	ps := Presets()
	if len(ps) < 5 || !strings.HasPrefix(ps[0].Title, "Quickstart") {
		t.Fatalf("presets = %d, first %q", len(ps), ps[0].Title)
	}
	for _, p := range ps {
		d, err := ParseDoc(p.YAML)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if d.GetString("engine.model") == "" || d.GetString("engine.hardware") == "" {
			t.Errorf("%s: no model/hardware", p.Name)
		}
	}
}

func TestKnobsReadTheYAML(t *testing.T) {
	d, err := ParseDoc("engine:\n  model: m\n  hardware: h\n  workers:\n    aggregated:\n      parallelism: {replicas: 3}\ntraffic:\n  load: {type: poisson, requests_per_second: 2.5}\n")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"model": "m", "hardware": "h", "backend": "vllm", "mode": "aggregated",
		"aggregated-replicas": "3", "aggregated-tensor": "1", "load-type": "poisson", "load-value": "2.5", "stop": ""}
	for id, v := range want {
		if got := knob(t, d, id).Value; got != v {
			t.Errorf("%s = %q, want %q", id, got, v)
		}
	}
	if k := knob(t, d, "load-value"); k.Path != "traffic.load.requests_per_second" || k.Label != "Requests / s" {
		t.Errorf("load-value knob = %+v", k)
	}
}

func TestApplyRewritesTheYAMLKeepingOrder(t *testing.T) {
	d, _ := ParseDoc("traffic:\n  load: {type: concurrency, concurrency: 10}\nengine:\n  model: m\n")
	if err := d.Apply("aggregated-tensor", "4"); err != nil {
		t.Fatal(err)
	}
	if err := d.Apply("load-value", "32"); err != nil {
		t.Fatal(err)
	}
	got := d.String()
	want := "traffic:\n  load:\n    type: concurrency\n    concurrency: 32\nengine:\n  model: m\n  workers:\n    aggregated:\n      parallelism:\n        tensor: 4\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Text that is not a number stays text, so the simulator reports it at the field.
	d.Apply("aggregated-tensor", "four")
	if v := d.Get("engine.workers.aggregated.parallelism.tensor"); v != "four" {
		t.Errorf("tensor = %#v", v)
	}
	d.Apply("model", "")
	if d.Get("engine.model") != nil {
		t.Error("empty text should remove the key")
	}
	if err := d.Apply("nope", "1"); err == nil {
		t.Error("unknown knob accepted")
	}
}

func TestApplyLoadTypeReplacesTheUnion(t *testing.T) {
	d, _ := ParseDoc("traffic:\n  source: {type: synthetic}\n  load: {type: concurrency, concurrency: 8}\n")
	d.Apply("load-type", "poisson")
	if got := d.String(); got != "traffic:\n  source:\n    type: synthetic\n  load:\n    type: poisson\n    requests_per_second: 8\n" {
		t.Errorf("got\n%s", got)
	}
	d.Apply("load-type", "trace_timestamps")
	if v := d.Get("traffic.load.speedup"); v != 1.0 {
		t.Errorf("speedup = %#v", v)
	}
	d.Apply("load-type", "concurrency")
	if v := d.Get("traffic.load.concurrency"); v != 10 {
		t.Errorf("concurrency = %#v", v)
	}
}

func TestApplyModeMovesWorkers(t *testing.T) {
	d, _ := ParseDoc("engine:\n  workers:\n    aggregated:\n      parallelism: {tensor: 2}\n")
	d.Apply("mode", "disaggregated")
	if d.GetString("engine.workers.prefill.parallelism.tensor") != "2" || d.GetString("engine.workers.decode.parallelism.tensor") != "2" || d.Get("engine.workers.aggregated") != nil {
		t.Fatalf("disaggregated:\n%s", d.String())
	}
	if ids := []string{knob(t, d, "prefill-replicas").ID, knob(t, d, "decode-tensor").ID}; ids[0] == "" || ids[1] == "" {
		t.Error("role knobs missing")
	}
	d.Apply("decode-tensor", "8")
	d.Apply("mode", "aggregated")
	if d.GetString("engine.workers.aggregated.parallelism.tensor") != "8" || d.Get("engine.workers.decode") != nil {
		t.Fatalf("aggregated:\n%s", d.String())
	}
}

func TestFieldFor(t *testing.T) {
	d, _ := ParseDoc("engine: {model: m}\n")
	ks := d.Knobs()
	for path, want := range map[string]string{
		"engine.workers.aggregated.parallelism.tensor": "aggregated-tensor",
		"engine.model":           "model",
		"traffic.load.type":      "load-type",
		"traffic.load":           "",
		"engine":                 "",
		"":                       "",
		"evaluation.sla.ttft_ms": "",
	} {
		if got := FieldFor(ks, path); got != want {
			t.Errorf("FieldFor(%q) = %q, want %q", path, got, want)
		}
	}
}

func TestHashRoundTrip(t *testing.T) {
	y := "engine:\n  model: Qwen/Qwen3-8B # é\n"
	h := EncodeHash(y)
	if !strings.HasPrefix(h, "cfg=") || strings.ContainsAny(h[4:], "+/= ") {
		t.Errorf("hash not URL-safe: %s", h)
	}
	for _, frag := range []string{h, "#" + h, "x=1&" + h} {
		if got, ok := DecodeHash(frag); !ok || got != y {
			t.Errorf("DecodeHash(%q) = %q, %v", frag, got, ok)
		}
	}
	for _, bad := range []string{"", "#", "cfg=", "cfg=***", "%zz"} {
		if _, ok := DecodeHash(bad); ok {
			t.Errorf("DecodeHash(%q) ok", bad)
		}
	}
}

func testRecords() []Record {
	return ParseRecords(`{"arrival_time_ms":0.0,"first_admit_ms":0.0,"first_token_ms":2.0,"last_token_ms":4.0,"terminal_time_ms":4.0,"ttft_ms":2.0,"itl_ms":1.0,"e2e_latency_ms":4.0,"input_length":10,"output_length":3,"terminal_status":"completed"}
not json
{"arrival_time_ms":1.0,"first_admit_ms":3.0,"first_token_ms":5.0,"last_token_ms":5.0,"terminal_time_ms":5.0,"ttft_ms":4.0,"itl_ms":null,"e2e_latency_ms":4.0,"input_length":20,"output_length":1,"terminal_status":"completed"}
{"arrival_time_ms":2.0,"first_admit_ms":null,"first_token_ms":null,"last_token_ms":null,"terminal_time_ms":2.0,"ttft_ms":null,"itl_ms":null,"e2e_latency_ms":null,"input_length":5,"output_length":0,"terminal_status":"rejected"}
`)
}

func TestSeriesFromRecords(t *testing.T) {
	recs := testRecords()
	if len(recs) != 3 {
		t.Fatalf("records = %d", len(recs))
	}
	ttft, itl, e2e := Latencies(recs)
	if len(ttft) != 2 || ttft[1] != 4 || len(itl) != 1 || len(e2e) != 2 {
		t.Errorf("latencies %v %v %v", ttft, itl, e2e)
	}
	if got := QueueDepth(recs); !equalPoints(got, []Point{{0, 0}, {1, 1}, {3, 0}}) {
		t.Errorf("queue = %v", got)
	}
	if got := Running(recs); !equalPoints(got, []Point{{0, 1}, {3, 2}, {4, 1}, {5, 0}}) {
		t.Errorf("running = %v", got)
	}
	kv := KVTokens(recs, 5) // samples at 0,1,2,3,4,5
	want := []float64{10, 10, 10 + 1, 10 + 1 + 1 + 20, 20, 0}
	for i, p := range kv {
		if math.Abs(p.V-want[i]) > 1e-9 || p.T != float64(i) {
			t.Errorf("kv[%d] = %v, want %v", i, p, want[i])
		}
	}
}

func equalPoints(a, b []Point) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestPlannerReplicasAndSummary(t *testing.T) {
	pred := `{"planner": {"ticks": [{"at_ms": 0.0, "topology": {"decode": {"active_count": 1, "starting_count": 0}, "prefill": {"active_count": 0, "starting_count": 0}}},
	{"at_ms": 5000.0, "topology": {"decode": {"active_count": 1, "starting_count": 2}, "prefill": {}}}]}, "summary": {"completed_requests": 6, "mean_ttft_ms": 2.5}}`
	pools, series := PlannerReplicas(pred)
	if len(pools) != 1 || pools[0] != "decode" || !equalPoints(series[0], []Point{{0, 1}, {5000, 3}}) {
		t.Errorf("pools %v series %v", pools, series)
	}
	if p, _ := PlannerReplicas(`{"planner": null}`); p != nil {
		t.Error("no planner should give nil")
	}
	s := ParseSummary(pred)
	if s["completed_requests"] != 6 || s["mean_ttft_ms"] != 2.5 {
		t.Errorf("summary %v", s)
	}
}

// The app reads the saturation section whole, and nothing from a document without one.
func TestParseSaturation(t *testing.T) {
	sat := ParseSaturation(`{"saturation": {"queue_trend": "growing", "offered_request_rate_rps": 250.0, "bottleneck": null}, "summary": {}}`)
	if sat["queue_trend"] != "growing" || sat["offered_request_rate_rps"] != 250.0 || len(sat) != 3 {
		t.Errorf("saturation %v", sat)
	}
	for _, doc := range []string{`{"summary": {}}`, `{"saturation": null}`, `not json`} {
		if sat := ParseSaturation(doc); sat != nil {
			t.Errorf("ParseSaturation(%s) = %v, want nil", doc, sat)
		}
	}
}

func TestFormatNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1: "1", 1.5: "1.5", 2.345: "2.35", 12.34: "12.3", 153.2: "153",
		1254.9: "1255", 20400: "20.4k", 2.5e6: "2.5M", 3e9: "3G", 0.00567: "0.00567", -12.5: "-12.5"} {
		if got := FormatNum(v); got != want {
			t.Errorf("FormatNum(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestChartsAreWellFormedSVG(t *testing.T) {
	h := HistogramSVG("TTFT <x>", "ms", []float64{1, 2, 2, 3, 10}, Palette[0])
	for _, want := range []string{`<svg xmlns="http://www.w3.org/2000/svg"`, "TTFT &lt;x&gt;", "n = 5", "p50 2", "p99 10", "</svg>"} {
		if !strings.Contains(h, want) {
			t.Errorf("histogram lacks %q", want)
		}
	}
	if strings.Contains(h, "NaN") || strings.Contains(h, "Inf") {
		t.Error("histogram has NaN/Inf")
	}
	if one := HistogramSVG("x", "ms", []float64{5, 5}, "red"); strings.Contains(one, "NaN") || !strings.Contains(one, "n = 2") {
		t.Error("constant samples")
	}
	if e := HistogramSVG("x", "ms", nil, "red"); !strings.Contains(e, "no samples") {
		t.Error("empty histogram")
	}
	l := LineSVG("Queue", "requests", []string{"a", "b"}, [][]Point{{{0, 0}, {1000, 2}}, {{0, 1}}}, 3000)
	if !strings.Contains(l, "<path d=\"M") || !strings.Contains(l, ">a</text>") || !strings.Contains(l, ">3</text>") || !strings.Contains(l, "time (s)") || strings.Contains(l, "NaN") {
		t.Errorf("line chart: %s", l)
	}
	if e := LineSVG("x", "", nil, nil, 0); !strings.Contains(e, "no data") {
		t.Error("empty line chart")
	}
}

func TestPlaceholdersShowSchemaDefaults(t *testing.T) {
	d, _ := ParseDoc("engine: {model: m}\n")
	if p := knob(t, d, "load-value").Placeholder; p != "10" {
		t.Errorf("load-value placeholder %q", p)
	}
	if p := knob(t, d, "stop").Placeholder; p != "100" {
		t.Errorf("stop placeholder %q", p)
	}
	if p := knob(t, d, "hardware").Placeholder; p != "required" {
		t.Errorf("hardware placeholder %q", p)
	}
	if p := knob(t, d, "model").Placeholder; p != "" {
		t.Errorf("set model has placeholder %q", p)
	}
}

func TestWarmTouchesEveryResultPath(t *testing.T) {
	if n := Warm(); n < 1000 {
		t.Errorf("Warm produced only %d bytes of output", n)
	}
}

func TestRecordsFromFlatMatchesParseRecords(t *testing.T) {
	nan := math.NaN()
	flat := []float64{0, 0, 2, 4, 4, 2, 1, 4, 10, 3, 1, 1, 3, 5, 5, 5, 4, nan, 4, 20, 1, 1, 2, nan, nan, nan, 2, nan, nan, nan, 5, 0, 0}
	got := RecordsFromFlat(flat)
	want := testRecords()
	if len(got) != len(want) {
		t.Fatalf("%d records", len(got))
	}
	for i := range want {
		w := want[i]
		if w.Status != "completed" {
			w.Status = "other"
		}
		g := got[i]
		if g.Arrival != w.Arrival || g.Terminal != w.Terminal || g.Input != w.Input || g.Output != w.Output || g.Status != w.Status ||
			!sameOpt(g.FirstAdmit, w.FirstAdmit) || !sameOpt(g.FirstToken, w.FirstToken) || !sameOpt(g.LastToken, w.LastToken) ||
			!sameOpt(g.TTFT, w.TTFT) || !sameOpt(g.ITL, w.ITL) || !sameOpt(g.E2E, w.E2E) {
			t.Errorf("record %d: %+v, want %+v", i, g, w)
		}
	}
}

func sameOpt(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// The form offers every catalog hardware id (including ones added after the form was
// written, such as b60) and suggests every catalog model.
func TestKnobsOfferTheCatalog(t *testing.T) {
	d, err := ParseDoc("engine: {model: Qwen/Qwen3-8B, hardware: h200_sxm}\n")
	if err != nil {
		t.Fatal(err)
	}
	var hw, models []string
	for _, k := range d.Knobs() {
		switch k.ID {
		case "hardware":
			hw = k.Options
		case "model":
			models = k.Options
		}
	}
	for _, id := range catalog.HardwareIDs() {
		if !slices.Contains(hw, id) {
			t.Errorf("hardware %q is in the catalog but not offered", id)
		}
	}
	if !slices.Contains(hw, "b60") {
		t.Errorf("b60 not offered: %v", hw)
	}
	for _, id := range catalog.Models() {
		if !slices.Contains(models, id) {
			t.Errorf("model %q is in the catalog but not suggested", id)
		}
	}
}

// Count axes have whole-number ticks, every chart names its axes with units, p50/p99/SLA
// labels that would overlap go on separate rows, and an SLA bound is drawn.
func TestChartAxesLabelsAndBounds(t *testing.T) {
	for v, want := range map[float64]float64{0: 4, 1: 4, 3: 4, 5: 8, 7: 8, 9: 20, 10: 20, 33: 40, 41: 80, 150: 200, 1234: 2000} {
		if got := countAxisMax(v); got != want {
			t.Errorf("countAxisMax(%v) = %v, want %v", v, got, want)
		}
	}
	h := HistogramWithBound("Time to first token", "ms", []float64{80, 81, 82, 83, 90}, Palette[0], 200)
	for _, want := range []string{">latency (ms)</text>", ">requests</text>", `class="bound"`, ">SLA 200</text>"} {
		if !strings.Contains(h, want) {
			t.Errorf("histogram lacks %q:\n%s", want, h)
		}
	}
	ticks := regexp.MustCompile(`text-anchor="end">([0-9.]+)</text>`).FindAllStringSubmatch(h, -1)
	for _, m := range ticks {
		if strings.Contains(m[1], ".") {
			t.Errorf("fractional count tick %q", m[1])
		}
	}
	// p50 81 and p99 90 are 9 ms apart on a 0–204 ms axis: their labels must not share a row.
	ys := regexp.MustCompile(`class="marker-label" text-anchor="\w+">p(?:50|99) [0-9.]+</text>`).FindAllString(h, -1)
	rows := regexp.MustCompile(`y="(\d+)" class="marker-label"`).FindAllStringSubmatch(h, -1)
	if len(ys) != 2 || len(rows) != 2 || rows[0][1] == rows[1][1] {
		t.Errorf("p50/p99 labels on one row: %q", rows)
	}
	l := LineSVG("Queue depth", "requests", []string{""}, [][]Point{{{0, 0}, {1000, 3}}}, 2000)
	if !strings.Contains(l, ">requests</text>") || !strings.Contains(l, ">time (s)</text>") {
		t.Errorf("line chart axis titles: %s", l)
	}
}

// The A/B comparison: a baseline histogram is drawn as an outline with a note, and cards
// show the relative change.
func TestComparison(t *testing.T) {
	h := HistogramCompare("TTFT", "ms", []float64{10, 11, 12}, []float64{20, 21, 40}, Palette[0], 0)
	if !strings.Contains(h, `class="baseline"`) || !strings.Contains(h, "previous run (n = 3)") || !strings.Contains(h, ">40</text>") {
		t.Errorf("comparison histogram:\n%s", h)
	}
	if strings.Contains(HistogramSVG("TTFT", "ms", []float64{10, 11}, Palette[0]), "baseline") {
		t.Error("baseline drawn without one")
	}
	for _, c := range []struct {
		v, base float64
		want    string
	}{{110, 100, "vs previous: +10.0%"}, {90, 100, "vs previous: −10.0%"}, {5, 5, "vs previous: same"}, {3, 0, "vs previous: +3"}} {
		if got := DeltaText(c.v, c.base); got != c.want {
			t.Errorf("DeltaText(%v, %v) = %q, want %q", c.v, c.base, got, c.want)
		}
	}
}

func TestParseIntervalsReadsTheBands(t *testing.T) {
	doc := `{"intervals": {"group": "vllm/agg/c1-32", "source": "default",
		"mean_ttft_ms": {"n": 5, "p10": 10.5, "p90": 30.25}, "output_throughput_tok_s": {"n": 5, "p10": 1000, "p90": 2500}},
		"summary": {"mean_ttft_ms": 20}}`
	iv := ParseIntervals(doc)
	if len(iv) != 2 || iv["mean_ttft_ms"] != [2]float64{10.5, 30.25} || iv["output_throughput_tok_s"] != [2]float64{1000, 2500} {
		t.Errorf("ParseIntervals = %v", iv)
	}
	if got := BandText(iv["mean_ttft_ms"]); got != "80 %: "+FormatNum(10.5)+"–"+FormatNum(30.25) {
		t.Errorf("BandText = %q", got)
	}
	if ParseIntervals(`{"intervals": null, "summary": {}}`) != nil {
		t.Error("null intervals: want none")
	}
}

func TestIntervalCell(t *testing.T) {
	if got := IntervalCell(nil, false); got != "–" {
		t.Errorf("no interval: %q", got)
	}
	iv := [2]float64{10.5, 30.25}
	if got, want := IntervalCell(&iv, true), "≈ "+FormatNum(10.5)+"–"+FormatNum(30.25); got != want {
		t.Errorf("within error: %q, want %q", got, want)
	}
}

// A profile is told from a benchmark result by its keys; a calibrated prediction gives the
// uncalibrated summary, the warnings and the source of its bands.
func TestCalibrationHelpers(t *testing.T) {
	for _, c := range []struct {
		text string
		want bool
	}{
		{`{"schema_version": 1, "program": "x", "entries": []}`, true},
		{`{"mean_ttft_ms": 190, "model_id": "m"}`, false},
		{"curve_id,id\n", false},
		{`[1]`, false},
	} {
		if IsProfile([]byte(c.text)) != c.want {
			t.Errorf("IsProfile(%q) = %v", c.text, !c.want)
		}
	}
	pred := `{"intervals": {"source": "calibration"}, "summary": {"mean_ttft_ms": 2.0},
  "uncalibrated": {"mean_ttft_ms": 1.5, "num_requests": 3}, "calibration": {"warnings": ["outside"]}}`
	got := ParseCalibrated(pred)
	if got == nil || got.Uncalibrated["mean_ttft_ms"] != 1.5 || len(got.Warnings) != 1 || !got.ProfileBands {
		t.Errorf("ParseCalibrated = %+v", got)
	}
	if ParseCalibrated(`{"summary": {}}`) != nil {
		t.Error("an uncalibrated prediction parsed as calibrated")
	}
	if s := UncalibratedText(1500, 0.001); s != "uncalibrated "+FormatNum(1.5) {
		t.Errorf("UncalibratedText = %q", s)
	}
}

// A band reads as the cards' numbers; none is empty.
func TestBandRange(t *testing.T) {
	if got := BandRange(nil); got != "" {
		t.Errorf("no band: %q", got)
	}
	if got, want := BandRange(&[2]float64{10.5, 1234.5}), FormatNum(10.5)+"–"+FormatNum(1234.5); got != want {
		t.Errorf("band %q, want %q", got, want)
	}
}

// The Recommend view's calibration line names every profile with a 12-digit hash prefix,
// counts the calibrated candidates and says what happened to the others (strict or not);
// an uncalibrated result has no line.
func TestRecommendCalibrationText(t *testing.T) {
	if got := RecommendCalibrationText(nil, 5); got != "" {
		t.Errorf("uncalibrated: %q", got)
	}
	c := &recview.Calibration{Profiles: []recview.ProfileRef{{File: "a.json", SHA256: "0123456789abcdef0123"}, {File: "b.json", SHA256: "ff"}},
		CalibratedCandidates: 3}
	got := RecommendCalibrationText(c, 7)
	want := `Calibrated with a.json (sha256 0123456789ab…), b.json (sha256 ff): 3 of 7 simulated candidates predicted with a profile, ` +
		`their metrics calibrated and their 80 % intervals the profile's (marked "calibrated" in the table); the others (another model, GPU, backend or mode) on the default model.`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	c.Strict = true
	if got := RecommendCalibrationText(c, 1); !strings.Contains(got, ": 3 of 1 simulated candidate predicted") || !strings.HasSuffix(got, "; strict: a candidate no profile covers is unsupported.") {
		t.Errorf("strict: %s", got)
	}
}

// An in-page fit's error gets the line sending the file to the Predict view only when the fit
// had no configuration and the file records no deployment: a bad length draw or a file whose
// recorded draw contradicts the length field is shown as the core says it.
func TestFitErrorText(t *testing.T) {
	noDeploy := "c8.json: " + measure.NoDeploymentMsg
	conflict := "c8.json: #1: the file records the length draw uniform [0.8, 1] but --lengths gives uniform [0.9, 1]; calibrate this file without --lengths"
	for _, c := range []struct {
		message, msg  string
		withoutConfig bool
		want          string
	}{
		{noDeploy, measure.NoDeploymentMsg, true, noDeploy + " " + RecommendFitHint},
		{noDeploy, measure.NoDeploymentMsg, false, noDeploy},
		{conflict, strings.TrimPrefix(conflict, "c8.json: #1: "), true, conflict},
		{"lengths.min_ratio: must be at most 1, got 3", "must be at most 1, got 3", true, "lengths.min_ratio: must be at most 1, got 3"},
	} {
		if got := FitErrorText(c.message, c.msg, c.withoutConfig); got != c.want {
			t.Errorf("FitErrorText(%q, %v) = %q, want %q", c.msg, c.withoutConfig, got, c.want)
		}
	}
}
