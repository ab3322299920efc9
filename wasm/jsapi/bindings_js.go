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
//	    fixedWallTimeMs, onProgress}) → {ok, predictionJson, requestsJsonl, summaryJson,
//	    stdoutJson, saturationText, overviewJson, headlineJson, error}
//
// where detail is a --detail value ("all", "memory,time") or an array of section names,
// files maps names to strings or Uint8Arrays and error is {kind, path, msg, message}.
// aisimulateCore.cards lists the headline metrics as [label, summary key, unit, embed]
// (report.Cards), for the docs embed.
// The call is synchronous: run it in a Web Worker (browser) to keep a page responsive.
func Register() {
	core := js.Global().Get("Object").New()
	core.Set("predict", js.FuncOf(predictJS))
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
		out.Set("ok", false)
		e := js.Global().Get("Object").New()
		e.Set("kind", res.Err.Kind)
		e.Set("path", res.Err.Path)
		e.Set("msg", res.Err.Msg)
		e.Set("message", res.Err.Message)
		out.Set("error", e)
		return out
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

// filesFromJS reads {name: string|Uint8Array|ArrayBuffer} into Go byte slices.
func filesFromJS(v js.Value) map[string][]byte {
	keys := js.Global().Get("Object").Call("keys", v)
	u8 := js.Global().Get("Uint8Array")
	ab := js.Global().Get("ArrayBuffer")
	files := make(map[string][]byte, keys.Length())
	for i := 0; i < keys.Length(); i++ {
		k := keys.Index(i).String()
		f := v.Get(k)
		switch {
		case f.Type() == js.TypeString:
			files[k] = []byte(f.String())
		case f.InstanceOf(u8):
			b := make([]byte, f.Get("length").Int())
			js.CopyBytesToGo(b, f)
			files[k] = b
		case f.InstanceOf(ab):
			a := u8.New(f)
			b := make([]byte, a.Get("length").Int())
			js.CopyBytesToGo(b, a)
			files[k] = b
		}
	}
	return files
}

// cardsJS is report.Cards as a JavaScript array of [label, key, unit, embed].
func cardsJS() js.Value {
	arr := js.Global().Get("Array").New()
	for _, c := range report.Cards {
		arr.Call("push", js.ValueOf([]any{c.Label, c.Key, c.Unit, c.Embed}))
	}
	return arr
}
