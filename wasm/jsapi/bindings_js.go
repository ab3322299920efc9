//go:build js && wasm

package jsapi

import (
	"strings"
	"syscall/js"

	"aisimulate/simcore"
	"aisimulate/simcore/report"
)

// Register installs globalThis.aisimulateCore = {predict, version, the recommendation
// entry points of registerRecommend} and, when the host
// defined globalThis.__aisimulateOnReady, calls it. The JavaScript signature is
//
//	aisimulateCore.predict(yamlText, {configName, sets, capturePerRequest, detail, files,
//	    fixedWallTimeMs, onProgress, calibrations, strictCalibration}) → {ok, predictionJson,
//	    requestsJsonl, summaryJson, stdoutJson, saturationText, overviewJson, headlineJson, error}
//	aisimulateCore.calibrate(yamlText | null, {configName, measurements, files, lengths})
//	    → {ok, profileJson, table, stdoutJson, warnings, error}
//
// where detail is a --detail value ("all", "memory,time") or an array of section names,
// files maps names to strings or Uint8Arrays, calibrations and measurements are arrays of
// {name, data} (data a string or a Uint8Array; profiles and benchmark files in the order
// the CLI would be given them) and error is {kind, path, msg, message}.
// aisimulateCore.cards lists the headline metrics as [label, summary key, unit, embed]
// (report.Cards), for the docs embed.
// The call is synchronous: run it in a Web Worker (browser) to keep a page responsive.
func Register() {
	core := js.Global().Get("Object").New()
	core.Set("predict", js.FuncOf(predictJS))
	core.Set("calibrate", js.FuncOf(calibrateJS))
	core.Set("apiVersion", 1)
	core.Set("cards", cardsJS())
	core.Set("version", simcore.Version)
	registerRecommend(core)
	registerDeploy(core)
	js.Global().Set("aisimulateCore", core)
	if cb := js.Global().Get("__aisimulateOnReady"); cb.Type() == js.TypeFunction {
		cb.Invoke(core)
	}
}

func predictJS(_ js.Value, args []js.Value) any {
	var req Request
	if len(args) > 0 && args[0].Type() == js.TypeString {
		req.YAML = []byte(args[0].String())
	}
	var onProgress js.Value
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		o := args[1]
		if v := o.Get("configName"); v.Type() == js.TypeString {
			req.ConfigName = v.String()
		}
		if v := o.Get("capturePerRequest"); v.Truthy() {
			req.CapturePerRequest = true
		}
		if v := o.Get("sets"); v.Type() == js.TypeObject {
			for i := 0; i < v.Length(); i++ {
				req.Sets = append(req.Sets, v.Index(i).String())
			}
		}
		if v := o.Get("detail"); v.Type() == js.TypeString {
			req.Detail = v.String()
		} else if v.Type() == js.TypeObject {
			names := make([]string, v.Length())
			for i := range names {
				names[i] = v.Index(i).String()
			}
			req.Detail = strings.Join(names, ",")
		}
		if v := o.Get("fixedWallTimeMs"); v.Type() == js.TypeNumber {
			f := v.Float()
			req.FixedWallTimeMs = &f
		}
		if v := o.Get("files"); v.Type() == js.TypeObject {
			req.Files = filesFromJS(v)
		}
		if v := o.Get("onProgress"); v.Type() == js.TypeFunction {
			onProgress = v
		}
		req.Calibrations = namedFilesFromJS(o.Get("calibrations"))
		req.StrictCalibration = o.Get("strictCalibration").Truthy()
	}
	perf := js.Global().Get("performance")
	if perf.Type() == js.TypeObject {
		now := perf.Get("now").Call("bind", perf)
		req.Clock = func() float64 { return now.Invoke().Float() }
	}
	if onProgress.Type() == js.TypeFunction {
		req.Progress = func(f float64) { onProgress.Invoke(f) }
	}
	res := Run(req)
	out := js.Global().Get("Object").New()
	if res.Err != nil {
		return errorJS(res.Err)
	}
	out.Set("ok", true)
	out.Set("predictionJson", res.PredictionJSON)
	out.Set("requestsJsonl", res.RequestsJSONL)
	out.Set("summaryJson", res.SummaryJSON)
	out.Set("stdoutJson", res.StdoutJSON)
	out.Set("saturationText", res.SaturationText)
	out.Set("overviewJson", res.OverviewJSON)
	out.Set("headlineJson", res.HeadlineJSON)
	return out
}

// yamlAndOptions reads the (yamlText, options) arguments of a call: the YAML (nil when
// not a string), options.configName ("" when unset) and the options object (undefined when
// not an object).
func yamlAndOptions(args []js.Value) (yaml []byte, configName string, o js.Value) {
	if len(args) > 0 && args[0].Type() == js.TypeString {
		yaml = []byte(args[0].String())
	}
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		o = args[1]
		if v := o.Get("configName"); v.Type() == js.TypeString {
			configName = v.String()
		}
	}
	return yaml, configName, o
}

// calibrateJS is aisimulateCore.calibrate (see Register).
func calibrateJS(_ js.Value, args []js.Value) any {
	var req CalibrateRequest
	var o js.Value
	req.YAML, req.ConfigName, o = yamlAndOptions(args)
	if o.Type() == js.TypeObject {
		req.Measurements = namedFilesFromJS(o.Get("measurements"))
		if v := o.Get("files"); v.Type() == js.TypeObject {
			req.Files = filesFromJS(v)
		}
		if v := o.Get("lengths"); v.Type() == js.TypeString {
			req.Lengths = []byte(v.String())
		}
	}
	res := Calibrate(req)
	if res.Err != nil {
		return errorJS(res.Err)
	}
	out := js.Global().Get("Object").New()
	out.Set("ok", true)
	out.Set("profileJson", res.ProfileJSON)
	out.Set("table", res.Table)
	out.Set("stdoutJson", res.StdoutJSON)
	out.Set("warnings", stringsJS(res.Warnings))
	return out
}

// namedFilesFromJS reads an array of {name, data} (data a string, Uint8Array or
// ArrayBuffer), in order; an entry without readable data has empty data (the core then
// names the file in its error).
func namedFilesFromJS(v js.Value) []simcore.NamedFile {
	if v.Type() != js.TypeObject {
		return nil
	}
	var out []simcore.NamedFile
	for i := 0; i < v.Length(); i++ {
		f := v.Index(i)
		b, _ := bytesFromJS(f.Get("data"))
		out = append(out, simcore.NamedFile{Name: f.Get("name").String(), Data: b})
	}
	return out
}

// filesFromJS reads {name: string|Uint8Array|ArrayBuffer} into Go byte slices.
func filesFromJS(v js.Value) map[string][]byte {
	keys := js.Global().Get("Object").Call("keys", v)
	files := make(map[string][]byte, keys.Length())
	for i := 0; i < keys.Length(); i++ {
		k := keys.Index(i).String()
		if b, ok := bytesFromJS(v.Get(k)); ok {
			files[k] = b
		}
	}
	return files
}

// bytesFromJS reads a string, Uint8Array or ArrayBuffer; ok is false for anything else.
func bytesFromJS(f js.Value) ([]byte, bool) {
	u8 := js.Global().Get("Uint8Array")
	switch {
	case f.Type() == js.TypeString:
		return []byte(f.String()), true
	case f.InstanceOf(u8):
		b := make([]byte, f.Get("length").Int())
		js.CopyBytesToGo(b, f)
		return b, true
	case f.InstanceOf(js.Global().Get("ArrayBuffer")):
		a := u8.New(f)
		b := make([]byte, a.Get("length").Int())
		js.CopyBytesToGo(b, a)
		return b, true
	}
	return nil, false
}

// stringsJS is a JavaScript array of the strings, in order ([] for none).
func stringsJS(ss []string) js.Value {
	arr := js.Global().Get("Array").New()
	for _, s := range ss {
		arr.Call("push", s)
	}
	return arr
}

// cardsJS is report.Cards as a JavaScript array of [label, key, unit, embed].
func cardsJS() js.Value {
	arr := js.Global().Get("Array").New()
	for _, c := range report.Cards {
		arr.Call("push", js.ValueOf([]any{c.Label, c.Key, c.Unit, c.Embed}))
	}
	return arr
}
