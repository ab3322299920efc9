// Package baseline holds the accuracy figures of the previous timing model (docs/timing.md
// "Before and after"): per slice of the measured rows the number of priced rows, TTFT and
// TPOT MAPE and median APE, the coverage and the error budget, for the leave-one-campaign-out
// cross-validation (`calibrate -logo`) and the simulator replay (tools/accuracy). Both tools
// print each slice as "before → after" against it, and `-write-baseline FILE` records a run
// as the next model change's "before". Only aggregate figures are stored, no measured value.
package baseline

import (
	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/rows"
)

// AllRows is the name of the slice of every priced row.
const AllRows = "all rows"

// Names lists the slices a run is reported on, in print order: every row, the accuracy
// slices of rows.Slices, each backend, and each backend and mode.
func Names() []string {
	out := append([]string{AllRows}, rows.Slices[:]...)
	out = append(out, perf.Backends...)
	for _, b := range perf.Backends {
		out = append(out, b+"/agg", b+"/disagg")
	}
	return out
}

// Slice is one slice's figures, in percent. A nil figure was not recorded (a baseline
// transcribed from a report that did not give it).
type Slice struct {
	Name       string   `json:"name"`
	Rows       int      `json:"rows"` // priced rows
	TTFT       *float64 `json:"ttft_mape,omitempty"`
	TTFTMedian *float64 `json:"ttft_median_ape,omitempty"`
	TPOT       *float64 `json:"tpot_mape,omitempty"`
	TPOTMedian *float64 `json:"tpot_median_ape,omitempty"`
}

// Scored is one priced row and its predicted mean TTFT and TPOT.
type Scored struct {
	Row        *rows.Row
	TTFT, TPOT float64
}

// Measure computes the figures of every slice of Names that has a priced row in res, and
// the coverage: len(res) priced of total rows.
func Measure(res []Scored, total int) Section {
	apes := map[string]*rows.APEs{}
	for _, s := range res {
		r := s.Row
		for _, k := range []string{AllRows, r.Slice(), r.Backend, r.Backend + "/" + r.Mode} {
			if apes[k] == nil {
				apes[k] = &rows.APEs{}
			}
			apes[k].Add(r, s.TTFT, s.TPOT)
		}
	}
	sec := Section{Priced: len(res), Total: total}
	for _, k := range Names() {
		a := apes[k]
		if a == nil {
			continue
		}
		sec.Slices = append(sec.Slices, Slice{Name: k, Rows: len(a.TTFT),
			TTFT: pct(rows.Mean(a.TTFT)), TTFTMedian: pct(rows.Median(a.TTFT)),
			TPOT: pct(rows.Mean(a.TPOT)), TPOTMedian: pct(rows.Median(a.TPOT))})
	}
	return sec
}

// pct is the fraction v in percent.
func pct(v float64) *float64 {
	p := 100 * v
	return &p
}
