// Command accuracy replays every row of a measured-runs CSV through the default timing model
// and prints the MAPE of mean TTFT and mean TPOT per hardware/backend/mode, overall, on the
// fitted and on the held-out curves, and the coverage.
//
//	go run ./cmd/accuracy /work/shared/calibration/measured.csv
package main

import (
	"fmt"
	"os"

	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/rows"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: accuracy MEASURED.csv")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
	rs, err := rows.Read(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
	c := perf.DefaultCalibration()
	prep := rows.Prepare(rs, c)
	preds := make([]rows.Prediction, len(prep))
	for i := range prep {
		p := &prep[i]
		preds[i] = rows.Prediction{Row: p.Row, Err: p.Err}
		if p.Err != nil {
			continue
		}
		f, ok := c.Families[p.Family()]
		if !ok {
			f = perf.FamilyCoef{Prefill: 1, Decode: 1}
		}
		preds[i].TTFT, preds[i].TPOT = p.Predict(groupOf(c, p.Row), f)
	}
	rows.WriteReport(os.Stdout, preds)
}

func groupOf(c *perf.Calibration, r *rows.Row) perf.GroupCoef {
	if g, ok := c.Groups[r.Group()]; ok {
		return g
	}
	return c.Backends[r.Backend]
}
