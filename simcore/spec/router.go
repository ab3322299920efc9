package spec

// Router policies and prefill load models.
const (
	RouterRoundRobin = "round_robin"
	RouterKV         = "kv_router"
	LoadModelNone    = "none"
	LoadModelAIC     = "aic"
)

// routerNumericFields are the KV router's numeric knobs, which round_robin refuses.
var routerNumericFields = []*field{&fieldOverlapScoreCredit, &fieldPrefillLoadScale, &fieldTemperature}

// routerNumerics are their keys.
var routerNumerics = fieldKeys(routerNumericFields)

// routerShape is the keys of the router section.
var routerShape = shape{keys: append([]string{"policy", "prefill_load_model"}, routerNumerics...)}

// DefaultRouter is the router when the section is omitted.
func DefaultRouter() Router {
	return Router{Policy: fieldRouterPolicy.enum[0], PrefillLoadModel: fieldPrefillLoadModel.enum[0],
		OverlapScoreCredit: fieldOverlapScoreCredit.def, PrefillLoadScale: fieldPrefillLoadScale.def, Temperature: fieldTemperature.def}
}

// decodeRouter decodes the router section (the dynamo.router adapter) and its rules.
func decodeRouter(d *decoder, v any, present bool, cfg *Config) Router {
	r := DefaultRouter()
	if !present {
		return r
	}
	o := d.mapping("router", v, routerShape)
	r.Policy = o.enumField(&fieldRouterPolicy)
	if o.has("prefill_load_model") {
		lo := o.child("prefill_load_model", shape{keys: []string{fieldPrefillLoadModel.key()}})
		r.PrefillLoadModel = lo.enumField(&fieldPrefillLoadModel)
	}
	vals := []*float64{&r.OverlapScoreCredit, &r.PrefillLoadScale, &r.Temperature}
	for i, f := range routerNumericFields {
		k := f.key()
		if !o.has(k) {
			continue
		}
		if o.m[k] == nil {
			d.failf(o.p(k), "Router numeric knobs do not accept null; remove the key to use the default")
			return r
		}
		*vals[i] = o.floatField(f)
	}
	if !d.ok() {
		return r
	}
	if r.Policy == RouterRoundRobin {
		if r.PrefillLoadModel != LoadModelNone {
			d.failf("router.prefill_load_model.type", "'%s' is incompatible with router.policy='round_robin'; use policy='kv_router' or type='none'", r.PrefillLoadModel)
			return r
		}
		if k := o.presentKeys(routerNumerics...); len(k) > 0 {
			d.failf(o.p(k[0]), "round_robin requires prefill_load_model.type='none' and rejects KV-router knobs %s; remove them or set policy: kv_router", pyList(k))
			return r
		}
		return r
	}
	// kv_router needs a choice to make (offline Mocker constraint). Checked for aggregated
	// mode, where one pool is routed.
	if e := &cfg.Engine; e.Mode == ModeAggregated && e.Aggregated != nil {
		n := e.Aggregated.Parallelism.Replicas * e.Aggregated.Parallelism.AttentionData
		if n <= 1 {
			d.failf("router.policy", "kv_router requires more than one routable worker, got %d (replicas × attention_data of workers.aggregated); raise parallelism.replicas or use policy: round_robin", n)
		}
	}
	return r
}

// checkRouterPools is the kv_router rule of the disaggregated pools, which needs the planner
// section: without the planner (which may add workers) every routed pool needs a choice to
// make, so more than one worker.
func checkRouterPools(d *decoder, cfg *Config) {
	e := &cfg.Engine
	if cfg.Router.Policy != RouterKV || e.Mode != ModeDisaggregated || cfg.Planner.Policy == PlannerEnabled {
		return
	}
	names, workers := e.roleWorkers()
	for i, w := range workers {
		if w == nil {
			continue
		}
		if n := w.Parallelism.Replicas * w.Parallelism.AttentionData; n < 2 {
			d.failf("router.policy", "kv_router needs more than one routable worker, but engine.workers.%s has replicas × attention_data = %d; add replicas or use policy: round_robin", names[i], n)
			return
		}
	}
}
