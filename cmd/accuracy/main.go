// Command accuracy replays every row of a measured-runs CSV (calibration/measured.csv
// format) through the simulator with the default timing and capacity models and prints the
// MAPE of mean TTFT and mean TPOT per hardware/backend/mode, overall, on the fitted and on
// the held-out curves (tools/calibrate/rows.HeldOut), and the coverage; rows the simulator
// cannot price are listed.
//
//	go run ./cmd/accuracy [-surrogate] [-timeout 60s] [-match SUBSTR] MEASURED.csv
//
// Each row becomes a prediction configuration (rows.ConfigYAML: synthetic ISL/OSL at the
// row's concurrency, 10 requests per slot, prefix caching off, max_sequences ≥ concurrency,
// the row's parallelism and quantisation, disaggregated rows with prefill/decode pools) run
// through simcore.Predict. -surrogate uses the fast steady-state replay the calibration
// fits on instead.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/rows"
)

func main() {
	surrogate := flag.Bool("surrogate", false, "use the calibration surrogate instead of the simulator")
	timeout := flag.Duration("timeout", 60*time.Second, "wall-time limit per row (simulator); a row over it is not priced")
	match := flag.String("match", "", "only rows whose id contains this substring")
	verbose := flag.Bool("v", false, "print every row's prediction")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: accuracy [-surrogate] [-timeout D] [-match S] [-v] MEASURED.csv")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
	all, err := rows.Read(f)
	f.Close()
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
	var rs []rows.Row
	for _, r := range all {
		if strings.Contains(r.ID, *match) {
			rs = append(rs, r)
		}
	}
	c := perf.DefaultCalibration()
	preds := make([]rows.Prediction, len(rs))
	if *surrogate {
		prep := rows.Prepare(rs, c)
		for i := range prep {
			p := &prep[i]
			preds[i] = rows.Prediction{Row: p.Row, Err: p.Err}
			if p.Err != nil {
				continue
			}
			fam, ok := c.Families[p.Family()]
			if !ok {
				fam = perf.FamilyCoef{Prefill: 1, Decode: 1}
			}
			preds[i].TTFT, preds[i].TPOT = p.Predict(groupOf(c, p.Row), fam)
		}
	} else {
		for i := range rs {
			r := &rs[i]
			preds[i] = rows.Prediction{Row: r}
			if !r.InScope() {
				continue
			}
			t, err := rows.Build(r, c)
			if err != nil {
				preds[i].Err = err
				continue
			}
			preds[i].TTFT, preds[i].TPOT, preds[i].Err = simulate(rows.ConfigYAML(r, t), *timeout)
			if *verbose {
				fmt.Fprintf(os.Stderr, "%s: ttft %.1f/%.1f tpot %.2f/%.2f %v\n", r.ID, preds[i].TTFT, r.TTFT, preds[i].TPOT, r.TPOT, preds[i].Err)
			}
		}
	}
	rows.WriteReport(os.Stdout, preds)
}

type timeUp struct{}

// simulate runs one configuration through simcore.Predict and returns mean TTFT and TPOT.
// A run over the limit is abandoned: cancelled from the progress callback, or left behind
// (its goroutine ends with the process) when the simulator stops reporting progress.
func simulate(cfg string, limit time.Duration) (ttft, tpot float64, err error) {
	type result struct {
		ttft, tpot float64
		err        error
	}
	done := make(chan result, 1)
	deadline := time.Now().Add(limit)
	go func() {
		var res result
		defer func() {
			if v := recover(); v != nil {
				if _, ok := v.(timeUp); ok {
					res.err = fmt.Errorf("simulation exceeded %v", limit)
				} else {
					res.err = fmt.Errorf("simulator panic: %v", v)
				}
			}
			done <- res
		}()
		out, err := simcore.Predict(simcore.Input{
			ConfigName: "accuracy.yaml",
			ConfigYAML: []byte(cfg),
			Progress: func(float64) {
				if time.Now().After(deadline) {
					panic(timeUp{})
				}
			},
		})
		if err != nil {
			res.err = err
			return
		}
		a, ok1 := out.Summary["mean_ttft_ms"].(float64)
		b, ok2 := out.Summary["mean_tpot_ms"].(float64)
		n, _ := out.Summary["num_tpot_samples"].(int)
		switch {
		case !ok1 || !ok2:
			res.err = fmt.Errorf("summary lacks mean_ttft_ms/mean_tpot_ms")
		case a <= 0 || (n == 0 && b <= 0):
			res.err = fmt.Errorf("simulation completed no requests")
		default:
			res.ttft, res.tpot = a, b
		}
	}()
	select {
	case r := <-done:
		return r.ttft, r.tpot, r.err
	case <-time.After(limit + 5*time.Second):
		return 0, 0, fmt.Errorf("simulation made no progress for %v (abandoned)", limit)
	}
}

func groupOf(c *perf.Calibration, r *rows.Row) perf.GroupCoef {
	if g, ok := c.Groups[r.Group()]; ok {
		return g
	}
	return c.Backends[r.Backend]
}
