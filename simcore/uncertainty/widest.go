package uncertainty

// Widest is the band covering both a and b: the lower P10, the higher P90, and the fewer
// residuals (the weaker evidence of the two). A prediction whose metric is timed by several
// roles, each calibrated by its own profile entry, takes the widest of their bands
// (docs/calibration.md, "Calibrated intervals").
func (a Band) Widest(b Band) Band {
	return Band{P10: min(a.P10, b.P10), P90: max(a.P90, b.P90), N: min(a.N, b.N)}
}

// Widest is Band.Widest metric by metric.
func (a Bands) Widest(b Bands) Bands {
	return Bands{TTFT: a.TTFT.Widest(b.TTFT), TPOT: a.TPOT.Widest(b.TPOT), E2E: a.E2E.Widest(b.E2E),
		OutputThroughput: a.OutputThroughput.Widest(b.OutputThroughput)}
}
