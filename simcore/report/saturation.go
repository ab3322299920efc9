package report

import (
	"strconv"
	"strings"
)

// KeySaturation is the top-level key of the saturation section of prediction.json
// (docs/semantics/outputs.md §3.4): whether the deployment kept up with the load it was offered.
const KeySaturation = "saturation"

// The keys of the saturation section (docs/semantics/outputs.md §3.4).
const (
	SatOfferedRPS            = "offered_request_rate_rps"
	SatServedRPS             = "served_request_rate_rps"
	SatFirstReleaseMs        = "first_release_ms"
	SatLastReleaseMs         = "last_release_ms"
	SatQueueGrowthRPS        = "queue_growth_rps"
	SatPrefillQueueGrowthRPS = "prefill_queue_growth_rps"
	SatDecodeQueueGrowthRPS  = "decode_queue_growth_rps"
	SatWaitingAtLastRelease  = "waiting_at_last_release"
	SatQueueTrend            = "queue_trend"
	SatBottleneck            = "bottleneck"
)

// The values of queue_trend (docs/semantics/outputs.md §3.4).
const (
	TrendGrowing  = "growing"
	TrendSteady   = "steady"
	TrendDraining = "draining"
)

// SaturationSentence is the saturation section in one plain sentence, as the terminal tables,
// the browser app and the docs embed show it (docs/semantics/outputs.md §3.4), for example
// "Overloaded: offered 20 req/s, served 5.73 req/s; the queue was still growing at the last
// arrival (1,425 waiting)." It is "" without a section.
func SaturationSentence(sat map[string]any) string {
	if sat == nil {
		return ""
	}
	served := "served " + rateText(sat[SatServedRPS]) + " req/s"
	offered, ok := Number(sat[SatOfferedRPS])
	trend, _ := sat[SatQueueTrend].(string)
	if !ok || trend == "" {
		return "All requests arrived at one instant, so there is no offered rate; " + served + "."
	}
	waiting := "(" + FormatCount(mustFloat(sat[SatWaitingAtLastRelease])) + " waiting)"
	rates := "offered " + rateText(offered) + " req/s, " + served
	var s string
	switch trend {
	case TrendGrowing:
		s = "Overloaded: " + rates + "; the queue was still growing at the last arrival " + waiting + "."
	case TrendDraining:
		s = "Keeping up: " + rates + "; the queue was draining at the last arrival " + waiting + "."
	default:
		s = "Keeping up: " + rates + "; the queue was steady at the last arrival " + waiting + "."
	}
	if role, _ := sat[SatBottleneck].(string); role != "" {
		s += " Bottleneck: " + role + "."
	}
	return s
}

// rateText writes a rate with three significant digits at most (two decimals below 10, one
// below 100, none above), without trailing zeros, thousands grouped: 20 → "20", 5.7312 →
// "5.73", 1234.5 → "1,234".
func rateText(v any) string {
	f, ok := Number(v)
	if !ok {
		return "N/A"
	}
	decimals := 0
	switch a := max(f, -f); {
	case a < 10:
		decimals = 2
	case a < 100:
		decimals = 1
	}
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if decimals > 0 {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return groupThousands(s)
}
