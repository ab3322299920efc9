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

// ShownCard is a card as the browser app and the docs embed show it: its value and 80 %
// band in the unit shown (Scaled).
type ShownCard struct {
	Label string  `json:"label"`
	Key   string  `json:"key"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
	// Band is the 80 % interval [p10, p90] in the unit shown, nil without one.
	Band *[2]float64 `json:"band"`
}

// Show is the card showing v and its band (nil for none), both scaled as Scaled scales v.
func (c Card) Show(v float64, band *[2]float64) ShownCard {
	shown, unit := c.Scaled(v)
	s := ShownCard{Label: c.Label, Key: c.Key, Value: shown, Unit: unit}
	if band != nil {
		f := 1.0
		if v != 0 {
			f = shown / v
		}
		s.Band = &[2]float64{band[0] * f, band[1] * f}
	}
	return s
}
