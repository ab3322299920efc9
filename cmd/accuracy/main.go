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
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
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
	isChild := flag.Bool("child", false, "internal: simulate the configuration on stdin")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: accuracy [-surrogate] [-timeout D] [-match S] [-v] MEASURED.csv")
		flag.PrintDefaults()
	}
	flag.Parse()
	if *isChild {
		child()
		return
	}
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

// simulate runs one configuration through simcore.Predict in a child process (this binary
// with -child), so a run that exceeds the time limit or grows past the memory limit is
// killed without harming the rest of the replay.
func simulate(cfg string, limit time.Duration) (ttft, tpot float64, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-child")
	cmd.Stdin = strings.NewReader(cfg)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	if ctx.Err() != nil {
		return 0, 0, fmt.Errorf("simulation exceeded %v", limit)
	}
	if runErr != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = runErr.Error()
		}
		return 0, 0, errors.New(msg)
	}
	if _, err := fmt.Sscan(out.String(), &ttft, &tpot); err != nil {
		return 0, 0, fmt.Errorf("child output %q: %v", out.String(), err)
	}
	return ttft, tpot, nil
}

// child reads one configuration on stdin, predicts it and prints "meanTTFT meanTPOT". It
// exits with status 3 when the heap passes childMemLimit.
func child() {
	go func() {
		var ms runtime.MemStats
		for {
			time.Sleep(200 * time.Millisecond)
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > childMemLimit {
				fmt.Fprintf(os.Stderr, "simulation exceeded the %d MiB memory limit\n", childMemLimit>>20)
				os.Exit(3)
			}
		}
	}()
	cfg, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out, err := simcore.Predict(simcore.Input{ConfigName: "accuracy.yaml", ConfigYAML: cfg})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	a, ok1 := out.Summary["mean_ttft_ms"].(float64)
	b, ok2 := out.Summary["mean_tpot_ms"].(float64)
	switch {
	case !ok1 || !ok2:
		fmt.Fprintln(os.Stderr, "summary lacks mean_ttft_ms/mean_tpot_ms")
		os.Exit(1)
	case a <= 0:
		fmt.Fprintln(os.Stderr, "simulation completed no requests")
		os.Exit(1)
	}
	fmt.Println(a, b)
}

// childMemLimit bounds one row's simulation heap.
const childMemLimit = 3 << 30

func groupOf(c *perf.Calibration, r *rows.Row) perf.GroupCoef {
	if g, ok := c.Groups[r.Group()]; ok {
		return g
	}
	return c.Backends[r.Backend]
}
