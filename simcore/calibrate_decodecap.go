package simcore

import (
	"math"

	"aisimulate/simcore/calibration"
)

// Decode batch cap (docs/calibration.md, "Decode batch cap"). A disaggregated recipe caps
// the requests each decode rank runs at once (TensorRT-LLM's max_batch_size on the
// generation workers) and the measured-runs CSV does not record it. A TensorRT-LLM decode
// rank takes a hand-off's KV only once the request has a slot (docs/semantics/simulation.md
// §11.3), so a closed loop of more clients than the ranks' slots waits before its first
// token: mean TTFT flat, then several times higher from one load to the next, with TPOT
// smooth. When the fit does not explain its measurements and such a point shows the queue,
// the cap is fitted: seeded by Little's law from that point, refined by a few replays of
// it, and the other parameters fitted with the cap held (calibration.FitAt).

// decodeCapSteps bounds the replays of the queueing point in the search for its cap; the
// search stops once the point's replayed TTFT is within kvCapacitySettled of the measured.
const decodeCapSteps = 3

// fitDecodeCap is the fit with the decode batch cap that queues point i as measured, or nil
// when the deployment's decode ranks take no hand-off by slot, or Little's law puts the
// requests decoding per rank at or above what the configuration already lets a rank hold
// (its max_sequences, and the requests its KV capacity holds: the cap is a scheduler
// limit, never above the memory's). replays counts the replays of the search and the fit.
func fitDecodeCap(ps []*measuredPoint, points []calibration.Point, floor calibration.Params, i int, first *calibration.Fitted) (*calibration.Fitted, int, error) {
	p := ps[i]
	upper, ranks, ok := decodeSlots(p)
	if !ok {
		return nil, 0, nil
	}
	seed := littleDecoding(p) / float64(ranks)
	if seed >= upper {
		return nil, 0, nil
	}
	held := calibration.Identity
	// A secant on ln(cap) against ln(replayed / measured TTFT) of the point, from the
	// configured limit (the default model's replay) and the seed; caps are whole requests.
	x0, g0 := math.Log(upper), math.Log(first.Uncalibrated[i].TTFT/p.m.TTFT)
	n := max(1, math.Round(seed))
	replays := 0
	for step := 0; step < decodeCapSteps; step++ {
		held[calibration.DecodeMaxSequences] = n
		got, err := replayMeasurement(p, held)
		replays++
		if err != nil {
			return nil, replays, err
		}
		x1, g1 := math.Log(n), math.Log(got.TTFT/p.m.TTFT)
		if math.Abs(g1) < kvCapacitySettled || g1 == g0 {
			break
		}
		next := math.Round(math.Exp(min(max(x1-g1*(x1-x0)/(g1-g0), 0), math.Log(upper))))
		x0, g0 = x1, g1
		if next == n {
			break
		}
		n = next
	}
	fit, err := calibration.FitAt(points, floor, held)
	if err != nil {
		return nil, replays, err
	}
	return fit, replays + fit.Replays, nil
}

// littleDecoding is how many of a closed-loop point's requests are decoding at once by
// Little's law on its measured means: the loop's throughput X = C / (TTFT + (OSL − 1)·TPOT)
// times the time each request decodes, (OSL − 1)·TPOT.
func littleDecoding(p *measuredPoint) float64 {
	m := p.m
	decode := float64(m.OSL-1) * m.TPOT
	return float64(m.Concurrency) * decode / (m.TTFT + decode)
}

// decodeSlots is what one decode rank of a point's deployment lets run at once, the lower of
// its configured max_sequences and the requests its KV capacity holds (heldInFlight over the
// ranks), and the number of decode ranks; ok is false unless the deployment is disaggregated
// with decode ranks that take a hand-off by slot (engine.RankConfig.SlotFirst).
func decodeSlots(p *measuredPoint) (upper float64, ranks int, ok bool) {
	in := Input{ConfigName: p.configName, ConfigYAML: p.configYAML, Sets: p.sets, Files: p.files}
	plan, _, err := lower(p.cfg, &in)
	if err != nil || !plan.Disaggregated || !plan.Decode.Rank.SlotFirst() {
		return 0, 0, false
	}
	ranks = max(plan.Decode.DP, 1) * max(plan.Decode.Replicas, 1)
	kvHeld, err := heldInFlight(p)
	if err != nil {
		return 0, 0, false
	}
	return math.Min(float64(plan.Decode.Rank.MaxSequences), kvHeld/float64(ranks)), ranks, true
}
