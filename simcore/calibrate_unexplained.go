package simcore

import (
	"fmt"
	"math"

	"aisimulate/simcore/calibration"
)

// UnexplainedTolerance is how far a profile's calibrated mean TTFT or TPOT may miss the
// measurement it was fitted on before calibrate warns: the repeat-to-repeat spread of
// LoadFallTolerance (docs/calibration.md, "Measurements the profile does not explain").
const UnexplainedTolerance = LoadFallTolerance

// unexplainedWarnings are the warnings of measurements the fitted profile does not reproduce
// (docs/calibration.md, "Measurements the profile does not explain"): a point whose calibrated
// mean TTFT or TPOT differs from the measured one by more than UnexplainedTolerance of it.
// No single set of the profile's parameters reproduces the deployment's measurements then,
// so its predictions near that measurement, and between it and the others, miss too. ps are
// one deployment's points, calibrated their replays under the fitted parameters.
func unexplainedWarnings(ps []*measuredPoint, calibrated []calibration.Metrics) []string {
	var ws []string
	for i, p := range ps {
		for _, c := range []struct {
			metric, format       string
			measured, calibrated float64
		}{
			{"TTFT", "%.1f", p.m.TTFT, calibrated[i].TTFT},
			{"TPOT", "%.2f", p.m.TPOT, calibrated[i].TPOT},
		} {
			if !(math.Abs(c.calibrated-c.measured) > UnexplainedTolerance*c.measured) {
				continue
			}
			miss := c.calibrated/c.measured - 1
			ws = append(ws, fmt.Sprintf("%s (%s): the profile gives a mean %s of "+c.format+" ms against the "+c.format+" ms measured (%+.1f %%), "+
				"beyond the %.0f %% by which repeated runs of one deployment differ: no one set of the profile's parameters reproduces this "+
				"deployment's measurements, so its predictions near this load and between the measured loads will miss by as much (the calibrated "+
				"intervals widen with this residual); measure more loads, calibrate a narrower range of them, or check the deployment they are replayed on",
				p.m.Name(), loadText(p), c.metric, c.calibrated, c.measured, 100*miss, 100*UnexplainedTolerance))
		}
	}
	return ws
}
