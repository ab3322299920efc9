package ui

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"

	"aisimulate/simcore/measure"
	"aisimulate/simcore/report"
	"aisimulate/wasm/jsapi/recview"
)

// Profile is a calibration profile the page applies in both views (docs/calibration.md): its name
// (as prediction.json's calibration section names it) and its bytes.
type Profile struct {
	Name string
	Data []byte
}

// IsProfile reports whether an uploaded file is a calibration profile (a JSON object with
// `schema_version` and `entries`), as opposed to a benchmark result to calibrate on. The
// core validates it; this only decides which of the two the file is meant as.
func IsProfile(data []byte) bool {
	var doc map[string]json.RawMessage
	if json.Unmarshal(bytes.TrimSpace(data), &doc) != nil {
		return false
	}
	_, v := doc["schema_version"]
	_, e := doc["entries"]
	return v && e
}

// LengthsPlaceholder is the hint in the calibration control's length-draw field: a draw as
// calibrate's --lengths takes it (docs/calibration.md, "Length draws").
const LengthsPlaceholder = "{distribution: uniform, min_ratio: 0.8}"

// LengthsTitle is the tooltip of the length-draw field.
const LengthsTitle = "How the benchmark client drew each request's lengths, for files that do not record it (vllm bench serve, " +
	"measured-runs CSV): calibrate --lengths (docs/calibration.md, \"Length draws\"). Empty: constant lengths."

// RecommendFitHint follows the error of an in-page fit in the Recommend view (which fits
// without a configuration) when the error is that a file records no deployment.
const RecommendFitHint = "In the Recommend view benchmark files are fitted without a deployment; calibrate this file in the Predict view, " +
	"with the configuration of the deployment it measured: the profile then applies here too."

// FitErrorText is an in-page fit's error as the page shows it: the core's message (message)
// and, for a fit without a configuration (the Recommend view) whose error is that the file
// records no deployment (msg, the message without its file), RecommendFitHint. Any other
// error (a bad length draw, a file whose draw contradicts the length field, a bad row) is
// not about the missing deployment and gets no hint.
func FitErrorText(message, msg string, withoutConfig bool) string {
	if withoutConfig && msg == measure.NoDeploymentMsg {
		return message + " " + RecommendFitHint
	}
	return message
}

// Calibrated is what a calibrated prediction adds for the Predict view: the default model's
// summary (prediction.json's `uncalibrated`), the warnings of its calibration section and
// whether the intervals are the profile's.
type Calibrated struct {
	Uncalibrated Summary
	Warnings     []string
	// ProfileBands is true when `intervals` come from the profile's residuals.
	ProfileBands bool
}

// ParseCalibrated reads the calibrated parts of prediction.json (the whole file or any JSON
// text with its `uncalibrated`, `calibration` and `intervals` members); nil when the
// prediction is not calibrated.
func ParseCalibrated(predictionJSON string) *Calibrated {
	var doc struct {
		Uncalibrated map[string]any `json:"uncalibrated"`
		Calibration  struct {
			Warnings []string `json:"warnings"`
		} `json:"calibration"`
		Intervals map[string]any `json:"intervals"`
	}
	if json.Unmarshal([]byte(predictionJSON), &doc) != nil || doc.Uncalibrated == nil {
		return nil
	}
	c := &Calibrated{Uncalibrated: Summary{}, Warnings: doc.Calibration.Warnings,
		ProfileBands: doc.Intervals[report.KeyIntervalSource] == report.IntervalSourceCalibration}
	for k, v := range doc.Uncalibrated {
		if f, ok := v.(float64); ok {
			c.Uncalibrated[k] = f
		}
	}
	return c
}

// UncalibratedText is a card's line beside a calibrated value: the default model's value in
// the card's unit (scale converts it as the card's value was converted).
func UncalibratedText(v, scale float64) string {
	return "uncalibrated " + FormatNum(v*scale)
}

// shortHash is the first 12 hex digits of a SHA-256, enough to tell profiles apart on screen
// (the whole hash is in recommendation.json and in the line's tooltip).
func shortHash(sha string) string {
	if len(sha) > 12 {
		return sha[:12] + "…"
	}
	return sha
}

// RecommendCalibrationText is the Recommend view's line about a calibrated recommendation
// (recommendation.json's provenance.calibration, docs/recommend.md, "Calibration"): the
// profiles by name and hash, how many of the simulated candidates a profile applied to, and
// what happened to the others; "" when the recommendation is not calibrated.
func RecommendCalibrationText(c *recview.Calibration, simulated int) string {
	if c == nil {
		return ""
	}
	names := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		names[i] = p.File + " (sha256 " + shortHash(p.SHA256) + ")"
	}
	s := "Calibrated with " + strings.Join(names, ", ") + ": " + strconv.Itoa(c.CalibratedCandidates) + " of " +
		countText(simulated, "simulated candidate") + " predicted with a profile, their metrics calibrated and their 80 % intervals the profile's (marked \"" +
		CalibratedMark + "\" in the table)"
	if c.Strict {
		return s + "; strict: a candidate no profile covers is unsupported."
	}
	return s + "; the others (another model, GPU, backend or mode) on the default model."
}
