//go:build js && wasm

package ui

import (
	"strconv"
	"strings"
	"syscall/js"

	"github.com/hexops/vecty"
	"github.com/hexops/vecty/elem"
	"github.com/hexops/vecty/event"
	"github.com/hexops/vecty/prop"
)

// calibrationState is the page's calibration (docs/web.md, "Calibration"), one for both
// views: the profiles applied to every prediction and recommendation, --strict-calibration,
// and the state of an in-page fit.
type calibrationState struct {
	profiles []Profile
	strict   bool
	// lengths is the length draw of benchmark files that record none, as calibrate's
	// --lengths YAML (docs/calibration.md, "Length draws"); "" is none (constant lengths).
	lengths string
	// fitting is true while benchmark files are being calibrated; fitTable is the fit report
	// of the last in-page calibration, fitWarnings its warnings (calibrate's stderr), fitErr
	// its error.
	fitting        bool
	fitTable       string
	fitWarnings    []string
	fitErr         string
	calibrated     *Calibrated
	fittedProfiles int
}

// readFilesJS reads a FileList into a promise of [{name, data: Uint8Array}], in order.
var readFilesJS = js.Global().Get("Function").New("list", `
  return Promise.all(Array.from(list).map(async (f) => ({ name: f.name, data: new Uint8Array(await f.arrayBuffer()) })));`)

// onCalibrationFiles takes uploaded calibration files: profiles are applied as they are;
// benchmark results are calibrated in the page (aisimulate.calibrate) and their profile is
// applied — in the Predict view on its configuration's deployment (`calibrate --config`), in
// the Recommend view without one (`calibrate` alone: measured-runs CSV rows carry their
// deployment; a sweep is no single deployment to fit on).
func (a *App) onCalibrationFiles(e *vecty.Event) {
	list := e.Target.Get("files")
	var cb js.Func
	cb = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer cb.Release()
		arr := args[0]
		var measurements []any
		for i := 0; i < arr.Length(); i++ {
			f := arr.Index(i)
			u := f.Get("data")
			b := make([]byte, u.Get("length").Int())
			js.CopyBytesToGo(b, u)
			if IsProfile(b) {
				a.cal.profiles = append(a.cal.profiles, Profile{Name: f.Get("name").String(), Data: b})
			} else {
				measurements = append(measurements, f)
			}
		}
		if len(measurements) > 0 {
			a.calibrateInPage(measurements)
		}
		vecty.Rerender(a)
		return nil
	})
	readFilesJS.Invoke(list).Call("then", cb)
	e.Target.Set("value", "")
}

// calibrateInPage fits a profile to benchmark files with the core's calibrate and applies
// it, named calibration.json (calibration-2.json, … for later fits). In the Recommend view
// the fit has no configuration, and a file that needs one is sent to the Predict view.
func (a *App) calibrateInPage(measurements []any) {
	config := js.ValueOf(a.yamlText)
	if a.view == viewRecommend {
		config = js.Null()
	}
	a.cal.fitting, a.cal.fitErr, a.cal.fitTable, a.cal.fitWarnings = true, "", "", nil
	opts := js.Global().Get("Object").New()
	opts.Set("measurements", js.ValueOf(measurements))
	opts.Set("files", a.filesJS())
	if strings.TrimSpace(a.cal.lengths) != "" {
		opts.Set("lengths", a.cal.lengths)
	}
	var onOK, onErr js.Func
	release := func() { onOK.Release(); onErr.Release() }
	onOK = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		a.cal.fitting = false
		a.cal.fittedProfiles++
		name := "calibration.json"
		if a.cal.fittedProfiles > 1 {
			name = "calibration-" + strconv.Itoa(a.cal.fittedProfiles) + ".json"
		}
		a.cal.profiles = append(a.cal.profiles, Profile{Name: name, Data: []byte(args[0].Get("profileJson").String())})
		a.cal.fitTable = args[0].Get("table").String()
		ws := args[0].Get("warnings")
		for i := 0; ws.Truthy() && i < ws.Length(); i++ {
			a.cal.fitWarnings = append(a.cal.fitWarnings, ws.Index(i).String())
		}
		vecty.Rerender(a)
		return nil
	})
	onErr = js.FuncOf(func(_ js.Value, args []js.Value) any {
		defer release()
		a.cal.fitting = false
		a.cal.fitErr = FitErrorText(args[0].Get("message").String(), args[0].Get("msg").String(), config.IsNull())
		vecty.Rerender(a)
		return nil
	})
	js.Global().Get("aisimulate").Call("calibrate", config, opts).Call("then", onOK, onErr)
}

// profilesJS is the profiles as aisimulate.predict's calibrations option: [{name, data}].
func (a *App) profilesJS() js.Value {
	arr := js.Global().Get("Array").New()
	for _, p := range a.cal.profiles {
		u := js.Global().Get("Uint8Array").New(len(p.Data))
		js.CopyBytesToJS(u, p.Data)
		o := js.Global().Get("Object").New()
		o.Set("name", p.Name)
		o.Set("data", u)
		arr.Call("push", o)
	}
	return arr
}

// fitWarningItems are an in-page fit's warnings, one list item each as the CLI says them on
// stderr after "aisimulate: ".
func fitWarningItems(ws []string) vecty.List {
	items := vecty.List{}
	for _, w := range ws {
		items = append(items, elem.ListItem(vecty.Text("warning: "+w)))
	}
	return items
}

// renderCalibration is the calibration control of both views: upload a profile or the
// benchmark files themselves, the profiles applied (each removable), strict mode, the
// warnings and fit report of an in-page calibration and, in the Predict view, the last
// calibrated run's warnings (the Recommend view states its calibration with its results).
func (a *App) renderCalibration() *vecty.HTML {
	items := vecty.List{}
	for i, p := range a.cal.profiles {
		i, p := i, p
		items = append(items, elem.ListItem(
			elem.Code(vecty.Text(p.Name)),
			elem.Span(vecty.Markup(vecty.Class("muted")), vecty.Text(" "+FormatNum(float64(len(p.Data)))+" B ")),
			elem.Button(vecty.Markup(vecty.Class("link"), event.Click(func(*vecty.Event) {
				a.cal.profiles = append(a.cal.profiles[:i:i], a.cal.profiles[i+1:]...)
				vecty.Rerender(a)
			})), vecty.Text("remove")),
		))
	}
	status := ""
	intro := " A calibration profile (calibration.json), or your benchmark results (AIPerf, vllm bench serve, SGLang bench_serving, measured-runs CSV) to calibrate on this deployment here."
	if a.view == viewRecommend {
		intro = " A calibration profile (calibration.json), or measured-runs CSV rows to calibrate here. Profiles apply to every candidate they cover, and to both views."
	}
	switch c := a.cal.calibrated; {
	case a.cal.fitting:
		status = "Calibrating on the uploaded benchmark results…"
	case a.view == viewRecommend:
	case c != nil && len(c.Warnings) > 0:
		status = "Last run: " + strings.Join(c.Warnings, " ")
	case c != nil:
		status = "Last run: calibrated, inside every profile's scope and validity domain."
	}
	return elem.Div(vecty.Markup(vecty.Class("files", "calibration"), prop.ID("calibration")),
		elem.Label(vecty.Markup(vecty.Class("button", "secondary")),
			vecty.Text("Calibrate…"),
			elem.Input(vecty.Markup(prop.ID("calibration-upload"), prop.Type(prop.TypeFile), vecty.Property("multiple", true),
				vecty.Attribute("accept", ".json,.jsonl,.csv"), vecty.Class("hidden"), event.Change(a.onCalibrationFiles))),
		),
		elem.Span(vecty.Markup(vecty.Class("muted")), vecty.Text(intro)),
		elem.Label(vecty.Markup(vecty.Class("lengths")),
			vecty.Text("length draw (YAML) "),
			elem.Input(vecty.Markup(prop.ID("calibration-lengths"), prop.Type(prop.TypeText), vecty.Property("value", a.cal.lengths),
				prop.Placeholder(LengthsPlaceholder), vecty.Attribute("spellcheck", "false"),
				vecty.Attribute("title", LengthsTitle),
				event.Input(func(e *vecty.Event) { a.cal.lengths = e.Target.Get("value").String() }))),
		),
		vecty.If(len(items) > 0, elem.UnorderedList(vecty.Markup(vecty.Class("file-list"), prop.ID("calibration-profiles")), items)),
		vecty.If(len(items) > 0, elem.Label(vecty.Markup(vecty.Class("check")),
			elem.Input(vecty.Markup(prop.ID("strict-calibration"), prop.Type(prop.TypeCheckbox), vecty.Property("checked", a.cal.strict),
				event.Change(func(e *vecty.Event) { a.cal.strict = e.Target.Get("checked").Bool() }))),
			vecty.Text(" strict: refuse a run outside a profile's scope or validity domain"))),
		vecty.If(a.cal.fitErr != "", elem.Div(vecty.Markup(vecty.Class("field-error"), prop.ID("calibration-error"), vecty.Attribute("role", "alert")), vecty.Text(a.cal.fitErr))),
		vecty.If(len(a.cal.fitWarnings) > 0, elem.UnorderedList(vecty.Markup(vecty.Class("fit-warnings"), prop.ID("calibration-warnings"), vecty.Attribute("role", "status")), fitWarningItems(a.cal.fitWarnings))),
		vecty.If(a.cal.fitTable != "", elem.Preformatted(vecty.Markup(vecty.Class("fit"), prop.ID("calibration-fit")), vecty.Text(a.cal.fitTable))),
		vecty.If(status != "", elem.Div(vecty.Markup(vecty.Class("muted"), prop.ID("calibration-status")), vecty.Text(status))),
	)
}
