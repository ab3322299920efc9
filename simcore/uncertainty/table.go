package uncertainty

import (
	_ "embed"
	"encoding/json"
	"sync"
)

// File is bands.json: the bands of the default timing model per group, written by
// `make intervals` (tools/calibrate -intervals) from leave-one-campaign-out residuals. It
// holds quantiles and counts only, never a measured row.
type File struct {
	// Note says where the file comes from.
	Note string `json:"note"`
	// CalibrationSHA256 is the SHA-256 of the simcore/perf/calibration.json the residuals
	// were computed with; a test fails when the embedded calibration no longer matches, so
	// the bands cannot silently describe another model.
	CalibrationSHA256 string `json:"calibration_sha256"`
	// Shrinkage is the k of the shrinkage rule the bands were estimated with.
	Shrinkage float64 `json:"shrinkage_campaigns"`
	// Evaluation is the held-out coverage of the estimator on the same residuals.
	Evaluation Evaluation `json:"evaluation"`
	// Groups maps Group.String() to the group's bands; every backend × mode × regime is present.
	Groups map[string]GroupBands `json:"groups"`
}

// Evaluation is how often the nominal 80 % interval contained a held-out measurement: each
// campaign's residuals scored against bands estimated without that campaign.
type Evaluation struct {
	// Rows and Campaigns are the scored residuals and the campaigns they come from.
	Rows      int `json:"rows"`
	Campaigns int `json:"campaigns"`
	// Coverage is the share of rows inside their interval, per metric.
	Coverage MetricValues `json:"coverage"`
	// CampaignMeanCoverage is the mean over campaigns of each campaign's share.
	CampaignMeanCoverage MetricValues `json:"campaign_mean_coverage"`
}

// MetricValues is one number per metric that gets an interval.
type MetricValues struct {
	TTFT             float64 `json:"ttft"`
	TPOT             float64 `json:"tpot"`
	E2E              float64 `json:"e2e"`
	OutputThroughput float64 `json:"output_throughput"`
}

// GroupBands is one group's entry: the campaigns its own residuals come from and its bands
// after shrinkage (Band.N counts the group's own residuals).
type GroupBands struct {
	Campaigns        int  `json:"campaigns"`
	TTFT             Band `json:"ttft"`
	TPOT             Band `json:"tpot"`
	E2E              Band `json:"e2e"`
	OutputThroughput Band `json:"output_throughput"`
}

// Bands returns the entry's bands.
func (g GroupBands) Bands() Bands {
	return Bands{TTFT: g.TTFT, TPOT: g.TPOT, E2E: g.E2E, OutputThroughput: g.OutputThroughput}
}

//go:embed bands.json
var bandsJSON []byte

// Defaults returns the embedded bands of the default timing model, parsed once; concurrent
// first calls are safe (sync.OnceValue), as predictions run in parallel in native tools.
var Defaults = sync.OnceValue(func() *File {
	var f File
	if err := json.Unmarshal(bandsJSON, &f); err != nil {
		panic("uncertainty: bands.json: " + err.Error())
	}
	return &f
})

// Default returns the default model's bands for a group, and false when bands.json has no
// entry for it (a backend the default model does not price).
func Default(g Group) (Bands, bool) {
	e, ok := Defaults().Groups[g.String()]
	return e.Bands(), ok
}
