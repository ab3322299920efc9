package uncertainty

import "aisimulate/simcore/report"

// Object builds prediction.json's `intervals` object from a summary and the bands that
// apply: for every report.IntervalKeys metric {n, p10, p90} = the band's count and
// Band.Interval of the summary value (mean ITL uses the TPOT band: both are the decode gap),
// plus the source (report.IntervalSourceDefault or report.IntervalSourceCalibration) and
// the group the bands describe. It is the one builder of that object.
func Object(summary map[string]any, b Bands, source, group string) map[string]any {
	o := map[string]any{report.KeyIntervalSource: source, report.KeyIntervalGroup: group}
	bands := []Band{b.TTFT, b.TPOT, b.TPOT, b.E2E, b.OutputThroughput} // in report.IntervalKeys order
	for i, key := range report.IntervalKeys {
		v, _ := summary[key].(float64)
		lo, hi := bands[i].Interval(v)
		o[key] = map[string]any{report.KeyIntervalP10: lo, report.KeyIntervalP90: hi, report.KeyIntervalN: bands[i].N}
	}
	return o
}
