package spec

var evaluationShape = shape{keys: []string{"sla"}}

var slaShape = shape{keys: []string{"ttft_ms", "itl_ms", "e2e_ms"}}

func decodeEvaluation(d *decoder, root map[string]any) Evaluation {
	var ev Evaluation
	v, present := root["evaluation"]
	if !present {
		return ev
	}
	o := d.mapping("evaluation", v, evaluationShape)
	if !o.set("sla") {
		return ev
	}
	so := o.child("sla", slaShape)
	sla := &SLA{
		TTFTMs: so.optFloat("ttft_ms", gt(0)),
		ITLMs:  so.optFloat("itl_ms", gt(0)),
		E2EMs:  so.optFloat("e2e_ms", gt(0)),
	}
	ev.SLA = sla
	if !d.ok() {
		return ev
	}
	if sla.E2EMs != nil && (sla.TTFTMs != nil || sla.ITLMs != nil) {
		d.failf(so.path, "e2e_ms is mutually exclusive with ttft_ms/itl_ms; keep either e2e_ms or the ttft_ms+itl_ms pair")
		return ev
	}
	if (sla.TTFTMs == nil) != (sla.ITLMs == nil) {
		missing := "itl_ms"
		if sla.TTFTMs == nil {
			missing = "ttft_ms"
		}
		d.failf(so.path, "prediction evaluation.sla requires ttft_ms and itl_ms together; add %s (or use e2e_ms alone)", missing)
	}
	return ev
}

// decodeExecution validates the host resource budget of newer AISimulate revisions. The
// simulator runs in-process with no host supervision, so the values are checked and ignored.
func decodeExecution(d *decoder, root map[string]any) {
	v, present := root["execution"]
	if !present {
		return
	}
	o := d.mapping("execution", v, shape{keys: []string{"resources"}})
	if !o.set("resources") {
		return
	}
	r := o.child("resources", shape{keys: []string{
		"initialization_timeout_seconds", "shutdown_timeout_seconds", "memory_limit_gb", "cpu_limit",
		"reserve_memory_gb", "reserve_memory_fraction", "available_memory_fraction",
	}})
	r.float("initialization_timeout_seconds", 60, gt(0))
	r.float("shutdown_timeout_seconds", 5, gt(0))
	autoOr := func(key string, integer bool) {
		v, ok := r.m[key]
		if !ok {
			return
		}
		if s, isStr := v.(string); isStr {
			if s != "auto" {
				d.failf(r.p(key), "must be \"auto\" or a positive number, got %s", describe(v))
			}
			return
		}
		if integer {
			d.asInt(r.p(key), v, gt(0))
		} else {
			d.asFloat(r.p(key), v, gt(0))
		}
	}
	autoOr("memory_limit_gb", false)
	autoOr("cpu_limit", true)
	r.float("reserve_memory_gb", 1.0, ge(0))
	r.float("reserve_memory_fraction", 0, ge(0), lt(1))
	r.float("available_memory_fraction", 0.9, gt(0), le(1))
}
