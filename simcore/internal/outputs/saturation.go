package outputs

import (
	"math"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// trendFraction separates a growing or draining queue from a steady one: the queue's growth
// over the second half of the release window must exceed this fraction of the offered rate
// (docs/semantics/outputs.md §3.4) [decision]. A deployment that serves less than 90 % of what
// arrives is overloaded; the fluctuations of a queue that keeps up stay well below it.
const trendFraction = 0.1

// Saturation builds the saturation section of prediction.json (docs/semantics/outputs.md
// §3.4): the offered and served request rates, how the queue of waiting requests moved over
// the second half of the release window, and in disaggregated mode the role whose queue grew
// most. servedRPS is the summary's request_throughput_rps.
func Saturation(res *replay.Result, disagg bool, servedRPS float64) map[string]any {
	m := map[string]any{
		report.SatOfferedRPS:            nil,
		report.SatServedRPS:             servedRPS,
		report.SatFirstReleaseMs:        nil,
		report.SatLastReleaseMs:         nil,
		report.SatQueueGrowthRPS:        nil,
		report.SatPrefillQueueGrowthRPS: nil,
		report.SatDecodeQueueGrowthRPS:  nil,
		report.SatWaitingAtLastRelease:  0,
		report.SatQueueTrend:            nil,
		report.SatBottleneck:            nil,
	}
	n := res.Outcomes.Len()
	if n == 0 {
		return m
	}
	first, last := math.Inf(1), math.Inf(-1)
	for i := range n {
		a := res.Outcomes.At(i).Arrival
		first, last = min(first, a), max(last, a)
	}
	m[report.SatFirstReleaseMs] = first
	m[report.SatLastReleaseMs] = last
	m[report.SatWaitingAtLastRelease] = waiting(res, last, firstQueue) + waiting(res, last, decodeQueue)
	if last <= first {
		return m
	}
	// offered = (releases − 1) / window: the mean rate of the gaps between releases, so a
	// constant rate of r requests/s gives r.
	offered := float64(n-1) / ((last - first) / 1000)
	mid := first + (last-first)/2
	half := (last - mid) / 1000
	growth := func(q queue) float64 { return float64(waiting(res, last, q)-waiting(res, mid, q)) / half }
	pre, dec := growth(firstQueue), 0.0
	if disagg {
		dec = growth(decodeQueue)
		m[report.SatPrefillQueueGrowthRPS] = pre
		m[report.SatDecodeQueueGrowthRPS] = dec
	}
	total := pre + dec
	m[report.SatOfferedRPS] = offered
	m[report.SatQueueGrowthRPS] = total
	trend := report.TrendSteady
	switch {
	case total > trendFraction*offered:
		trend = report.TrendGrowing
	case total < -trendFraction*offered:
		trend = report.TrendDraining
	}
	m[report.SatQueueTrend] = trend
	if disagg && trend == report.TrendGrowing {
		m[report.SatBottleneck] = spec.RolePrefill
		if dec > pre {
			m[report.SatBottleneck] = spec.RoleDecode
		}
	}
	return m
}

// queue names one of the two queues of docs/semantics/outputs.md §3.4.
type queue int

const (
	// firstQueue is the wait from release to the first admission (the prefill pool's when
	// disaggregated).
	firstQueue queue = iota
	// decodeQueue is the wait of a disaggregated request from the end of its prefill to its
	// first decode admission (the KV transfer included).
	decodeQueue
)

// waiting counts the requests in queue q at time t: entered at or before t, left after t. A
// request leaves at its admission, or at its terminal time when it is never admitted; one
// still unfinished at the end of the run has not left.
func waiting(res *replay.Result, t float64, q queue) int {
	count := 0
	for i := range res.Outcomes.Len() {
		r := res.Outcomes.At(i)
		enter, admitted, at := r.Arrival, r.FirstAdmit >= 0, r.FirstAdmit
		if q == decodeQueue {
			if r.SourceHeld <= 0 && r.SourceReleased <= 0 { // never handed off
				continue
			}
			enter, admitted, at = r.SourceHeld, r.DecodeAdmitted, r.DecodeAdmit
		}
		leave := math.Inf(1)
		switch {
		case admitted:
			leave = at
		case r.Status != engine.Pending:
			leave = r.Terminal
		}
		if enter <= t && t < leave {
			count++
		}
	}
	return count
}
