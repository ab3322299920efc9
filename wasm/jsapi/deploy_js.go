//go:build js && wasm

package jsapi

import (
	"encoding/base64"
	"syscall/js"
)

// registerDeploy installs the deployment entry points on the core object:
//
//	aisimulateCore.deployPrediction(yamlText, predictionJson, {configName, sets})
//	aisimulateCore.deployRecommendation(recommendationJson, top)
//	    → {ok, zipBase64, names, error}
//
// names lists the files of the zip (deploy/NNNN/…); the zip is base64 so the answer stays
// plain data across postMessage (docs/artifacts.md, docs/web.md).
func registerDeploy(core js.Value) {
	core.Set("deployPrediction", js.FuncOf(func(_ js.Value, args []js.Value) any {
		var name string
		var sets []string
		if len(args) > 2 && args[2].Type() == js.TypeObject {
			if v := args[2].Get("configName"); v.Type() == js.TypeString {
				name = v.String()
			}
			if v := args[2].Get("sets"); v.Type() == js.TypeObject {
				for i := 0; i < v.Length(); i++ {
					sets = append(sets, v.Index(i).String())
				}
			}
		}
		return deploymentJS(PredictionDeployment(name, []byte(stringArg(args, 0)), sets, []byte(stringArg(args, 1))))
	}))
	core.Set("deployRecommendation", js.FuncOf(func(_ js.Value, args []js.Value) any {
		top := 0
		if len(args) > 1 && args[1].Type() == js.TypeNumber {
			top = args[1].Int()
		}
		return deploymentJS(RecommendationDeployment([]byte(stringArg(args, 0)), top))
	}))
}

// stringArg is args[i] when it is a string, else "".
func stringArg(args []js.Value, i int) string {
	if len(args) > i && args[i].Type() == js.TypeString {
		return args[i].String()
	}
	return ""
}

// deploymentJS is a Deployment as a JavaScript object.
func deploymentJS(d Deployment) js.Value {
	out := js.Global().Get("Object").New()
	if d.Err != nil {
		out.Set("ok", false)
		e := js.Global().Get("Object").New()
		e.Set("kind", d.Err.Kind)
		e.Set("path", d.Err.Path)
		e.Set("msg", d.Err.Msg)
		e.Set("message", d.Err.Message)
		out.Set("error", e)
		return out
	}
	names := make([]string, len(d.Files))
	for i, f := range d.Files {
		names[i] = f.Name
	}
	out.Set("ok", true)
	out.Set("zipBase64", base64.StdEncoding.EncodeToString(d.Zip))
	out.Set("names", stringsJS(names))
	return out
}
