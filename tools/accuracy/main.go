// Command accuracy replays every row of a measured-runs CSV (calibration/measured.csv
// format) through the simulator with the default timing and capacity models and prints the
// MAPE of mean TTFT and mean TPOT per hardware/backend/mode, overall, on the fitted and on
// the held-out curves (tools/calibrate/rows.HeldOut), and the coverage; rows the simulator
// cannot price are listed.
//
//	go run ./tools/accuracy [-surrogate] [-timeout 60s] [-match SUBSTR[,SUBSTR…]] [-v] MEASURED.csv
//
// A simulator run over every row also prints each slice "before → after" against the
// committed baseline of the previous timing model (tools/calibrate/baseline, docs/timing.md
// "Before and after"); -write-baseline FILE -baseline-model NAME records the run as the next
// "before".
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
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/baseline"
	"aisimulate/tools/calibrate/rows"
)

func main() {
	surrogate := flag.Bool("surrogate", false, "use the calibration surrogate instead of the simulator")
	timeout := flag.Duration("timeout", 60*time.Second, "wall-time limit per row (simulator); a row over it is not priced")
	match := flag.String("match", "", "only rows whose id contains this substring (several, separated by commas: any of them)")
	verbose := flag.Bool("v", false, "print every row's prediction")
	spread := flag.Float64("spread", rows.Spread, "request lengths uniform in [spread·L, L] (1 = constant lengths)")
	calFile := flag.String("calibration", "", "with -surrogate: use this calibration file instead of the embedded one")
	printCfg := flag.Bool("print-config", false, "print the prediction configuration of every matched row instead of replaying it")
	dump := flag.String("rows", "", "also write every priced row's prediction as tab-separated values to this file (outside the repository: it holds measured values)")
	isChild := flag.Bool("child", false, "internal: simulate the configuration on stdin")
	baseFlags := baseline.Register(flag.CommandLine)
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: accuracy [-surrogate] [-timeout D] [-match S[,S…]] [-v] MEASURED.csv")
		flag.PrintDefaults()
	}
	flag.Parse()
	rows.Spread = *spread
	if *isChild {
		child()
		return
	}
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	// The baseline holds the simulator's figures over every row: a surrogate or partial run
	// is not compared with it.
	compare := !*surrogate && *match == "" && !*printCfg
	if baseFlags.Given() && !compare {
		fmt.Fprintln(os.Stderr, "accuracy: -baseline, -write-baseline and -baseline-model compare a simulator run over every row: drop -surrogate, -match and -print-config")
		os.Exit(2)
	}
	base, err := baseFlags.Load()
	if err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
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
		if matches(r.ID, *match) {
			rs = append(rs, r)
		}
	}
	c := perf.DefaultCalibration()
	if *printCfg {
		for i := range rs {
			t, err := rows.Build(&rs[i], c)
			if err != nil {
				fmt.Printf("# %s: %v\n", rs[i].ID, err)
				continue
			}
			fmt.Printf("# %s\n%s---\n", rs[i].ID, rows.ConfigYAML(&rs[i], t))
		}
		return
	}
	if *calFile != "" {
		if !*surrogate {
			fmt.Fprintln(os.Stderr, "accuracy: -calibration needs -surrogate (the simulator uses the embedded calibration)")
			os.Exit(2)
		}
		b, err := os.ReadFile(*calFile)
		if err == nil {
			c = &perf.Calibration{}
			err = json.Unmarshal(b, c)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "accuracy:", err)
			os.Exit(1)
		}
	}
	preds := make([]rows.Prediction, len(rs))
	if *surrogate {
		prep := rows.Prepare(rs, c)
		for i := range prep {
			p := &prep[i]
			preds[i] = rows.Prediction{Row: p.Row, Err: p.Err}
			if p.Err != nil {
				continue
			}
			g, _ := c.Group(p.Row.Backend, p.Family())
			preds[i].TTFT, preds[i].TPOT = p.Predict(g, c.Family(p.Family()), c.HandoffMs[p.Row.Backend])
		}
	} else {
		for i := range rs {
			r := &rs[i]
			preds[i] = rows.Prediction{Row: r}
			t, err := rows.Build(r, c)
			if err != nil {
				preds[i].Err = err
				continue
			}
			var use usage
			preds[i].TTFT, preds[i].TPOT, use, preds[i].Err = simulate(rows.ConfigYAML(r, t), *timeout)
			if *verbose {
				fmt.Fprintf(os.Stderr, "%s: ttft %.1f/%.1f tpot %.2f/%.2f %v (%.1f s CPU, peak RSS %d MiB)\n", r.ID, preds[i].TTFT, r.TTFT, preds[i].TPOT, r.TPOT, preds[i].Err, use.cpu.Seconds(), use.maxRSS>>20)
			}
		}
	}
	rows.WriteReport(os.Stdout, preds)
	if compare {
		var scored []baseline.Scored
		for _, p := range preds {
			if p.Err == nil {
				scored = append(scored, baseline.Scored{Row: p.Row, TTFT: p.TTFT, TPOT: p.TPOT})
			}
		}
		after := baseline.Measure(scored, len(preds))
		baseline.WriteComparison(os.Stdout, "simulator replay", &base.Simulator, &after)
		if err := baseFlags.Record(base, baseline.SimulatorSection, after); err != nil {
			fmt.Fprintln(os.Stderr, "accuracy:", err)
			os.Exit(1)
		}
	}
	if *dump != "" {
		if err := writeRows(*dump, preds, c); err != nil {
			fmt.Fprintln(os.Stderr, "accuracy:", err)
			os.Exit(1)
		}
	}
}

// writeRows writes one line per priced row: identity, deployment and the predicted and
// measured means, for error analysis.
func writeRows(path string, preds []rows.Prediction, c *perf.Calibration) error {
	var b strings.Builder
	b.WriteString("id\tcurve\theld\tgroup\tmode\tmodel\tfamily\tconc\tisl\tosl\tgemm\ttp\tdp\tep\tpred_ttft\tmeas_ttft\tpred_tpot\tmeas_tpot\n")
	for _, p := range preds {
		r := p.Row
		if p.Err != nil || p.TTFT <= 0 {
			continue
		}
		fam, tp, dp, ep := "", 0, 0, 0
		if t, err := rows.Build(r, c); err == nil {
			fam = perf.FamilyOf(t.Model)
			par := t.AggPar
			if r.Mode == "disagg" {
				par = t.DecodePar
			}
			tp, dp, ep = par.Tensor, par.AttentionData, par.MoeExpert
		}
		fmt.Fprintf(&b, "%s\t%s\t%v\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t%d\t%.4g\t%.4g\t%.4g\t%.4g\n",
			r.ID, r.CurveID, r.HeldOut(), r.Group(), r.Mode, r.Model, fam, r.Concurrency, r.ISL, r.OSL, r.GemmQuant,
			tp, dp, ep, p.TTFT, r.TTFT, p.TPOT, r.TPOT)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// matches reports whether id contains one of the comma-separated substrings of match (an
// empty match matches every id).
func matches(id, match string) bool {
	for _, s := range strings.Split(match, ",") {
		if strings.Contains(id, s) {
			return true
		}
	}
	return false
}

// usage is what one row's child process used: CPU time (user and system) and its peak
// resident memory, for -v.
type usage struct {
	cpu    time.Duration
	maxRSS int64
}

// simulate runs one configuration through simcore.Predict in a child process (this binary
// with -child), so a run that exceeds the time limit or grows past the memory limit is
// killed without harming the rest of the replay.
func simulate(cfg string, limit time.Duration) (ttft, tpot float64, use usage, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	self, err := os.Executable()
	if err != nil {
		return 0, 0, use, err
	}
	cmd := exec.CommandContext(ctx, self, "-child")
	cmd.Stdin = strings.NewReader(cfg)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	runErr := cmd.Run()
	if st := cmd.ProcessState; st != nil {
		use.cpu = st.UserTime() + st.SystemTime()
		if ru, ok := st.SysUsage().(*syscall.Rusage); ok {
			use.maxRSS = int64(ru.Maxrss) << 10 // kilobytes on Linux
		}
	}
	if ctx.Err() != nil {
		return 0, 0, use, fmt.Errorf("simulation exceeded %v", limit)
	}
	if runErr != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = runErr.Error()
		}
		return 0, 0, use, errors.New(msg)
	}
	if _, err := fmt.Sscan(out.String(), &ttft, &tpot); err != nil {
		return 0, 0, use, fmt.Errorf("child output %q: %v", out.String(), err)
	}
	return ttft, tpot, use, nil
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
	in := simcore.Input{ConfigName: "accuracy.yaml", ConfigYAML: cfg}
	out, err := simcore.Predict(in)
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
