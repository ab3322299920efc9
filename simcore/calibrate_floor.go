package simcore

import (
	"fmt"

	"aisimulate/simcore/calibration"
)

// BelowFloorTolerance is how far below its deployment's physical floor a measured mean TTFT
// or TPOT may be before calibrate warns: the repeat-to-repeat spread of LoadFallTolerance
// (docs/calibration.md, "Measurements faster than their deployment").
const BelowFloorTolerance = LoadFallTolerance

// floorWarnings are the warnings of measurements faster than the model can make their
// deployment (docs/calibration.md, "Measurements faster than their deployment"): a point
// whose mean TTFT or TPOT is below (1 − BelowFloorTolerance) × its replay with every
// parameter at its physical floor (every operation at the GPU's peak, no pass overhead, no
// frontend latency, the configured KV capacity). Only a measurement whose client drew its
// lengths is checked: with constant lengths the replay's clients move in lockstep and every
// wave's prompts queue behind each other, a wait real clients, which drift apart, do not
// have, so that replay is no floor for them. Only a point already that far below the default
// model's replay (uncal, in the points' order) can be below its floor, so only those are
// replayed at the floor. ps are one deployment's points.
func floorWarnings(ps []*measuredPoint, uncal []calibration.Metrics) ([]string, error) {
	var floor calibration.Params
	floorKnown := false
	var ws []string
	low := func(measured, replayed float64) bool { return measured < (1-BelowFloorTolerance)*replayed }
	for i, p := range ps {
		if !floorChecked(p) || !low(p.m.TTFT, uncal[i].TTFT) && !low(p.m.TPOT, uncal[i].TPOT) {
			continue
		}
		if !floorKnown {
			f, err := physicalFloor(ps[0])
			if err != nil {
				return nil, err
			}
			floor, floorKnown = f, true
			floor[calibration.KVCapacityScale] = 1
		}
		fast, err := replayMeasurement(p, floor)
		if err != nil {
			return nil, err
		}
		for _, c := range []struct {
			metric, format         string
			measured, floor, model float64
		}{
			{"TTFT", "%.1f", p.m.TTFT, fast.TTFT, uncal[i].TTFT},
			{"TPOT", "%.2f", p.m.TPOT, fast.TPOT, uncal[i].TPOT},
		} {
			if !low(c.measured, c.floor) {
				continue
			}
			ws = append(ws, fmt.Sprintf("%s (%s) has a mean %s of "+c.format+" ms, %.1f %% below the "+c.format+" ms the model gives its deployment at the physical floor "+
				"(every operation at the GPU's peak, no pass overhead or frontend latency; at the default "+c.format+" ms): no calibration of this deployment "+
				"reproduces it, so either it was measured on another deployment (check the parallelism, GPU, quantization and lengths it is replayed "+
				"with, --config) or the model overprices this one; the profile fits it anyway, so its predictions will miss",
				p.m.Name(), loadText(p), c.metric, c.measured, 100*(1-c.measured/c.floor), c.floor, c.model))
		}
	}
	return ws, nil
}

// floorChecked reports whether floorWarnings checks a measurement: only one whose client drew
// its lengths (a constant-length replay's lockstep waves are no floor for real clients).
func floorChecked(p *measuredPoint) bool { return !p.m.Lengths.Constant() }
