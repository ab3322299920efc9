package report

import "strings"

// intervalLabels name the IntervalKeys metrics in the readable table and their units.
var intervalLabels = map[string][2]string{
	TTFT.Key(Mean):          {"TTFT", "ms"},
	TPOT.Key(Mean):          {"TPOT", "ms"},
	ITL.Key(Mean):           {"ITL", "ms"},
	E2ELatency.Key(Mean):    {"E2E", "ms"},
	KeyOutputThroughputTokS: {"output", "tokens/s"},
}

// IntervalRange is "lo–hi" of a metric's interval in the readable tables' number format,
// and false when the intervals object has none for the key.
func IntervalRange(intervals map[string]any, key string) (string, bool) {
	lo, hi, ok := IntervalOf(intervals, key)
	if !ok {
		return "", false
	}
	return FormatNumber(lo) + "–" + FormatNumber(hi), true
}

// IntervalText is the readable table's text about an intervals object, a comma list the
// table wraps: where the bands come from and the interval of each mean except ITL (whose
// band is TPOT's).
func IntervalText(intervals map[string]any) string {
	src := "from the default model's held-out error"
	if intervals[KeyIntervalSource] == IntervalSourceCalibration {
		src = "from the calibration profile's residuals"
	}
	if g, ok := intervals[KeyIntervalGroup].(string); ok && g != "" {
		src += " (" + g + ")"
	}
	parts := []string{"80 % intervals of the means", src}
	for _, key := range IntervalKeys {
		if key == ITL.Key(Mean) {
			continue
		}
		if r, ok := IntervalRange(intervals, key); ok {
			l := intervalLabels[key]
			parts = append(parts, l[0]+" "+r+" "+l[1])
		}
	}
	return strings.Join(parts, ", ")
}

// UncalibratedText is the readable table's text about a calibrated prediction's
// uncalibrated summary: the default model's means of the interval metrics (except ITL), so
// the calibrated statistics below can be read against them.
func UncalibratedText(uncalibrated map[string]any) string {
	parts := []string{"uncalibrated, the default model without the profile"}
	for _, key := range IntervalKeys {
		if v, ok := Number(uncalibrated[key]); ok && key != ITL.Key(Mean) {
			l := intervalLabels[key]
			parts = append(parts, l[0]+" "+FormatNumber(v)+" "+l[1])
		}
	}
	return strings.Join(parts, ", ")
}
