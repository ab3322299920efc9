package simcore

import (
	"fmt"

	"aisimulate/simcore/measure"
	"aisimulate/simcore/perf"
)

// kvQueueTolerance is how far below the KV-admission wait its deployment implies a
// measurement's mean TTFT may be before the measurement is refused: the wait is estimated
// from mean footprints (a scheduler that preempts, or a draw of shorter requests, holds
// somewhat more), so only a measurement beyond twice that slack contradicts it.
const kvQueueTolerance = 2

// checkHoldsLoad refuses a closed-loop measurement whose replayed deployment cannot hold its
// requests in flight in the KV cache while its measured TTFT shows that the measured run
// did (docs/calibration.md, "Measurements the deployment cannot hold"). With held = the KV
// tokens of the aggregated (or decode) pool over all ranks / the backend's footprint of one
// request (perf.Footprint), a closed loop of C > held clients queues for admission: by
// Little's law each request waits (C/held − 1)·S for a service time S of at least its
// decode, (OSL − 1)·TPOT measured. No scale or pass time can remove that wait, so a fit on
// such a point drives every parameter to its floor and the predictions between blow up.
func checkHoldsLoad(p *measuredPoint) error {
	m := p.m
	if m.Concurrency == 0 || m.OSL < 2 {
		return nil
	}
	held, err := heldInFlight(p)
	if err != nil {
		return err
	}
	if held >= float64(m.Concurrency) {
		return nil
	}
	wait := (float64(m.Concurrency)/max(held, 1) - 1) * float64(m.OSL-1) * m.TPOT
	if m.TTFT*kvQueueTolerance >= wait {
		return nil
	}
	field := m.ID
	if m.Row != nil {
		field = "row " + m.ID
	}
	return &measure.Error{File: m.File, Field: field, Msg: fmt.Sprintf(
		"the deployment it is replayed on holds %.0f of its %d requests in flight in the KV cache, so the replay would queue each request about %.0f ms for admission, but the measured mean TTFT is %.0f ms: the measured run held them; give a configuration with its real KV capacity (--config with kv_cache.capacity, the KV cache's quantization or the attention-DP size) or leave the measurement out",
		held, m.Concurrency, wait, m.TTFT)}
}

// heldInFlight is how many of a measurement's requests its replayed deployment holds in the
// KV cache at once: the KV tokens of the aggregated (or decode) pool over all ranks divided
// by the backend's footprint of one request (perf.Footprint).
func heldInFlight(p *measuredPoint) (float64, error) {
	in := Input{ConfigName: p.configName, ConfigYAML: p.configYAML, Sets: p.sets, Files: p.files}
	plan, _, err := lower(p.cfg, &in)
	if err != nil {
		return 0, rowError(p.m, &CalibrateInput{}, err)
	}
	pool := plan.Agg
	if plan.Disaggregated {
		pool = plan.Decode
	}
	tokens := float64(pool.Rank.NumBlocks) * float64(pool.Rank.BlockSize) * float64(max(pool.DP, 1)) * float64(max(pool.Replicas, 1))
	return tokens / float64(perf.Footprint(p.cfg.Engine.Backend, p.m.ISL, p.m.OSL)), nil
}
