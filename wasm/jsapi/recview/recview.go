// Package recview is the shape of what the browser's Recommend view draws of a finished
// recommendation (the core module encodes it, the UI module decodes it): the ranked rows and
// one chart point per simulated candidate. It depends on simcore/report only (for summary
// keys), which the UI module links anyway.
package recview

import "aisimulate/simcore/report"

// View is what the Recommend view shows of a result: the ranked rows and one chart point per
// simulated candidate.
type View struct {
	// Target is optimization.target; Objectives its objective names.
	Target     string   `json:"target"`
	Objectives []string `json:"objectives"`
	// XKey and YKey name the chart's axes: the objectives throughput_per_gpu and
	// throughput_per_user of recommend's Pareto view.
	XKey string `json:"x_key"`
	YKey string `json:"y_key"`
	// Rows are the ranked recommendations (top 10, or the Pareto front).
	Rows []Row `json:"rows"`
	// WithinError is the sentence saying which ranks are within the model's error of rank 1
	// (recommend.WithinErrorText), "" when none is.
	WithinError string `json:"within_error"`
	// Points are the simulated candidates in candidate order.
	Points []Point `json:"points"`
	// Calibration is recommendation.json's provenance.calibration, nil when no profile was
	// given (docs/recommend.md, "Calibration").
	Calibration *Calibration `json:"calibration"`
}

// Calibration is the calibration a recommendation ran with, spelled as recommendation.json's
// provenance.calibration (so it decodes from there): the profiles by name and SHA-256, whether
// candidates outside them were refused (--strict-calibration), and how many simulated
// candidates a profile applied to.
type Calibration struct {
	Profiles             []ProfileRef `json:"profiles"`
	Strict               bool         `json:"strict"`
	CalibratedCandidates int          `json:"calibrated_candidates"`
}

// ProfileRef names one profile: its file name as given and the SHA-256 of its bytes.
type ProfileRef struct {
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
}

// Row is one ranked recommendation.
type Row struct {
	Rank        int                 `json:"rank"`
	CandidateID string              `json:"candidate_id"`
	Score       *float64            `json:"score"`
	Objectives  map[string]*float64 `json:"objectives"`
	// Interval is the 80 % interval [p10, p90] of the first objective (nil without one) and
	// WithinError whether it overlaps rank 1's (docs/uncertainty.md, "Recommend").
	Interval    *[2]float64 `json:"interval"`
	WithinError bool        `json:"within_model_error"`
	// Calibrated is true when a profile applied to the candidate: its metrics are calibrated
	// and Interval is the profile's band (intervals.source "calibration").
	Calibrated bool `json:"calibrated"`
	UsedGPUs   int  `json:"used_gpus"`
	// Metrics are the RowMetrics of the candidate's summary; Bands the 80 % intervals
	// [p10, p90] of those that have one (prediction.json's `intervals`, the profile's bands
	// when Calibrated, docs/uncertainty.md).
	Metrics map[string]*float64    `json:"metrics"`
	Bands   map[string]*[2]float64 `json:"bands"`
	// File is recommendations/NNNN.yaml; Config its text.
	File    string `json:"file"`
	Config  string `json:"config"`
	Summary string `json:"summary"`
	// CostPerHour and CostPerMTok are the candidate's USD per hour and per million output
	// tokens at optimization.gpu_hour_cost (absent without prices).
	CostPerHour *float64 `json:"cost_per_hour,omitempty"`
	CostPerMTok *float64 `json:"cost_per_mtok,omitempty"`
}

// Point is one simulated candidate on the chart.
type Point struct {
	CandidateID string   `json:"candidate_id"`
	Status      string   `json:"status"`
	Feasible    bool     `json:"feasible"`
	X           *float64 `json:"x"`
	Y           *float64 `json:"y"`
	UsedGPUs    int      `json:"used_gpus"`
	Score       *float64 `json:"score"`
	// Rank is the candidate's row rank, 0 when it is not a row.
	Rank int `json:"rank"`
	// Config is the concrete configuration (what predict runs), Summary its one-line summary.
	Config  string `json:"config"`
	Summary string `json:"summary"`
}

// RowMetrics are the summary metrics the ranked table shows besides score and GPUs: summary
// key and column heading.
var RowMetrics = []struct{ Key, Heading string }{
	{report.KeyGoodputOutputThroughputTokS, "goodput tok/s"},
	{report.KeyOutputThroughputTokS, "output tok/s"},
	{report.TTFT.Key(report.Mean), "TTFT mean ms"},
	{report.TPOT.Key(report.Mean), "TPOT mean ms"},
	{report.OutputTokenThroughputPerUser.Key(report.Mean), "tok/s per user"},
}
