package deploy

import "aisimulate/simcore/spec"

// routerMode is the frontend's --router-mode of each router.policy.
var routerMode = map[string]string{
	spec.RouterRoundRobin: "round-robin",
	spec.RouterKV:         "kv",
}

// kvRouter reports whether the deployment routes with the KV router.
func (d *deployment) kvRouter() bool { return d.cfg.Router.Policy == spec.RouterKV }

// frontendFlags is the frontend's flag table: options of `python3 -m dynamo.frontend` for the
// router section (Dynamo's frontend configuration reference). The KV router's knobs are
// written only with policy kv_router.
var frontendFlags = []engineFlag{
	{"router.policy", []string{"--router-mode"}, func(d *deployment, _ role) []string {
		return []string{"--router-mode", routerMode[d.cfg.Router.Policy]}
	}},
	{"router.overlap_score_credit", []string{"--router-kv-overlap-score-credit"}, func(d *deployment, _ role) []string {
		return when(d.kvRouter(), "--router-kv-overlap-score-credit", ftoa(d.cfg.Router.OverlapScoreCredit))
	}},
	{"router.prefill_load_scale", []string{"--router-prefill-load-scale"}, func(d *deployment, _ role) []string {
		return when(d.kvRouter(), "--router-prefill-load-scale", ftoa(d.cfg.Router.PrefillLoadScale))
	}},
	{"router.temperature", []string{"--router-temperature"}, func(d *deployment, _ role) []string {
		return when(d.kvRouter(), "--router-temperature", ftoa(d.cfg.Router.Temperature))
	}},
	{"router.prefill_load_model.type", []string{"--router-prefill-load-model"}, func(d *deployment, _ role) []string {
		return when(d.kvRouter(), "--router-prefill-load-model", d.cfg.Router.PrefillLoadModel)
	}},
}
