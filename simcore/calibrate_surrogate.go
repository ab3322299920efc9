package simcore

import (
	"aisimulate/simcore/calibration"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// measurementSurrogate is the steady-state surrogate of a measurement's replay
// (perf.SimDisaggLoop: a closed loop whose cycle includes the frontend and hand-off
// latencies) under given parameters, on which the fit takes its steps without replaying
// (docs/calibration.md, "Steps from the surrogate"). Only a closed loop on a disaggregated
// deployment whose roles both run the default timing model has one; nil otherwise (the fit
// then replays every finite difference).
func measurementSurrogate(p *measuredPoint) (func(calibration.Params) calibration.Metrics, error) {
	m := p.m
	if m.Concurrency == 0 || p.cfg == nil || p.scope.Mode != spec.ModeDisaggregated {
		return nil, nil
	}
	in := Input{ConfigName: p.configName, ConfigYAML: p.configYAML, Sets: p.sets, Files: p.files}
	plan, _, err := lower(p.cfg, &in)
	if err != nil {
		return nil, rowError(m, &CalibrateInput{}, err)
	}
	pre, dec := (&poolTiming{plan.Prefill}).defaultModel(), (&poolTiming{plan.Decode}).defaultModel()
	if pre == nil || dec == nil {
		return nil, nil
	}
	e := &p.cfg.Engine
	isl, osl := p.cfg.Traffic.Source.InputTokens, p.cfg.Traffic.Source.OutputTokens
	kv := surrogateKVTokens(plan.Decode, e.Backend, isl, osl)
	pr := perf.SurrogateRole{Workers: e.Prefill.Parallelism.Replicas, Par: e.Prefill.Parallelism}
	dr := perf.SurrogateRole{Workers: e.Decode.Parallelism.Replicas, Par: e.Decode.Parallelism}
	return func(q calibration.Params) calibration.Metrics {
		c := q.Correction()
		pre.SetCorrection(c)
		dec.SetCorrection(c)
		handoff := plan.Transfer.HandoffMs + q[calibration.HandoffMs]
		ttft, tpot := perf.SimDisaggLoop(pre, dec, e.Backend, m.Concurrency, isl, osl, pr, dr, kv, handoff, handoff+pre.FrontendMs(isl))
		return calibration.Metrics{TTFT: ttft, TPOT: tpot}
	}, nil
}
