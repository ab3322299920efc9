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
	upper, ranks, transferMs, ok, err := decodeSlots(p)
	if err != nil || !ok {
		return nil, 0, err
	}
	seed := littleSlots(p, transferMs) / float64(ranks)
	if seed >= upper {
		return nil, 0, nil
	}
	// A secant on ln(cap) against ln(replayed / measured TTFT) of the point, from the
	// configured limit (the default model's replay) and the seed; caps are whole requests.
	// The probes replay the default model with the first fit's decode terms: the wait for
	// a slot lasts as long as the decodes ahead, whose pace the measured TPOT gives and the
	// first fit explains, while its prefill and latency terms are what stretched to explain
	// the wait and are fitted again with the cap.
	held := calibration.Identity
	held[calibration.DecodeScale], held[calibration.DecodePassMs] = first.Params[calibration.DecodeScale], first.Params[calibration.DecodePassMs]
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
	capped := calibration.Identity
	capped[calibration.DecodeMaxSequences] = n
	fit, err := calibration.FitAt(points, floor, capped)
	if err != nil {
		return nil, replays, err
	}
	return fit, replays + fit.Replays, nil
}

// littleSlots is how many of a closed-loop point's requests hold a decode slot at once by
// Little's law on its measured means: the loop's throughput X = C / (TTFT + (OSL − 1)·TPOT)
// times the time each request holds its slot, its KV transfer (transferMs, the default
// model's: a slot is taken before the transfer, docs/semantics/simulation.md §11.3) and its
// decode, (OSL − 1)·TPOT.
func littleSlots(p *measuredPoint, transferMs float64) float64 {
	m := p.m
	decode := float64(m.OSL-1) * m.TPOT
	return float64(m.Concurrency) * (transferMs + decode) / (m.TTFT + decode)
}

// decodeSlots is what one decode rank of a point's deployment lets run at once, the lower of
// its configured max_sequences and the requests its KV capacity holds (heldInFlight over the
// ranks), the number of decode ranks and the default model's KV transfer of one of the
// point's requests (hand-off latency plus its prompt's KV over the bandwidth,
// docs/semantics/simulation.md §11.4); ok is false unless the deployment is disaggregated
// with decode ranks that take a hand-off by slot (engine.RankConfig.SlotFirst).
func decodeSlots(p *measuredPoint) (upper float64, ranks int, transferMs float64, ok bool, err error) {
	in := Input{ConfigName: p.configName, ConfigYAML: p.configYAML, Sets: p.sets, Files: p.files}
	plan, _, err := lower(p.cfg, &in)
	if err != nil {
		return 0, 0, 0, false, rowError(p.m, &CalibrateInput{}, err)
	}
	if !plan.Disaggregated || !plan.Decode.Rank.SlotFirst() {
		return 0, 0, 0, false, nil
	}
	ranks = max(plan.Decode.DP, 1) * max(plan.Decode.Replicas, 1)
	kvHeld, err := heldInFlight(p)
	if err != nil {
		return 0, 0, 0, false, err
	}
	tr := plan.Transfer
	transferMs = tr.HandoffMs
	if tr.BandwidthGBs > 0 {
		transferMs += float64(int64(p.m.ISL)*tr.BytesPerToken) / (tr.BandwidthGBs * 1e9) * 1000
	}
	return math.Min(float64(plan.Decode.Rank.MaxSequences), kvHeld/float64(ranks)), ranks, transferMs, true, nil
}
