package ui

import (
	"encoding/json"

	"aisimulate/simcore/report"
	"aisimulate/wasm/jsapi/recview"
)

// Intervals are the 80 % intervals of prediction.json's `intervals` object by summary key
// (docs/uncertainty.md): [p10, p90].
type Intervals map[string][2]float64

// ParseIntervals extracts the intervals of prediction.json (the whole file or any JSON text
// with its `intervals` member); none when the prediction has no intervals.
func ParseIntervals(predictionJSON string) Intervals {
	var doc struct {
		Intervals map[string]any `json:"intervals"`
	}
	if json.Unmarshal([]byte(predictionJSON), &doc) != nil || doc.Intervals == nil {
		return nil
	}
	iv := Intervals{}
	for _, key := range report.IntervalKeys {
		if lo, hi, ok := report.IntervalOf(doc.Intervals, key); ok {
			iv[key] = [2]float64{lo, hi}
		}
	}
	return iv
}

// IntervalCell is the ranked table's interval cell of a row: "lo–hi", prefixed "≈ " when the
// rank is within the model's error of rank 1 and followed by CalibratedMark when the band is
// a calibration profile's; "–" without an interval.
func IntervalCell(row recview.Row) string {
	iv := row.Interval
	if iv == nil {
		return "–"
	}
	s := FormatNum(iv[0]) + "–" + FormatNum(iv[1])
	if row.WithinError {
		s = "≈ " + s
	}
	if row.Calibrated {
		s += " " + CalibratedMark
	}
	return s
}

// CalibratedMark follows the interval of a candidate a calibration profile applied to (its
// metrics are calibrated and its band is the profile's, docs/web.md, "Recommend").
const CalibratedMark = "cal"

// BandText is a card's band line: "80 %: lo–hi" in the cards' number format.
func BandText(band [2]float64) string {
	return "80 %: " + FormatNum(band[0]) + "–" + FormatNum(band[1])
}
