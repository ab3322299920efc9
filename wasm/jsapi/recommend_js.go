//go:build js && wasm

package jsapi

import (
	"math"
	"syscall/js"
)

// recommendations are the searches in progress in this module instance, by id.
var recommendations = map[int]*Recommendation{}

// nextRecommendation is the id of the next search.
var nextRecommendation = 1

// registerRecommend adds the recommendation entry points to aisimulateCore:
//
//	evaluate(requestJson, {files}) → outcomeJson
//	recommendStart(yamlText, {configName, sets, files, fixedWallTimeMs, calibrations, strictCalibration})
//	    → {ok, id, parallelism, total, error}
//	recommendNext(id) → {ok, done, requests: [requestJson…], trials, total, best, error}
//	recommendObserve(id, [outcomeJson…]) → {ok, trials, total, best, pointsJson, error}
//	recommendResult(id) → {ok, recommendationJson, recommendationCsv, configs: [{name, data}],
//	    feasible, viewJson, error}   (ends the search)
//	recommendClose(id)               (drops a search, e.g. when cancelled)
//
// best is null until a candidate is feasible; pointsJson holds the chart points of the
// candidates the round simulated (Recommendation.NewPoints). evaluate is what each Web Worker of the
// evaluation pool runs; the other calls are the search coordinator's (docs/web.md).
func registerRecommend(core js.Value) {
	core.Set("evaluate", js.FuncOf(evaluateJS))
	core.Set("recommendStart", js.FuncOf(recommendStartJS))
	core.Set("recommendNext", js.FuncOf(recommendNextJS))
	core.Set("recommendObserve", js.FuncOf(recommendObserveJS))
	core.Set("recommendResult", js.FuncOf(recommendResultJS))
	core.Set("recommendClose", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) > 0 {
			delete(recommendations, args[0].Int())
		}
		return nil
	}))
}

func evaluateJS(_ js.Value, args []js.Value) any {
	req := ""
	if len(args) > 0 && args[0].Type() == js.TypeString {
		req = args[0].String()
	}
	var files map[string][]byte
	if len(args) > 1 && args[1].Type() == js.TypeObject {
		if v := args[1].Get("files"); v.Type() == js.TypeObject {
			files = filesFromJS(v)
		}
	}
	return EvaluateJSON(req, files)
}

func newObject() js.Value { return js.Global().Get("Object").New() }

func errorJS(e *Error) js.Value {
	out := newObject()
	out.Set("ok", false)
	o := newObject()
	o.Set("kind", e.Kind)
	o.Set("path", e.Path)
	o.Set("msg", e.Msg)
	o.Set("message", e.Message)
	out.Set("error", o)
	return out
}

func recommendStartJS(_ js.Value, args []js.Value) any {
	var req RecommendRequest
	var o js.Value
	req.YAML, req.ConfigName, o = yamlAndOptions(args)
	if o.Type() == js.TypeObject {
		if v := o.Get("sets"); v.Type() == js.TypeObject {
			for i := 0; i < v.Length(); i++ {
				req.Sets = append(req.Sets, v.Index(i).String())
			}
		}
		if v := o.Get("fixedWallTimeMs"); v.Type() == js.TypeNumber {
			f := v.Float()
			req.FixedWallTimeMs = &f
		}
		if v := o.Get("files"); v.Type() == js.TypeObject {
			req.Files = filesFromJS(v)
		}
		req.Calibrations = namedFilesFromJS(o.Get("calibrations"))
		req.StrictCalibration = o.Get("strictCalibration").Truthy()
	}
	if perf := js.Global().Get("performance"); perf.Type() == js.TypeObject {
		now := perf.Get("now").Call("bind", perf)
		req.Clock = func() float64 { return now.Invoke().Float() }
	}
	rc, e := StartRecommendation(req)
	if e != nil {
		return errorJS(e)
	}
	id := nextRecommendation
	nextRecommendation++
	recommendations[id] = rc
	out := newObject()
	out.Set("ok", true)
	out.Set("id", id)
	out.Set("parallelism", rc.Parallelism())
	_, total, _ := rc.Progress()
	out.Set("total", total)
	return out
}

// session finds the search named by args[0].
func session(args []js.Value) (int, *Recommendation, *Error) {
	if len(args) == 0 || args[0].Type() != js.TypeNumber {
		return 0, nil, failure("aisimulate recommend failed: internal error: no recommendation id")
	}
	id := args[0].Int()
	rc, ok := recommendations[id]
	if !ok {
		return id, nil, failure("aisimulate recommend failed: internal error: no recommendation with this id (finished or closed)")
	}
	return id, rc, nil
}

// progressJS sets trials, total and best (null when none is feasible yet) on out.
func progressJS(out js.Value, rc *Recommendation) {
	done, total, best := rc.Progress()
	out.Set("trials", done)
	out.Set("total", total)
	if math.IsInf(best, 0) || math.IsNaN(best) {
		out.Set("best", nil)
	} else {
		out.Set("best", best)
	}
}

func recommendNextJS(_ js.Value, args []js.Value) any {
	id, rc, e := session(args)
	if e == nil {
		var reqs []string
		var done bool
		if reqs, done, e = rc.Next(); e == nil {
			out := newObject()
			out.Set("ok", true)
			out.Set("done", done)
			out.Set("requests", stringsJS(reqs))
			progressJS(out, rc)
			return out
		}
	}
	delete(recommendations, id)
	return errorJS(e)
}

func recommendObserveJS(_ js.Value, args []js.Value) any {
	id, rc, e := session(args)
	if e == nil {
		var outs []string
		if len(args) > 1 && args[1].Type() == js.TypeObject {
			for i := 0; i < args[1].Length(); i++ {
				outs = append(outs, args[1].Index(i).String())
			}
		}
		if e = rc.Observe(outs); e == nil {
			out := newObject()
			out.Set("ok", true)
			out.Set("pointsJson", rc.NewPoints())
			progressJS(out, rc)
			return out
		}
	}
	delete(recommendations, id)
	return errorJS(e)
}

func recommendResultJS(_ js.Value, args []js.Value) any {
	id, rc, e := session(args)
	delete(recommendations, id)
	if e != nil {
		return errorJS(e)
	}
	res, e := rc.Result()
	if e != nil {
		return errorJS(e)
	}
	out := newObject()
	out.Set("ok", true)
	out.Set("recommendationJson", res.JSON)
	out.Set("recommendationCsv", res.CSV)
	configs := js.Global().Get("Array").New()
	for _, f := range res.Configs {
		c := newObject()
		c.Set("name", f.Name)
		c.Set("data", string(f.Data))
		configs.Call("push", c)
	}
	out.Set("configs", configs)
	out.Set("feasible", res.Feasible)
	out.Set("viewJson", res.View)
	return out
}
