//go:build js && wasm

package ui

import (
	"aisimulate/simcore/deploy"
	"strconv"
	"strings"
	"syscall/js"

	"aisimulate/wasm/jsapi/recview"

	"github.com/hexops/vecty"
	"github.com/hexops/vecty/elem"
	"github.com/hexops/vecty/event"
	"github.com/hexops/vecty/prop"
)

// The page's two views (header tabs).
const (
	viewPredict   = "predict"
	viewRecommend = "recommend"
)

// recConfigName names the sweep in error messages and evaluation requests.
const recConfigName = "recommendation.yaml"

// recommendState is the Recommend view: the sweep's YAML and form, the run in progress and
// the last result.
type recommendState struct {
	yamlText string
	doc      *Doc
	docErr   string

	running        bool
	trials, total  int
	best           *float64
	poolSize       int
	started, taken float64
	err            *RunError
	result         *recommendResult
	// live are the points simulated so far while a search runs; liveChart draws them.
	live      []recview.Point
	liveChart string
	// chartWidth is the width the charts were drawn at (paretoWidthJS); resizeHooked says
	// the window's resize listener that redraws them is installed.
	chartWidth   float64
	resizeHooked bool
	// picked are the candidate ids of the rows picked for the comparison, oldest first
	// (TogglePick).
	picked []string
}

// recommendResult is a finished recommendation as the view shows and downloads it.
type recommendResult struct {
	json, csv string
	configs   []BundleFile
	feasible  int
	view      *recview.View
	chart     string
}

func (a *App) setRecYAML(y string) {
	a.rec.yamlText = y
	d, err := ParseDoc(y)
	if err != nil {
		a.rec.doc, a.rec.docErr = nil, err.Error()
		return
	}
	a.rec.doc, a.rec.docErr = d, ""
}

func (a *App) showView(v string) {
	a.view = v
	vecty.Rerender(a)
}

func (a *App) renderTabs() *vecty.HTML {
	tab := func(id, label, v string) *vecty.HTML {
		return elem.Button(vecty.Markup(prop.ID(id), vecty.Class("tab"), vecty.MarkupIf(a.view == v, vecty.Class("active")),
			vecty.Attribute("role", "tab"), vecty.Attribute("aria-selected", strconv.FormatBool(a.view == v)),
			event.Click(func(*vecty.Event) { a.showView(v) })), vecty.Text(label))
	}
	return elem.Navigation(vecty.Markup(vecty.Class("tabs"), vecty.Attribute("role", "tablist")),
		tab("tab-predict", "Predict", viewPredict),
		tab("tab-recommend", "Recommend", viewRecommend),
	)
}

func (a *App) renderRecHeader() *vecty.HTML {
	r := &a.rec
	label := "Run recommendation"
	if r.running {
		label = "Searching… " + strconv.Itoa(r.trials) + "/" + strconv.Itoa(r.total)
	}
	frac := 0.0
	if r.total > 0 {
		frac = float64(r.trials) / float64(r.total)
	}
	return a.topBar(topBar{idPrefix: "rec-", progressID: "rec-progress", label: label, running: r.running,
		frac: frac, onShare: a.shareRec, onRun: a.RunRecommend})
}

func (a *App) shareRec(*vecty.Event) {
	js.Global().Get("history").Call("replaceState", nil, "", "#"+EncodeRecHash(a.rec.yamlText))
	href := js.Global().Get("location").Get("href").String()
	if cb := js.Global().Get("navigator").Get("clipboard"); cb.Truthy() {
		cb.Call("writeText", href)
	}
	a.notice = "Link copied: it carries the whole sweep (uploaded files are not included)."
	vecty.Rerender(a)
}

// RunRecommend starts the recommendation of the current sweep: the search coordinator runs in
// the simulation worker, the candidates on the pool of Web Workers (aisimulate.recommend).
func (a *App) RunRecommend() {
	r := &a.rec
	if r.running {
		return
	}
	r.running, r.trials, r.total, r.best, r.poolSize, r.err, r.result = true, 0, 0, nil, 0, nil, nil
	r.live, r.liveChart, r.picked = nil, "", nil
	a.hookChartResize()
	a.fieldErr, a.notice = nil, ""
	r.started = now()
	js.Global().Get("history").Call("replaceState", nil, "", "#"+EncodeRecHash(r.yamlText))
	opts := js.Global().Get("Object").New()
	opts.Set("files", a.filesJS())
	opts.Set("configName", recConfigName)
	if len(a.cal.profiles) > 0 {
		opts.Set("calibrations", a.profilesJS())
		opts.Set("strictCalibration", a.cal.strict)
	}
	var onProgress, onOK, onErr js.Func
	onProgress = js.FuncOf(func(_ js.Value, args []js.Value) any {
		p := args[0]
		r.trials, r.total, r.poolSize = p.Get("trials").Int(), p.Get("total").Int(), p.Get("poolSize").Int()
		if b := p.Get("best"); b.Type() == js.TypeNumber {
			f := b.Float()
			r.best = &f
		}
		if pj := p.Get("pointsJson"); pj.Type() == js.TypeString {
			if pts, err := ParsePoints(pj.String()); err == nil && len(pts) > 0 {
				r.live = append(r.live, pts...)
				r.liveChart = ParetoSVG(&recview.View{Points: r.live}, r.chartWidth, nil)
			}
		}
		vecty.Rerender(a)
		return nil
	})
	release := func() { onProgress.Release(); onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		a.finishRecommend(args[0], nil)
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		a.finishRecommend(js.Null(), runErrorOf(args[0]))
		return nil
	})
	opts.Set("onProgress", onProgress)
	js.Global().Get("aisimulate").Call("recommend", r.yamlText, opts).Call("then", onOK, onErr)
	vecty.Rerender(a)
}

// runErrorOf reads a rejected promise's Error (kind, path, msg, message).
func runErrorOf(e js.Value) *RunError {
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
	return re
}

func (a *App) finishRecommend(res js.Value, err *RunError) {
	r := &a.rec
	r.running = false
	r.taken = now() - r.started
	r.err = err
	if err != nil {
		if r.doc != nil && err.Path != "" {
			if id := r.doc.RecommendKnobFor(err.Path); id != "" {
				a.fieldErr = map[string]string{id: err.Message}
			}
		}
		vecty.Rerender(a)
		return
	}
	out := &recommendResult{json: res.Get("recommendationJson").String(), csv: res.Get("recommendationCsv").String(),
		feasible: res.Get("feasible").Int()}
	cfgs := res.Get("configs")
	for i := 0; i < cfgs.Length(); i++ {
		out.configs = append(out.configs, BundleFile{Name: cfgs.Index(i).Get("name").String(), Data: cfgs.Index(i).Get("data").String()})
	}
	v, perr := ParseRecommendView(res.Get("viewJson").String())
	if perr != nil {
		r.err = &RunError{Kind: "failed", Message: "could not read the recommendation: " + perr.Error()}
		vecty.Rerender(a)
		return
	}
	out.view = v
	r.result = out
	a.drawRecCharts()
	vecty.Rerender(a)
	scrollToResultsJS.Invoke(narrowLayoutPx, "rec-results")
}

// paretoWidthJS is the width the Pareto chart is drawn at: the content width of the
// Recommend view's results panel less the chart box's padding and border (6 + 1 CSS px on
// each side, .chart-box in static/style.css), so the SVG is shown at scale 1 (ParetoSVG).
var paretoWidthJS = js.Global().Get("Function").New(`
  const panel = document.getElementById("rec-results");
  if (!panel) return 0;
  const cs = getComputedStyle(panel);
  return panel.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 14;`)

// drawRecCharts draws the live and the result's chart at the panel's current width, with
// the picked deployments marked.
func (a *App) drawRecCharts() {
	r := &a.rec
	r.chartWidth = paretoWidthJS.Invoke().Float()
	if len(r.live) > 0 {
		r.liveChart = ParetoSVG(&recview.View{Points: r.live}, r.chartWidth, nil)
	}
	if r.result != nil {
		r.result.chart = ParetoSVG(r.result.view, r.chartWidth, r.picked)
	}
}

// hookChartResize installs, once, the window resize listener that redraws the charts when
// the panel's width changes (a phone turned, a window resized).
func (a *App) hookChartResize() {
	r := &a.rec
	if r.resizeHooked {
		return
	}
	r.resizeHooked = true
	r.chartWidth = paretoWidthJS.Invoke().Float()
	js.Global().Call("addEventListener", "resize", js.FuncOf(func(js.Value, []js.Value) any {
		if w := paretoWidthJS.Invoke().Float(); w != r.chartWidth && (r.result != nil || len(r.live) > 0) {
			a.drawRecCharts()
			vecty.Rerender(a)
		}
		return nil
	}))
}

// togglePick picks or unpicks a ranked row for the comparison and redraws the chart's marks.
func (a *App) togglePick(id string) {
	a.rec.picked = TogglePick(a.rec.picked, id)
	a.drawRecCharts()
	vecty.Rerender(a)
}

// openCandidate opens a candidate's concrete configuration as a prediction and runs it.
func (a *App) openCandidate(config string) {
	if config == "" {
		return
	}
	a.view = viewPredict
	a.preset = -1
	a.fieldErr, a.runErr = nil, nil
	a.setYAML(config)
	a.Run()
}

// configOf is the concrete configuration of a candidate of the last result ("" if unknown).
func (a *App) configOf(id string) string {
	if a.rec.result == nil {
		return ""
	}
	for _, p := range a.rec.result.view.Points {
		if p.CandidateID == id {
			return p.Config
		}
	}
	for _, row := range a.rec.result.view.Rows {
		if row.CandidateID == id {
			return row.Config
		}
	}
	return ""
}

func (a *App) onRecKnob(id string) func(*vecty.Event) {
	return func(e *vecty.Event) {
		a.applyRecKnob(id, e.Target.Get("value").String())
	}
}

func (a *App) applyRecKnob(id, value string) {
	if a.rec.doc == nil {
		return
	}
	if err := a.rec.doc.ApplyRecommend(id, value); err != nil {
		return
	}
	a.setRecYAML(a.rec.doc.String())
	delete(a.fieldErr, id)
	vecty.Rerender(a)
}

// renderMulti renders a KindMulti knob as check boxes.
func (a *App) renderMulti(k Knob) *vecty.HTML {
	boxes := vecty.List{}
	for _, o := range k.Options {
		choice := o
		checked := false
		for _, v := range splitComma(k.Value) {
			checked = checked || v == choice
		}
		boxes = append(boxes, elem.Label(vecty.Markup(vecty.Class("check")),
			elem.Input(vecty.Markup(prop.Type(prop.TypeCheckbox), prop.ID(k.ID+"-"+choice), vecty.Property("checked", checked),
				event.Change(func(e *vecty.Event) {
					a.applyRecKnob(k.ID, multiValue(k.Value, choice, e.Target.Get("checked").Bool()))
				}))),
			vecty.Text(" "+choice)))
	}
	return elem.Div(vecty.Markup(prop.ID(k.ID), vecty.Class("checks")), boxes)
}

func (a *App) renderRecConfig() *vecty.HTML {
	r := &a.rec
	knobs := vecty.List{}
	if r.doc != nil {
		for _, k := range r.doc.RecommendKnobs() {
			knobs = append(knobs, a.renderKnobWith(k, a.onRecKnob))
		}
	}
	editorErr := r.err != nil && r.err.Kind != "cancelled" && len(a.fieldErr) == 0
	return elem.Section(vecty.Markup(vecty.Class("panel", "config")),
		elem.Div(vecty.Markup(vecty.Class("muted", "intro")), vecty.Text("Search deployments for the best ones under a target and a GPU budget "+
			"(aisimulate recommend). Several checked choices become a {choices: […]} domain.")),
		vecty.If(r.doc != nil, elem.Div(vecty.Markup(vecty.Class("knobs")), knobs)),
		vecty.If(r.doc == nil, elem.Div(vecty.Markup(vecty.Class("field-error"), vecty.Class("block")), vecty.Text("YAML does not parse, the form is disabled: "+r.docErr))),
		elem.Div(vecty.Markup(vecty.Class("editor"), vecty.MarkupIf(editorErr, vecty.Class("invalid"))),
			elem.Div(vecty.Markup(vecty.Class("editor-head")),
				elem.Span(vecty.Text(recConfigName)),
				elem.Span(vecty.Markup(vecty.Class("muted")), vecty.Text("the form edits this file")),
			),
			elem.TextArea(vecty.Markup(prop.ID("rec-yaml"), vecty.Attribute("spellcheck", "false"), vecty.Attribute("aria-label", "Recommendation YAML"),
				vecty.Property("value", r.yamlText),
				event.Input(func(e *vecty.Event) {
					a.setRecYAML(e.Target.Get("value").String())
					vecty.Rerender(a)
				}),
				event.KeyDown(func(e *vecty.Event) {
					if (e.Get("ctrlKey").Bool() || e.Get("metaKey").Bool()) && e.Get("key").String() == "Enter" {
						a.RunRecommend()
					}
				}),
			)),
			vecty.If(editorErr, elem.Div(vecty.Markup(vecty.Class("field-error"), prop.ID("rec-editor-error"), vecty.Attribute("role", "alert")), vecty.Text(a.recErrMessage()))),
		),
		a.renderFiles(),
		a.renderCalibration(),
	)
}

func (a *App) recErrMessage() string {
	if a.rec.err == nil {
		return ""
	}
	return a.rec.err.Message
}

func (a *App) recStatus() string {
	r := &a.rec
	best := "none feasible yet"
	if r.best != nil {
		best = FormatNum(*r.best)
	}
	switch {
	case r.running && r.total == 0:
		return "Validating the sweep…"
	case r.running:
		return "Trials " + strconv.Itoa(r.trials) + "/" + strconv.Itoa(r.total) + " · best score " + best +
			" · " + strconv.Itoa(r.poolSize) + " Web Worker(s) evaluating"
	case r.err != nil && r.err.Kind == "cancelled":
		return "Cancelled. Edit the sweep and press Run."
	case r.err != nil && r.err.Kind == "config":
		return "The sweep is invalid: " + r.err.Message
	case r.err != nil:
		return "The recommendation failed: " + r.err.Message
	case r.result != nil && r.result.feasible == 0:
		return "No feasible candidate found (" + strconv.Itoa(r.total) + " trials); the full result is in recommendation.json."
	case r.result != nil:
		return "Recommendation finished in " + FormatNum(r.taken/1000) + " s: " + strconv.Itoa(r.total) + " trials, " +
			strconv.Itoa(len(r.result.view.Points)) + " candidates simulated, " + strconv.Itoa(r.result.feasible) + " feasible. Best score " + best + "."
	}
	return "Edit the sweep and press Run recommendation (Ctrl+Enter in the editor)."
}

func (a *App) renderRecResults() *vecty.HTML {
	r := &a.rec
	var body vecty.List
	if r.running && r.liveChart != "" {
		// A figure, not a div: a different tag from the result's first element (the downloads)
		// makes vecty replace it rather than reconcile vecty children with UnsafeHTML.
		body = vecty.List{elem.Figure(vecty.Markup(vecty.Class("chart-box", "pareto"), prop.ID("rec-live-chart"), vecty.UnsafeHTML(r.liveChart)))}
	}
	if res := r.result; res != nil {
		onChart := event.Click(func(e *vecty.Event) {
			el := e.Target.Call("closest", "[data-candidate]")
			if el.Truthy() {
				a.openCandidate(a.configOf(el.Call("getAttribute", "data-candidate").String()))
			}
		})
		body = vecty.List{
			elem.Div(vecty.Markup(vecty.Class("downloads")),
				elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-recommendation-json"), event.Click(func(*vecty.Event) {
					download("recommendation.json", "application/json", res.json)
				})), vecty.Text("Download recommendation.json")),
				elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-recommendation-csv"), event.Click(func(*vecty.Event) {
					download("recommendation.csv", "text/csv", res.csv)
				})), vecty.Text("Download recommendation.csv")),
				vecty.If(res.feasible > 0, elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-rec-deployments"), event.Click(func(*vecty.Event) {
					a.downloadDeployment("deployments.zip", "recommendation", res.json, deploy.DefaultTop)
				})), vecty.Text("Download deployments of the first "+strconv.Itoa(deploy.DefaultTop)+" (Dynamo manifests, launch commands)"))),
				vecty.If(len(res.configs) > 0, elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("dl-recommendations-yaml"), event.Click(func(*vecty.Event) {
					download("recommendations.yaml", "application/yaml", YAMLBundle(res.configs))
				})), vecty.Text("Download recommendations.yaml ("+countText(len(res.configs), "configuration")+")"))),
			),
			renderRecCalibration(res.view),
			elem.Div(vecty.Markup(vecty.Class("chart-box", "pareto"), prop.ID("rec-chart"), onChart, vecty.UnsafeHTML(res.chart))),
			a.renderRecTable(res),
		}
	}
	return elem.Section(vecty.Markup(vecty.Class("panel", "results"), prop.ID("rec-results")),
		elem.Div(vecty.Markup(vecty.Class("status"), prop.ID("rec-status"), vecty.MarkupIf(r.err != nil && r.err.Kind != "cancelled", vecty.Class("error"))),
			vecty.Text(a.recStatus())),
		vecty.If(a.notice != "", elem.Div(vecty.Markup(vecty.Class("notice")), vecty.Text(a.notice))),
		body,
	)
}

// renderRecCalibration says that the result is calibrated, with which profiles (their
// hashes; the whole SHA-256 in the tooltip) and for how many candidates; nothing when it is
// not.
func renderRecCalibration(v *recview.View) vecty.ComponentOrHTML {
	if v.Calibration == nil {
		return vecty.List{}
	}
	var full []string
	for _, p := range v.Calibration.Profiles {
		full = append(full, p.File+": sha256 "+p.SHA256)
	}
	return elem.Paragraph(vecty.Markup(vecty.Class("calibrated-note"), prop.ID("rec-calibration"), vecty.Attribute("title", strings.Join(full, "\n"))),
		vecty.Text(RecommendCalibrationText(v.Calibration, len(v.Points))))
}

// renderRecTable is the ranked table: rank with a box that picks the row for the
// comparison, the deployment summary (wrapping between its parts, so it is shown whole), GPUs, the score and its
// interval, the table metrics and the prices.
func (a *App) renderRecTable(res *recommendResult) *vecty.HTML {
	v := res.view
	th := func(text string) *vecty.HTML { return elem.TableHeader(vecty.Text(text)) }
	head := vecty.List{
		elem.TableHeader(vecty.Markup(vecty.Attribute("title", "Tick two rows to compare them side by side")), vecty.Text("rank")),
		th("deployment"), th("GPUs"), th(ScoreHeading(v)),
		elem.TableHeader(vecty.Markup(vecty.Attribute("title", "80 % interval of the score from the model's held-out error (docs/uncertainty.md); ≈ marks a rank within the model's error of rank 1")),
			vecty.Text("80 % interval"))}
	for _, m := range recview.RowMetrics {
		head = append(head, th(m.Heading))
	}
	priced := len(v.Rows) > 0 && v.Rows[0].CostPerHour != nil
	if priced {
		head = append(head, th("USD/h"), th("USD/M tok"))
	}
	picked := map[string]bool{}
	for _, id := range a.rec.picked {
		picked[id] = true
	}
	num := func(text string) *vecty.HTML {
		return elem.TableData(vecty.Markup(vecty.Class("num")), vecty.Text(text))
	}
	rows := vecty.List{}
	for _, row := range v.Rows {
		cfg, id := row.Config, row.CandidateID
		cells := vecty.List{
			elem.TableData(vecty.Markup(vecty.Class("rank")),
				elem.Input(vecty.Markup(prop.Type(prop.TypeCheckbox), vecty.Class("pick"), vecty.Property("checked", picked[id]),
					vecty.Attribute("aria-label", "compare rank "+strconv.Itoa(row.Rank)),
					event.Click(func(*vecty.Event) { a.togglePick(id) }).StopPropagation())),
				vecty.Text(strconv.Itoa(row.Rank))),
			elem.TableData(vecty.Markup(vecty.Class("summary")), summaryParts(row.Summary),
				vecty.If(row.Calibrated, vecty.Text(" · "), elem.Span(vecty.Markup(vecty.Class("part", "cal"),
					vecty.Attribute("title", "predicted with the calibration profile: calibrated metrics, the profile's 80 % bands")), vecty.Text(CalibratedMark)))),
			num(strconv.Itoa(row.UsedGPUs)),
			num(OptionalNum(row.Score)),
			elem.TableData(vecty.Markup(vecty.Class("num"), vecty.Class("interval")), vecty.Text(IntervalCell(row.Interval, row.WithinError))),
		}
		for _, m := range recview.RowMetrics {
			cells = append(cells, metricCell(row, m.Key))
		}
		if priced {
			cells = append(cells, num(OptionalNum(row.CostPerHour)), num(OptionalNum(row.CostPerMTok)))
		}
		rows = append(rows, elem.TableRow(vecty.Markup(vecty.Data("candidate", id), vecty.Data("rank", strconv.Itoa(row.Rank)),
			vecty.MarkupIf(picked[id], vecty.Class("picked")),
			vecty.Attribute("title", "Open "+row.File+" as a prediction"),
			event.Click(func(*vecty.Event) { a.openCandidate(cfg) })), cells))
	}
	return elem.Div(
		elem.Div(vecty.Markup(vecty.Class("table-wrap"), prop.ID("rec-table-wrap")),
			elem.Table(vecty.Markup(prop.ID("rec-table"), vecty.Class("ranked")),
				elem.TableHead(elem.TableRow(head)),
				elem.TableBody(rows),
			)),
		vecty.If(len(v.Rows) == 0, elem.Div(vecty.Markup(vecty.Class("muted")), vecty.Text("No feasible candidate to rank."))),
		vecty.If(v.WithinError != "", elem.Div(vecty.Markup(vecty.Class("muted"), prop.ID("rec-within-error")), vecty.Text(v.WithinError))),
		a.renderCompare(v),
	)
}

// metricCell is a table metric of a row: its value and, under it, its 80 % band when the
// prediction has one (BandRange).
func metricCell(row recview.Row, key string) *vecty.HTML {
	band := row.Bands[key]
	return elem.TableData(vecty.Markup(vecty.Class("num")), vecty.Text(OptionalNum(row.Metrics[key])),
		vecty.If(band != nil, elem.Div(vecty.Markup(vecty.Class("band"), vecty.Data("key", key), vecty.Attribute("title", "80 % interval")), vecty.Text(BandRange(band)))))
}

// summaryParts is a deployment summary ("aggregated · vllm · h200_sxm · 1× TP2") with each
// part kept on one line, so the cell wraps only between parts.
func summaryParts(summary string) vecty.List {
	var out vecty.List
	for i, part := range strings.Split(summary, " · ") {
		if i > 0 {
			out = append(out, vecty.Text(" · "))
		}
		out = append(out, elem.Span(vecty.Markup(vecty.Class("part")), vecty.Text(part)))
	}
	return out
}

// renderCompare is the side-by-side comparison of the two picked rows (CompareRows), the
// settings their configurations differ in (ConfigDiff) and a button to open each as a
// prediction; with one row picked, a line asking for the second.
func (a *App) renderCompare(v *recview.View) vecty.ComponentOrHTML {
	var picked []recview.Row
	for _, id := range a.rec.picked {
		for _, row := range v.Rows {
			if row.CandidateID == id {
				picked = append(picked, row)
			}
		}
	}
	switch len(picked) {
	case 0:
		return elem.Div(vecty.Markup(vecty.Class("muted"), prop.ID("rec-compare-hint")), vecty.Text("Tick the boxes of two rows to compare them side by side."))
	case 1:
		return elem.Div(vecty.Markup(vecty.Class("muted"), prop.ID("rec-compare-hint")),
			vecty.Text("Rank "+strconv.Itoa(picked[0].Rank)+" picked; tick one more row to compare."))
	}
	ra, rb := picked[0], picked[1]
	body := vecty.List{}
	for _, l := range CompareRows(v, ra, rb) {
		body = append(body, elem.TableRow(
			elem.TableHeader(vecty.Markup(vecty.Attribute("scope", "row")), vecty.Text(l.Label)),
			elem.TableData(vecty.Text(l.A)), elem.TableData(vecty.Text(l.B)),
			elem.TableData(vecty.Markup(vecty.Class("change")), vecty.Text(l.Change))))
	}
	diffs := vecty.List{}
	for _, d := range ConfigDiff(ra.Config, rb.Config) {
		diffs = append(diffs, elem.ListItem(vecty.Text(d)))
	}
	open := func(label string, row recview.Row) *vecty.HTML {
		cfg := row.Config
		return elem.Button(vecty.Markup(vecty.Class("secondary"), event.Click(func(*vecty.Event) { a.openCandidate(cfg) })),
			vecty.Text("Open "+label+" (rank "+strconv.Itoa(row.Rank)+") as a prediction"))
	}
	return elem.Section(vecty.Markup(vecty.Class("compare"), prop.ID("rec-compare")),
		elem.Heading3(vecty.Text("Rank "+strconv.Itoa(ra.Rank)+" (A) and rank "+strconv.Itoa(rb.Rank)+" (B) side by side")),
		elem.Div(vecty.Markup(vecty.Class("table-wrap")),
			elem.Table(vecty.Markup(vecty.Class("compare-table")),
				elem.TableHead(elem.TableRow(elem.TableHeader(), elem.TableHeader(vecty.Text("A: rank "+strconv.Itoa(ra.Rank))),
					elem.TableHeader(vecty.Text("B: rank "+strconv.Itoa(rb.Rank))), elem.TableHeader(vecty.Text("B vs A")))),
				elem.TableBody(body))),
		elem.Div(vecty.Markup(vecty.Class("muted")), vecty.Text("Settings that differ (A → B):")),
		vecty.If(len(diffs) == 0, elem.Div(vecty.Markup(vecty.Class("muted")), vecty.Text("none: the two configurations are the same"))),
		vecty.If(len(diffs) > 0, elem.UnorderedList(vecty.Markup(vecty.Class("config-diff"), prop.ID("rec-compare-diff")), diffs)),
		elem.Div(vecty.Markup(vecty.Class("downloads")), open("A", ra), open("B", rb),
			elem.Button(vecty.Markup(vecty.Class("secondary"), prop.ID("rec-compare-clear"), event.Click(func(*vecty.Event) {
				a.rec.picked = nil
				a.drawRecCharts()
				vecty.Rerender(a)
			})), vecty.Text("Clear comparison"))),
	)
}
