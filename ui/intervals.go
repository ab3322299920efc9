package ui

import (
	"encoding/json"

	"aisimulate/simcore/report"
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

// IntervalCell is the ranked table's interval cell: "lo–hi", prefixed "≈ " when the rank is
// within the model's error of rank 1, "–" without an interval.
func IntervalCell(iv *[2]float64, within bool) string {
	if iv == nil {
		return "–"
	}
	s := FormatNum(iv[0]) + "–" + FormatNum(iv[1])
	if within {
		s = "≈ " + s
	}
	return s
}

// BandText is a card's band line: "80 %: lo–hi" in the cards' number format.
func BandText(band [2]float64) string {
	return "80 %: " + BandRange(&band)
}

// BandRange is a band as "lo–hi" in the cards' number format ("" for none): the ranked
// table's line under a metric.
func BandRange(band *[2]float64) string {
	if band == nil {
		return ""
	}
	return FormatNum(band[0]) + "–" + FormatNum(band[1])
}

// CalibratedMark is the last part of the deployment summary of a ranked candidate that a
// calibration profile applied to (docs/web.md, "Recommend").
const CalibratedMark = "calibrated"
