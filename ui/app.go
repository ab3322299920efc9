//go:build js && wasm

package ui

import (
	"encoding/binary"
	"math"
	"sort"
	"strconv"
	"syscall/js"

	"aisimulate/simcore/report"

	"github.com/hexops/vecty"
	"github.com/hexops/vecty/elem"
	"github.com/hexops/vecty/event"
	"github.com/hexops/vecty/prop"
)

// RunError is a failed run as reported by window.aisimulate.predict.
type RunError struct {
	Kind, Path, Msg, Message string
}

// App is the whole page: configuration panel on the left, results on the right.
type App struct {
	vecty.Core

	presets  []Preset
	preset   int
	yamlText string
	doc      *Doc
	docErr   string
	files    map[string][]byte

	running  bool
	progress float64
	started  float64
	elapsed  float64
	runErr   *RunError
	fieldErr map[string]string
	notice   string
	// drafts holds what the user has typed into a form field but not yet committed (the
	// change event applies it to the YAML). A re-render in between (progress, the worker
	// becoming ready) shows the draft instead of resetting the field to the YAML's value.
	drafts map[string]string

	prediction string
	// ranYAML is the configuration the prediction ran on (its deployment download).
	ranYAML  string
	requests string
	summary  Summary
	// saturation is prediction.json's saturation section (docs/semantics/outputs.md §3.4).
	saturation map[string]any
	// overview is the run's deployment as resolved and its SLA attainment (overviewJson).
	overview *report.Overview
	// intervals are prediction.json's intervals (docs/uncertainty.md), by summary key.
	intervals  Intervals
	charts     []string
	plannerDoc string
	// last is the latest successful run; base the one before it, kept as the A/B baseline
	// (cards show deltas against it, charts draw it in grey) until cleared.
	last, base *runData

	// view is viewPredict or viewRecommend (the header's tabs); rec is the Recommend view.
	view string
	rec  recommendState
	// cal is the Predict view's calibration.
	cal calibrationState
}

// runData is what the comparison needs of a successful run.
type runData struct {
	summary        Summary
	records        []Record
	ttft, itl, e2e []float64
}

// NewApp creates the app with the configuration from the URL fragment, or the first preset.
func NewApp() *App {
	a := &App{presets: Presets(), files: map[string][]byte{}, view: viewPredict}
	a.setRecYAML(DefaultSweep)
	hash := js.Global().Get("location").Get("hash").String()
	if y, ok := DecodeRecHash(hash); ok {
		a.view = viewRecommend
		a.setRecYAML(y)
	}
	if y, ok := DecodeHash(hash); ok {
		a.preset = -1
		for i, p := range a.presets {
			if p.YAML == y {
				a.preset = i
			}
		}
		a.setYAML(y)
	} else {
		a.setYAML(a.presets[0].YAML)
	}
	return a
}

// RunFromURL runs what the page's URL carries: a prediction (#cfg=) or a recommendation
// sweep (#rec=); nothing when it carries neither.
func (a *App) RunFromURL() {
	hash := js.Global().Get("location").Get("hash").String()
	if _, ok := DecodeRecHash(hash); ok {
		a.RunRecommend()
		return
	}
	if _, ok := DecodeHash(hash); ok {
		a.Run()
	}
}

func (a *App) setYAML(y string) {
	a.yamlText = y
	a.drafts = nil
	d, err := ParseDoc(y)
	if err != nil {
		a.doc, a.docErr = nil, err.Error()
		return
	}
	a.doc, a.docErr = d, ""
}

func now() float64 { return js.Global().Get("performance").Call("now").Float() }

// Run starts a prediction of the current configuration in the Web Worker.
func (a *App) Run() {
	if a.running {
		return
	}
	a.running, a.progress, a.runErr, a.fieldErr, a.notice = true, 0, nil, nil, ""
	a.ranYAML = a.yamlText
	a.started = now()
	js.Global().Get("performance").Call("mark", "aisimulate-run")
	js.Global().Get("history").Call("replaceState", nil, "", "#"+EncodeHash(a.yamlText))
	opts := js.Global().Get("Object").New()
	opts.Set("files", a.filesJS())
	opts.Set("capturePerRequest", true)
	if len(a.cal.profiles) > 0 {
		opts.Set("calibrations", a.profilesJS())
		opts.Set("strictCalibration", a.cal.strict)
	}
	var onProgress, onOK, onErr js.Func
	onProgress = js.FuncOf(func(_ js.Value, args []js.Value) any {
		a.progress = args[0].Float()
		vecty.Rerender(a)
		return nil
	})
	release := func() { onProgress.Release(); onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		r := args[0]
		a.overview = ParseOverview(r.Get("overviewJson").String())
		a.finish(r.Get("predictionJson").String(), r.Get("requestsJsonl").String(), nil)
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		e := args[0]
		str := func(k string) string {
			if v := e.Get(k); v.Type() == js.TypeString {
				return v.String()
			}
			return ""
		}
		re := &RunError{Kind: str("kind"), Path: str("path"), Msg: str("msg"), Message: str("message")}
		if re.Message == "" {
			re.Message = e.Call("toString").String()
		}
		a.finish("", "", re)
		return nil
	})
	opts.Set("onProgress", onProgress)
	api := js.Global().Get("aisimulate")
	// Adopt the run aisimulate.js started for the URL's configuration, if it is this one.
	if ini := api.Get("initial"); ini.Truthy() && len(a.files) == 0 && len(a.cal.profiles) == 0 && ini.Get("yaml").String() == a.yamlText {
		api.Set("initial", nil)
		ini.Set("onProgress", onProgress)
		ini.Get("result").Call("then", onOK, onErr)
	} else {
		api.Call("predict", a.yamlText, opts).Call("then", onOK, onErr)
	}
	vecty.Rerender(a)
}

func (a *App) finish(pred, reqs string, err *RunError) {
	perf := js.Global().Get("performance")
	perf.Call("mark", "aisimulate-result")
	defer perf.Call("mark", "aisimulate-result-rendered")
	a.running = false
	a.elapsed = now() - a.started
	a.runErr = err
	if err != nil {
		// The previous run's results do not belong to this configuration: clear them.
		a.summary, a.intervals, a.saturation, a.overview, a.charts, a.prediction, a.requests = nil, nil, nil, nil, nil, "", ""
		a.cal.calibrated = nil
		if a.doc != nil && err.Path != "" {
			if id := FieldFor(a.doc.Knobs(), err.Path); id != "" {
				a.fieldErr = map[string]string{id: err.Path + ": " + err.Msg}
			}
		}
		vecty.Rerender(a)
		return
	}
	a.prediction, a.requests = pred, reqs
	// prediction.json carries the per-request records too: let the engine's JSON.parse split
	// off the small parts the page decodes in Go.
	parts := splitPredictionJS.Invoke(pred, report.KeySaturation)
	a.summary = ParseSummary(parts.Index(0).String())
	a.saturation = ParseSaturation(parts.Index(2).String())
	a.intervals = ParseIntervals(parts.Index(0).String())
	a.cal.calibrated = ParseCalibrated(parts.Index(0).String())
	plannerDoc := parts.Index(1).String()
	recs := recordsFast(reqs)
	perf.Call("mark", "aisimulate-result-parsed")
	run := &runData{summary: a.summary, records: recs}
	run.ttft, run.itl, run.e2e = Latencies(recs)
	if a.last != nil {
		a.base = a.last
	}
	a.last = run
	a.plannerDoc = plannerDoc
	a.buildCharts()
	perf.Call("mark", "aisimulate-result-charted")
	vecty.Rerender(a)
	// In the one-column layout the results are below the configuration: bring them into view
	// once the new results are laid out.
	scrollToResultsJS.Invoke(narrowLayoutPx, "results")
}

// buildCharts draws the charts of the latest run, with the baseline run in grey when set.
func (a *App) buildCharts() {
	run, base := a.last, a.base
	if run == nil {
		return
	}
	var bt, bi, be []float64
	if base != nil {
		bt, bi, be = base.ttft, base.itl, base.e2e
	}
	end := run.summary[report.KeyDurationMs]
	names := []string{""}
	lines := func(f func([]Record) []Point) [][]Point {
		if base == nil {
			return [][]Point{f(run.records)}
		}
		end = math.Max(end, base.summary[report.KeyDurationMs])
		return [][]Point{f(run.records), f(base.records)}
	}
	if base != nil {
		names = []string{"this run", "previous"}
	}
	queue, running := lines(QueueDepth), lines(Running)
	kv := lines(func(r []Record) []Point { return KVTokens(r, 240) })
	a.charts = []string{
		HistogramCompare("Time to first token", "ms", run.ttft, bt, Palette[0], a.slaBound("ttft_ms")),
		// The SLA's ITL bound applies to this per-request mean, not to the pooled gaps of the
		// ITL cards (docs/web.md).
		HistogramCompare("ITL per request (mean gap after the first token)", "ms", run.itl, bi, Palette[1], a.slaBound("itl_ms")),
		HistogramCompare("End-to-end latency", "ms", run.e2e, be, Palette[2], a.slaBound("e2e_ms")),
		LineSVG("Queue depth (waiting requests)", "requests", names, queue, end),
		LineSVG("Running batch (admitted requests)", "requests", names, running, end),
		LineSVG("KV cache in use (tokens, estimated)", "tokens", names, kv, end),
	}
	if pools, series := PlannerReplicas(a.plannerDoc); len(pools) > 0 {
		a.charts = append(a.charts, LineSVG("Planner: provisioned workers", "workers", pools, series, end))
	}
}

// narrowLayoutPx is the viewport width at and below which the page has one column
// (static/style.css, the max-width media query of .layout).
const narrowLayoutPx = 900

// scrollToResultsJS scrolls the element with the given id (#results, #rec-results) to the top
// of a viewport at most maxWidth wide, two animation frames later (after vecty has rendered
// and the browser laid out the results).
var scrollToResultsJS = js.Global().Get("Function").New("maxWidth", "id", `
  requestAnimationFrame(() => requestAnimationFrame(() => {
    const el = document.getElementById(id);
    if (el && window.innerWidth <= maxWidth) el.scrollIntoView({ block: "start" });
  }));`)

// slaBound is evaluation.sla.<key> of the configuration that ran, 0 when unset.
func (a *App) slaBound(key string) float64 {
	if a.doc == nil {
		return 0
	}
	f, err := strconv.ParseFloat(a.doc.GetString("evaluation.sla."+key), 64)
	if err != nil || f <= 0 {
		return 0
	}
	return f
}

// flatRecordsJS turns requests.jsonl into the flat float64 layout of RecordsFromFlat.
var flatRecordsJS = js.Global().Get("Function").New("text", `
  const lines = text.split("\n");
  const out = new Float64Array(lines.length * 11);
  const v = (x) => (x === null || x === undefined) ? NaN : +x;
  let n = 0;
  for (const l of lines) {
    if (!l) continue;
    let r;
    try { r = JSON.parse(l); } catch (e) { continue; }
    out.set([v(r.arrival_time_ms), v(r.first_admit_ms), v(r.first_token_ms), v(r.last_token_ms), v(r.terminal_time_ms),
      v(r.ttft_ms), v(r.itl_ms), v(r.e2e_latency_ms), v(r.input_length), v(r.output_length),
      r.terminal_status === "completed" ? 1 : 0], n * 11);
    n++;
  }
  return new Uint8Array(out.buffer, 0, n * 11 * 8);`)

// splitPredictionJS returns [{"calibration": …, "intervals": …, "summary": …, "uncalibrated":
// …}, {"planner": …}, {key: …}] as JSON texts (key is the saturation section's).
var splitPredictionJS = js.Global().Get("Function").New("text", "key", `
  const d = JSON.parse(text);
  return [JSON.stringify({ calibration: d.calibration, intervals: d.intervals, summary: d.summary, uncalibrated: d.uncalibrated }),
    JSON.stringify({ planner: d.planner }),
    JSON.stringify({ [key]: d[key] })];`)

// recordsFast parses requests.jsonl with the engine's JSON.parse.
func recordsFast(jsonl string) []Record {
	u := flatRecordsJS.Invoke(jsonl)
	b := make([]byte, u.Get("length").Int())
	js.CopyBytesToGo(b, u)
	v := make([]float64, len(b)/8)
	for i := range v {
		v[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[i*8:]))
	}
	return RecordsFromFlat(v)
}

func (a *App) onKnob(id string) func(*vecty.Event) {
	return func(e *vecty.Event) {
		if a.doc == nil {
			return
		}
		if err := a.doc.Apply(id, e.Target.Get("value").String()); err != nil {
			return
		}
		a.preset = -1
		a.setYAML(a.doc.String())
		delete(a.fieldErr, id)
		vecty.Rerender(a)
	}
}

func (a *App) onFiles(e *vecty.Event) {
	list := e.Target.Get("files")
	for i := 0; i < list.Length(); i++ {
		f := list.Index(i)
		name := f.Get("name").String()
		var cb js.Func
		cb = js.FuncOf(func(_ js.Value, args []js.Value) any {
			defer cb.Release()
			u := js.Global().Get("Uint8Array").New(args[0])
			b := make([]byte, u.Get("length").Int())
			js.CopyBytesToGo(b, u)
			a.files[name] = b
			vecty.Rerender(a)
			return nil
		})
		f.Call("arrayBuffer").Call("then", cb)
	}
	e.Target.Set("value", "")
}

// download saves data (a string or a Uint8Array) as a file named name.
func download(name, mime string, data any) {
	blob := js.Global().Get("Blob").New([]any{data}, map[string]any{"type": mime})
	url := js.Global().Get("URL").Call("createObjectURL", blob)
	doc := js.Global().Get("document")
	link := doc.Call("createElement", "a")
	link.Set("href", url)
	link.Set("download", name)
	doc.Get("body").Call("appendChild", link)
	link.Call("click")
	link.Call("remove")
	js.Global().Call("setTimeout", js.FuncOf(func(js.Value, []js.Value) any {
		js.Global().Get("URL").Call("revokeObjectURL", url)
		return nil
	}), 1000)
}

func (a *App) share(*vecty.Event) {
	js.Global().Get("history").Call("replaceState", nil, "", "#"+EncodeHash(a.yamlText))
	href := js.Global().Get("location").Get("href").String()
	if cb := js.Global().Get("navigator").Get("clipboard"); cb.Truthy() {
		cb.Call("writeText", href)
	}
	a.notice = "Link copied: it carries the whole configuration (uploaded files are not included)."
	vecty.Rerender(a)
}

// Render implements vecty.Component.
func (a *App) Render() vecty.ComponentOrHTML {
	if a.view == viewRecommend {
		// A div, not main: a different tag makes vecty build the view afresh instead of
		// reconciling it with the Predict view's elements (reconciling an element whose
		// children were vecty's with one that holds UnsafeHTML, such as a chart box, would
		// remove nodes the new innerHTML already detached).
		return elem.Div(vecty.Markup(vecty.Class("app")),
			a.renderHeader(),
			elem.Div(vecty.Markup(vecty.Class("layout"), vecty.Attribute("role", "main")),
				a.renderRecConfig(),
				a.renderRecResults(),
			),
		)
	}
	return elem.Div(vecty.Markup(vecty.Class("app")),
		a.renderHeader(),
		elem.Main(vecty.Markup(vecty.Class("layout")),
			a.renderConfig(),
			a.renderResults(),
		),
	)
}

func (a *App) renderHeader() *vecty.HTML {
	if a.view == viewRecommend {
		return a.renderRecHeader()
	}
	label := "Run prediction"
	if a.running {
		label = "Running…"
		if a.progress > 0 {
			label += " " + strconv.Itoa(int(a.progress*100)) + "%"
		}
	}
	return a.topBar(topBar{idPrefix: "", label: label, running: a.running, frac: a.progress,
		onShare: a.share, onRun: a.Run})
}

// filesJS is the uploaded files as the module's options take them: path → Uint8Array.
func (a *App) filesJS() js.Value {
	files := js.Global().Get("Object").New()
	for name, data := range a.files {
		u := js.Global().Get("Uint8Array").New(len(data))
		js.CopyBytesToJS(u, data)
		files.Set(name, u)
	}
	return files
}

// topBar describes the header of one view: its element ids (prefixed), the run button's
// label, and the progress bar.
type topBar struct {
	idPrefix, progressID, label string
	running                     bool
	frac                        float64
	onShare                     func(*vecty.Event)
	onRun                       func()
}

// topBar renders the header both views share: the brand, the tabs, Copy link / Cancel / Run,
// and the progress bar (indeterminate while running at 0).
func (a *App) topBar(t topBar) *vecty.HTML {
	return elem.Header(vecty.Markup(vecty.Class("top")),
		elem.Div(vecty.Markup(vecty.Class("brand")),
			elem.Heading1(vecty.Text("aisimulate")),
			elem.Span(vecty.Markup(vecty.Class("tagline")), vecty.Text("LLM serving simulator · runs entirely in your browser")),
		),
		a.renderTabs(),
		elem.Div(vecty.Markup(vecty.Class("actions")),
			elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID(t.idPrefix+"share"), event.Click(t.onShare)), vecty.Text("Copy link")),
			vecty.If(t.running, elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID(t.idPrefix+"cancel"),
				event.Click(func(*vecty.Event) { js.Global().Get("aisimulate").Call("cancel") })), vecty.Text("Cancel"))),
			elem.Button(vecty.Markup(vecty.Class("primary"), prop.ID(t.idPrefix+"run"), vecty.Property("disabled", t.running),
				event.Click(func(*vecty.Event) { t.onRun() })), vecty.Text(t.label)),
		),
		elem.Div(vecty.Markup(vecty.Class("progress"), vecty.MarkupIf(t.progressID != "", prop.ID(t.progressID)),
			vecty.MarkupIf(!t.running, vecty.Class("idle")), vecty.MarkupIf(t.running && t.frac == 0, vecty.Class("indeterminate"))),
			elem.Div(vecty.Markup(vecty.Class("bar"), vecty.Style("width", strconv.FormatFloat(t.frac*100, 'f', 1, 64)+"%"))),
		),
	)
}

func (a *App) renderKnob(k Knob) *vecty.HTML { return a.renderKnobWith(k, a.onKnob) }

// renderKnobWith renders a form control whose change events go to onKnob(k.ID).
func (a *App) renderKnobWith(k Knob, onKnob func(id string) func(*vecty.Event)) *vecty.HTML {
	errText, bad := a.fieldErr[k.ID]
	var control *vecty.HTML
	onChange := event.Change(onKnob(k.ID))
	if d, ok := a.drafts[k.ID]; ok {
		k.Value = d
	}
	switch k.Kind {
	case KindMulti:
		control = a.renderMulti(k)
	case "select":
		opts := vecty.List{}
		found := false
		for _, o := range k.Options {
			found = found || o == k.Value
			opts = append(opts, elem.Option(vecty.Markup(prop.Value(o), vecty.Property("selected", o == k.Value)), vecty.Text(o)))
		}
		if !found && k.Value != "" {
			opts = append(opts, elem.Option(vecty.Markup(prop.Value(k.Value), vecty.Property("selected", true)), vecty.Text(k.Value)))
		}
		control = elem.Select(vecty.Markup(prop.ID(k.ID), onChange), opts)
	default:
		typ := prop.TypeText
		if k.Kind != "text" {
			typ = prop.TypeNumber
		}
		onInput := event.Input(func(e *vecty.Event) {
			if a.drafts == nil {
				a.drafts = map[string]string{}
			}
			a.drafts[k.ID] = e.Target.Get("value").String()
		})
		m := vecty.Markup(prop.ID(k.ID), prop.Type(typ), vecty.Property("value", k.Value), prop.Placeholder(k.Placeholder), onChange, onInput)
		if k.Kind == "text" && len(k.Options) > 0 {
			m = vecty.Markup(m, vecty.Attribute("list", k.ID+"-options"))
		}
		if k.Kind == "number" {
			m = vecty.Markup(m, vecty.Attribute("step", "any"), vecty.Attribute("min", "0"))
		}
		if k.Kind == "int" {
			m = vecty.Markup(m, vecty.Attribute("step", "1"), vecty.Attribute("min", "1"))
		}
		control = elem.Input(m)
	}
	var dl vecty.MarkupOrChild
	if k.Kind == "text" && len(k.Options) > 0 {
		opts := vecty.List{}
		for _, o := range k.Options {
			opts = append(opts, elem.Option(vecty.Markup(prop.Value(o))))
		}
		dl = elem.DataList(vecty.Markup(prop.ID(k.ID+"-options")), opts)
	}
	return elem.Div(vecty.Markup(vecty.Class("field"), vecty.MarkupIf(bad, vecty.Class("invalid"))),
		elem.Label(vecty.Markup(prop.For(k.ID)), vecty.Text(k.Label)),
		control,
		dl,
		vecty.If(bad, elem.Div(vecty.Markup(vecty.Class("field-error"), vecty.Attribute("role", "alert")), vecty.Text(errText))),
	)
}

func (a *App) renderConfig() *vecty.HTML {
	presetOpts := vecty.List{}
	if a.preset < 0 {
		presetOpts = append(presetOpts, elem.Option(vecty.Markup(prop.Value("-1"), vecty.Property("selected", true)), vecty.Text("Custom configuration")))
	}
	for i, p := range a.presets {
		presetOpts = append(presetOpts, elem.Option(vecty.Markup(prop.Value(strconv.Itoa(i)), vecty.Property("selected", i == a.preset)), vecty.Text(p.Title)))
	}
	knobs := vecty.List{}
	if a.doc != nil {
		for _, k := range a.doc.Knobs() {
			knobs = append(knobs, a.renderKnob(k))
		}
	}
	editorErr := a.runErr != nil && a.runErr.Kind != "cancelled" && len(a.fieldErr) == 0
	return elem.Section(vecty.Markup(vecty.Class("panel", "config")),
		elem.Div(vecty.Markup(vecty.Class("field", "wide")),
			elem.Label(vecty.Markup(prop.For("preset")), vecty.Text("Preset")),
			elem.Select(vecty.Markup(prop.ID("preset"), event.Change(func(e *vecty.Event) {
				i, err := strconv.Atoi(e.Target.Get("value").String())
				if err != nil || i < 0 || i >= len(a.presets) {
					return
				}
				a.preset = i
				a.fieldErr, a.runErr = nil, nil
				a.setYAML(a.presets[i].YAML)
				vecty.Rerender(a)
			})), presetOpts),
		),
		vecty.If(a.doc != nil, elem.Div(vecty.Markup(vecty.Class("knobs")), knobs)),
		vecty.If(a.doc == nil, elem.Div(vecty.Markup(vecty.Class("field-error"), vecty.Class("block")), vecty.Text("YAML does not parse, the form is disabled: "+a.docErr))),
		elem.Div(vecty.Markup(vecty.Class("editor"), vecty.MarkupIf(editorErr, vecty.Class("invalid"))),
			elem.Div(vecty.Markup(vecty.Class("editor-head")),
				elem.Span(vecty.Text("prediction.yaml")),
				elem.Span(vecty.Markup(vecty.Class("muted")), vecty.Text("the form edits this file")),
			),
			elem.TextArea(vecty.Markup(prop.ID("yaml"), vecty.Attribute("spellcheck", "false"), vecty.Attribute("aria-label", "Configuration YAML"),
				vecty.Property("value", a.yamlText),
				event.Input(func(e *vecty.Event) {
					a.preset = -1
					a.setYAML(e.Target.Get("value").String())
					vecty.Rerender(a)
				}),
				event.KeyDown(func(e *vecty.Event) {
					if (e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool()) && e.Get("key").String() == "Enter" {
						a.Run()
					}
				}),
			)),
			vecty.If(editorErr, elem.Div(vecty.Markup(vecty.Class("field-error"), prop.ID("editor-error"), vecty.Attribute("role", "alert")), vecty.Text(a.errMessage()))),
		),
		a.renderFiles(),
		a.renderCalibration(),
	)
}

// renderFiles is the trace upload control and the list of uploads (shared by both views).
func (a *App) renderFiles() *vecty.HTML {
	names := make([]string, 0, len(a.files))
	for n := range a.files {
		names = append(names, n)
	}
	sort.Strings(names)
	fileItems := vecty.List{}
	for _, n := range names {
		name := n
		fileItems = append(fileItems, elem.ListItem(
			elem.Code(vecty.Text(name)),
			elem.Span(vecty.Markup(vecty.Class("muted")), vecty.Text(" "+FormatNum(float64(len(a.files[name])))+" B ")),
			elem.Button(vecty.Markup(vecty.Class("link"), event.Click(func(*vecty.Event) { delete(a.files, name); vecty.Rerender(a) })), vecty.Text("remove")),
		))
	}
	return elem.Div(vecty.Markup(vecty.Class("files")),
		elem.Label(vecty.Markup(vecty.Class("button", "secondary")),
			vecty.Text("Add trace files…"),
			elem.Input(vecty.Markup(prop.ID("upload"), prop.Type(prop.TypeFile), vecty.Property("multiple", true), vecty.Class("hidden"), event.Change(a.onFiles))),
		),
		elem.Span(vecty.Markup(vecty.Class("muted")), vecty.Text(" Paths in traffic.source.paths match uploads by name.")),
		vecty.If(len(names) > 0, elem.UnorderedList(vecty.Markup(vecty.Class("file-list")), fileItems)),
	)
}

func (a *App) errMessage() string {
	if a.runErr == nil {
		return ""
	}
	if a.runErr.Kind == "config" && a.runErr.Path != "" {
		return a.runErr.Path + ": " + a.runErr.Msg
	}
	return a.runErr.Message
}

// card shows one of report.Cards: its value (a duration of 10 s or more in seconds), the
// change against the baseline run, and for the pooled ITL mean the note that explains a mean
// above the p99.
func (a *App) card(c report.Card) vecty.ComponentOrHTML {
	v, ok := a.summary[c.Key]
	if !ok {
		return nil
	}
	var delta, note vecty.ComponentOrHTML
	if a.base != nil {
		if b, ok := a.base.summary[c.Key]; ok {
			delta = elem.Div(vecty.Markup(vecty.Class("card-delta")), vecty.Text(DeltaText(v, b)))
		}
	}
	if c.Key == report.ITL.Key(report.Mean) {
		if text := report.ITLNote(v, a.summary[report.ITL.Key(report.P99)]); text != "" {
			note = elem.Div(vecty.Markup(vecty.Class("card-note")), vecty.Text(text))
		}
	}
	var iv *[2]float64
	if b, ok := a.intervals[c.Key]; ok {
		iv = &b
	}
	shown := c.Show(v, iv)
	var band, uncal vecty.ComponentOrHTML
	if shown.Band != nil {
		title := "80 % interval of the mean: where the measurement lies 8 times in 10, by the model's error on deployments it was not fitted on (docs/uncertainty.md)"
		if cal := a.cal.calibrated; cal != nil && cal.ProfileBands {
			title = "80 % interval of the mean from the calibration profile's residuals, widened for few points and extrapolation (docs/calibration.md)"
		}
		band = elem.Div(vecty.Markup(vecty.Class("card-band"), vecty.Attribute("title", title)),
			vecty.Text(BandText(*shown.Band)))
	}
	if cal := a.cal.calibrated; cal != nil {
		// Only where the profile changed the value: an equal one (a request count) says nothing.
		if u, ok := cal.Uncalibrated[c.Key]; ok && u != v {
			// In the card's unit (seconds when the value is shown in seconds).
			f := 1.0
			if v != 0 {
				f = shown.Value / v
			}
			uncal = elem.Div(vecty.Markup(vecty.Class("card-uncal"), vecty.Attribute("title", "the default model's prediction, without the calibration profile")),
				vecty.Text(UncalibratedText(u, f)))
		}
	}
	return elem.Div(vecty.Markup(vecty.Class("card"), vecty.Data("key", c.Key)),
		elem.Div(vecty.Markup(vecty.Class("card-label")), vecty.Text(c.Label)),
		elem.Div(vecty.Markup(vecty.Class("card-value")), vecty.Text(FormatNum(shown.Value)),
			elem.Span(vecty.Markup(vecty.Class("unit")), vecty.Text(shown.Unit))),
		band, uncal, delta, note,
	)
}

// shareCards are the SLA cards of the terminal's readable table: the share of completed
// requests meeting each bound (the run's overview) and meeting all of them (goodput).
func (a *App) shareCards() vecty.List {
	var cards vecty.List
	text := func(id, label, value string) {
		cards = append(cards, elem.Div(vecty.Markup(vecty.Class("card"), vecty.Data("key", id)),
			elem.Div(vecty.Markup(vecty.Class("card-label")), vecty.Text(label)),
			elem.Div(vecty.Markup(vecty.Class("card-value")), vecty.Text(value))))
	}
	lookup := func(k string) (float64, bool) { v, ok := a.summary[k]; return v, ok }
	for _, s := range a.overview.SLAShares(lookup) {
		text(s.ID, s.Label, s.Share)
	}
	return cards
}

// renderShareCards is the row of SLA cards, when the configuration sets an SLA.
func (a *App) renderShareCards() vecty.ComponentOrHTML {
	if a.overview == nil || a.overview.SLA == nil {
		return nil
	}
	return elem.Div(vecty.Markup(vecty.Class("cards", "sla-cards"), prop.ID("sla-cards")), a.shareCards())
}

// renderDeployment echoes what ran: the model (the catalog id an alias resolved to), the GPU
// and GPU count, backend and mode, and per role the replicas × parallelism.
func (a *App) renderDeployment() vecty.ComponentOrHTML {
	if a.overview == nil {
		return nil
	}
	return elem.Div(vecty.Markup(vecty.Class("deployment"), prop.ID("deployment")), vecty.Text(a.overview.Deployment.Text()))
}

// renderSaturation is whether the run kept up with its load, in one sentence
// (report.SaturationSentence), marked when the queue was growing.
func (a *App) renderSaturation() vecty.ComponentOrHTML {
	text := report.SaturationSentence(a.saturation)
	if text == "" {
		return nil
	}
	return elem.Div(vecty.Markup(vecty.Class("saturation"), prop.ID("saturation"),
		vecty.MarkupIf(a.saturation[report.SatQueueTrend] == report.TrendGrowing, vecty.Class("overloaded"))),
		vecty.Text(text))
}

func (a *App) renderResults() *vecty.HTML {
	status := "Edit the configuration and press Run (Ctrl+Enter in the editor)."
	switch {
	case a.running && a.progress > 0:
		status = "Simulating in a Web Worker… " + strconv.Itoa(int(a.progress*100)) + "%"
	case a.running:
		status = "Simulating in a Web Worker…"
	case a.runErr != nil && a.runErr.Kind == "cancelled":
		status = "Cancelled. Edit the configuration and press Run."
	case a.runErr != nil && a.runErr.Kind == "config" && len(a.fieldErr) > 0:
		status = "The configuration is invalid — see the highlighted field."
	case a.runErr != nil && a.runErr.Kind == "config":
		status = "The configuration is invalid — see the message under the editor."
	case a.runErr != nil:
		status = "The prediction failed: " + a.runErr.Message
	case a.summary != nil:
		status = "Prediction finished in " + FormatNum(a.elapsed) + " ms (in this tab)."
	}
	var body vecty.List
	if a.summary != nil {
		cards := vecty.List{}
		for _, c := range report.Cards {
			cards = append(cards, a.card(c))
		}
		charts := vecty.List{}
		for _, c := range a.charts {
			charts = append(charts, elem.Div(vecty.Markup(vecty.Class("chart-box"), vecty.UnsafeHTML(c))))
		}
		body = vecty.List{
			a.renderDeployment(),
			a.renderSaturation(),
			elem.Div(vecty.Markup(vecty.Class("cards"), prop.ID("cards")), cards),
			a.renderShareCards(),
			elem.Div(vecty.Markup(vecty.Class("downloads")),
				elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-prediction"), event.Click(func(*vecty.Event) {
					download("prediction.json", "application/json", a.prediction)
				})), vecty.Text("Download prediction.json")),
				elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-deployment"), event.Click(func(*vecty.Event) {
					a.downloadDeployment("deployment-0001.zip", "prediction", a.ranYAML, a.prediction)
				})), vecty.Text("Download deployment (Dynamo manifest, launch commands)")),
				vecty.If(a.base != nil, elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("clear-baseline"), event.Click(func(*vecty.Event) {
					a.base = nil
					a.buildCharts()
					vecty.Rerender(a)
				})), vecty.Text("Clear comparison"))),
				vecty.If(a.requests != "", elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-requests"), event.Click(func(*vecty.Event) {
					download("requests.jsonl", "application/x-ndjson", a.requests)
				})), vecty.Text("Download requests.jsonl"))),
			),
			elem.Div(vecty.Markup(vecty.Class("charts"), prop.ID("charts")), charts),
		}
	}
	return elem.Section(vecty.Markup(vecty.Class("panel", "results"), prop.ID("results")),
		elem.Div(vecty.Markup(vecty.Class("status"), prop.ID("status"), vecty.MarkupIf(a.runErr != nil && a.runErr.Kind != "cancelled", vecty.Class("error"))), vecty.Text(status)),
		vecty.If(a.notice != "", elem.Div(vecty.Markup(vecty.Class("notice")), vecty.Text(a.notice))),
		body,
	)
}
