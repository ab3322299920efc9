package report

import "math"

// secondsFromMs is the duration from which a card shows seconds instead of milliseconds, so a
// 22-second run reads "22 s", not "22k ms".
const secondsFromMs = 10000

// Scaled is the value a card shows for v and its unit: a duration of 10 s or more in seconds,
// anything else as it is.
func (c Card) Scaled(v float64) (float64, string) {
	if c.Unit == "ms" && math.Abs(v) >= secondsFromMs {
		return v / 1000, "s"
	}
	return v, c.Unit
}

// ITLNote explains why the mean of the pooled gaps (ITL mean, all gaps) can exceed their p99:
// the mean counts every gap, and a few long stalls (a decode step that waited for a prefill in
// the same pass) pull it up, while the p99 leaves out the longest 1 % of gaps. It is "" when
// the mean does not exceed the p99.
func ITLNote(mean, p99 float64) string {
	if mean <= p99 {
		return ""
	}
	return "The mean is above the p99: fewer than 1 % of the gaps are long stalls (decode steps that waited for a prefill), and the mean counts them."
}
