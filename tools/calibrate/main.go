// Command calibrate re-derives simcore/perf/calibration.json, the coefficients of the
// default timing model:
//
//  1. op-family efficiency curves (OpCoef) fitted on measured H200 kernel tables
//     (GEMM, context/generation attention, all-reduce), minimising mean |log(pred/meas)|;
//  2. per-backend coefficients (GroupCoef; per model family on a backend where enough rows
//     exist; never per GPU) and per model-family factors (FamilyCoef) fitted alternately on
//     measured serving runs replayed
//     by the surrogate scheduler (tools/calibrate/rows), minimising the capped TTFT APE +
//     1.5 × TPOT APE by an L1 regression (fit.go) on the rows whose curve is not held out
//     (rows.HeldOut) and that the accuracy harness can simulate (TensorRT-LLM disaggregated
//     rows excepted: fit.go trains);
//  3. the per-backend hand-off latency (kv_transfer.handoff_ms: auto), the median residual
//     of disaggregated TTFT at low concurrency with everything else in place (handoff.go).
//
// Only the fitted coefficients are written; no measured value is stored.
//
// -logo prints the leave-one-campaign-out cross-validation and its error budget per slice,
// "before → after" against the committed baseline of the previous timing model
// (tools/calibrate/baseline; -write-baseline records the run as the next one's "before").
//
//	go run ./tools/calibrate -csv <shared>/calibration/measured.csv \
//	    -ops <shared>/calibration/ops/h200_sxm -out simcore/perf/calibration.json
package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/baseline"
	"aisimulate/tools/calibrate/rows"
)

func main() {
	csvPath := flag.String("csv", "", "measured serving runs (required: <shared>/calibration/measured.csv)")
	opsDir := flag.String("ops", "", "measured H200 kernel tables ('' = keep current op coefficients)")
	out := flag.String("out", "simcore/perf/calibration.json", "output file")
	evalOnly := flag.Bool("eval", false, "only report the surrogate's errors under the current calibration")
	cv := flag.Int("cv", 0, "cross-validate the serving-run fit over K folds of the fitted deployments (held-out curves stay out) and write nothing")
	logo := flag.Bool("logo", false, "leave-one-campaign-out cross-validation over all rows (surrogate fit per fold) and write nothing")
	logoRows := flag.String("logo-rows", "", "with -logo: also write every scored row's prediction to this file (outside the repository: it holds measured values)")
	intervals := flag.String("intervals", "", "write the default model's error bands (leave-one-campaign-out residuals, docs/uncertainty.md) to this file, print their held-out coverage, and write nothing else")
	flag.Float64Var(&apeCap, "cap", apeCap, "per-row APE cap of the loss (hyperparameter; the committed file uses the default)")
	flag.IntVar(&minGroupRows, "min-group-rows", minGroupRows, "fewest fitted rows for a model family's coefficients of its own on a backend (0: per backend only)")
	flag.BoolVar(&fitTRTLLMDisagg, "fit-trtllm-disagg", fitTRTLLMDisagg, "fit the group and family coefficients on TensorRT-LLM disaggregated rows too (the committed file does not)")
	flag.Float64Var(&rows.Spread, "spread", rows.Spread, "request lengths uniform in [spread·L, L] as the measurements' client drew them (1 = constant lengths; docs/timing.md)")
	baseFlags := baseline.Register(flag.CommandLine)
	flag.Parse()
	if baseFlags.Given() && !*logo {
		usage(fmt.Errorf("-baseline, -write-baseline and -baseline-model go with -logo"))
	}
	if *csvPath == "" {
		fail(fmt.Errorf("pass -csv <shared>/calibration/measured.csv"))
	}
	c := *perf.DefaultCalibration()
	if *opsDir != "" {
		ops, err := fitOps(*opsDir, c.Ops)
		if err != nil {
			fail(err)
		}
		c.Ops = ops
	}
	f, err := os.Open(*csvPath)
	if err != nil {
		fail(err)
	}
	rs, err := rows.Read(f)
	f.Close()
	if err != nil {
		fail(err)
	}
	prep := rows.Prepare(rs, &c)
	switch {
	case *intervals != "":
		if err := writeIntervals(os.Stdout, *intervals, prep, c); err != nil {
			fail(err)
		}
		return
	case *logo:
		base, err := baseFlags.Load()
		if err != nil {
			usage(err)
		}
		var dump io.Writer
		if *logoRows != "" {
			f, err := os.Create(*logoRows)
			if err != nil {
				fail(err)
			}
			defer f.Close()
			dump = f
		}
		after := writeLOGO(os.Stdout, prep, c, dump, &base.LOGO)
		if err := baseFlags.Record(base, baseline.LOGOSection, after); err != nil {
			fail(err)
		}
		return
	case *cv > 1:
		quiet = true
		var sc cvScore
		for k := 0; k < *cv; k++ {
			cc := c
			fold := k
			sp := split{
				train: func(r *rows.Row) bool { return !r.HeldOut() && cvFoldOf(r, *cv) != fold },
				test:  func(r *rows.Row) bool { return !r.HeldOut() && cvFoldOf(r, *cv) == fold },
			}
			for _, p := range fitGroups(&cc, prep, sp, true) {
				sc.add(&cc, p)
			}
		}
		n := float64(sc.n)
		fmt.Printf("cv %d folds: rows %d  loss %.4f  TTFT MAPE %.1f%%  TPOT MAPE %.1f%%\n", *cv, sc.n, sc.loss/n, 100*sc.ttft/n, 100*sc.tpot/n)
		return
	}
	fitGroups(&c, prep, heldOutSplit, !*evalOnly)
	if *evalOnly {
		return
	}
	roundAll(&c)
	c.Note = "Fitted by tools/calibrate: ops on H200 kernel tables (GEMM, attention, all-reduce); " +
		"families and groups = per model family and per backend coefficients on measured serving runs (held-out curves excluded), shared by every GPU; see docs/timing.md."
	b, err := json.MarshalIndent(&c, "", " ")
	if err != nil {
		fail(err)
	}
	if err := os.WriteFile(*out, append(b, '\n'), 0o644); err != nil {
		fail(err)
	}
}

// cvScore sums a validation fold's absolute percentage errors and capped loss.
type cvScore struct {
	n                int
	ttft, tpot, loss float64
}

func (s *cvScore) add(c *perf.Calibration, p *rows.Prepared) {
	t, q := predict(c, p)
	s.n++
	s.ttft += math.Abs(t/p.Row.TTFT - 1)
	s.tpot += math.Abs(q/p.Row.TPOT - 1)
	s.loss += ttftWeight(p)*capped(t/p.Row.TTFT-1) + tpotWeight*capped(q/p.Row.TPOT-1)
}

// usage reports a wrong combination of options and exits with status 2.
func usage(err error) {
	fmt.Fprintln(os.Stderr, "calibrate:", err)
	os.Exit(2)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "calibrate:", err)
	os.Exit(1)
}

// table reads a CSV into header-indexed records, keeping every stride-th row.
func table(path string, stride int) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	var out []map[string]string
	for i := 0; ; i++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if i%stride != 0 {
			continue
		}
		m := map[string]string{}
		for j, h := range head {
			if j < len(rec) {
				m[h] = rec[j]
			}
		}
		out = append(out, m)
	}
	return out, nil
}

func fnum(m map[string]string, k string) float64 {
	v, _ := strconv.ParseFloat(m[k], 64)
	return v
}

// minimize is a bounded coordinate search in log space (parameters stay positive) or linear
// space for parameters whose lower bound is 0.
func minimize(f func([]float64) float64, x []float64, lo, hi []float64, rounds int) []float64 {
	x = append([]float64(nil), x...)
	best := f(x)
	step := make([]float64, len(x))
	for i := range step {
		step[i] = 0.5
	}
	for r := 0; r < rounds; r++ {
		improved := false
		for i := range x {
			for _, dir := range []float64{1, -1} {
				y := append([]float64(nil), x...)
				if lo[i] > 0 {
					y[i] = x[i] * math.Exp(dir*step[i])
				} else {
					y[i] = x[i] + dir*step[i]*(hi[i]-lo[i])/4
				}
				if y[i] < lo[i] {
					y[i] = lo[i]
				}
				if y[i] > hi[i] {
					y[i] = hi[i]
				}
				if v := f(y); v < best {
					best, x, improved = v, y, true
					break
				}
			}
		}
		if !improved {
			done := true
			for i := range step {
				step[i] /= 2
				if step[i] > 0.01 {
					done = false
				}
			}
			if done {
				break
			}
		}
	}
	return x
}

// genMinBytes is the smallest KV read per generation-attention call (batch × context × KV
// bytes per token of the layer) fitted: serving decode passes spend their attention time in
// calls of tens of MB and more, while the many smaller table rows are launch- and
// occupancy-bound and would pull the bandwidth efficiency of the big calls down.
const genMinBytes = 10e6

// genBytes is the KV bytes one generation-attention table row reads.
func genBytes(r map[string]string) float64 {
	kvb := 2.0
	if r["kv_cache_dtype"] == "fp8" {
		kvb = 1
	}
	return fnum(r, "batch_size") * (fnum(r, "isl") + fnum(r, "step")) * fnum(r, "num_key_value_heads") * fnum(r, "head_dim") * 2 * kvb
}

func fitOps(dir string, o perf.OpCoef) (perf.OpCoef, error) {
	hw, err := catalog.LookupHardware("h200_sxm")
	if err != nil {
		return o, err
	}
	gemm, err := table(filepath.Join(dir, "vllm_0.24.0", "gemm_perf.csv"), 13)
	if err != nil {
		return o, err
	}
	ctx, err := table(filepath.Join(dir, "vllm_0.24.0", "context_attention_perf.csv"), 5)
	if err != nil {
		return o, err
	}
	gen, err := table(filepath.Join(dir, "vllm_0.24.0", "generation_attention_perf.csv"), 5)
	if err != nil {
		return o, err
	}
	ar, err := table(filepath.Join(dir, "vllm_0.24.0", "custom_allreduce_perf.csv"), 1)
	if err != nil {
		return o, err
	}
	logErr := func(pred, meas float64) float64 {
		if meas <= 0 || pred <= 0 {
			return 0
		}
		return math.Abs(math.Log(pred / meas))
	}
	// GEMM: efficiency, half-efficiency rows, bandwidth efficiency, launch floor.
	gf := func(x []float64) float64 {
		oo := o
		oo.GemmEff, oo.GemmM0, oo.MemEff, oo.LaunchUs = x[0], x[1], x[2], x[3]
		var s float64
		for _, r := range gemm {
			mode := "bf16"
			if r["gemm_dtype"] == "fp8" {
				mode = "fp8"
			}
			s += logErr(perf.GemmOpMs(oo, hw, fnum(r, "m"), fnum(r, "n"), fnum(r, "k"), mode), fnum(r, "latency"))
		}
		return s / float64(len(gemm))
	}
	x := minimize(gf, []float64{o.GemmEff, o.GemmM0, o.MemEff, o.LaunchUs}, []float64{0.3, 1, 0.3, 1}, []float64{1, 2048, 1, 30}, 60)
	o.GemmEff, o.GemmM0, o.MemEff, o.LaunchUs = x[0], x[1], x[2], x[3]
	fmt.Fprintf(os.Stderr, "gemm: eff %.3f m0 %.1f mem %.3f launch %.2fus  mean|log err| %.3f (%d rows)\n", x[0], x[1], x[2], x[3], gf(x), len(gemm))
	// Context attention.
	cf := func(x []float64) float64 {
		oo := o
		oo.AttnEff, oo.AttnS0 = x[0], x[1]
		var s float64
		n := 0
		for _, r := range ctx {
			n++
			kv := "bf16"
			if r["kv_cache_dtype"] == "fp8" {
				kv = "fp8"
			}
			p := perf.ContextAttnOpMs(oo, hw, int(fnum(r, "batch_size")), int(fnum(r, "isl")), int(fnum(r, "num_heads")),
				int(fnum(r, "num_key_value_heads")), int(fnum(r, "head_dim")), int(fnum(r, "window_size")), kv)
			s += logErr(p, fnum(r, "latency"))
		}
		return s / float64(n)
	}
	x = minimize(cf, []float64{o.AttnEff, o.AttnS0}, []float64{0.1, 1}, []float64{1, 65536}, 60)
	o.AttnEff, o.AttnS0 = x[0], x[1]
	fmt.Fprintf(os.Stderr, "context attention: eff %.3f s0 %.0f  mean|log err| %.3f (%d rows)\n", x[0], x[1], cf(x), len(ctx))
	// Generation attention: bandwidth efficiency and half-bytes on the BF16-cache rows,
	// then the FP8-cache efficiency (the kernels dequantise, so halving the bytes does not
	// halve the time) on the FP8-cache rows with the same half-bytes.
	genErr := func(kvDtype string, set func(*perf.OpCoef, []float64)) func(x []float64) float64 {
		return func(x []float64) float64 {
			oo := o
			set(&oo, x)
			var s float64
			n := 0
			for _, r := range gen {
				if genBytes(r) < genMinBytes || r["kv_cache_dtype"] != kvDtype {
					continue
				}
				n++
				kv := "bf16"
				if kvDtype == "fp8" {
					kv = "fp8"
				}
				kvLen := int(fnum(r, "isl") + fnum(r, "step"))
				p := perf.GenerationAttnOpMs(oo, hw, int(fnum(r, "batch_size")), kvLen, int(fnum(r, "num_heads")),
					int(fnum(r, "num_key_value_heads")), int(fnum(r, "head_dim")), int(fnum(r, "window_size")), kv)
				s += logErr(p, fnum(r, "latency"))
			}
			return s / float64(n)
		}
	}
	setBFAttn := func(oo *perf.OpCoef, x []float64) { oo.DecAttnEff, oo.DecAttnB0 = x[0], x[1] }
	df := genErr("bfloat16", setBFAttn)
	x = minimize(df, []float64{o.DecAttnEff, o.DecAttnB0}, []float64{0.1, 1000}, []float64{1, 1e9}, 60)
	setBFAttn(&o, x)
	setF8Attn := func(oo *perf.OpCoef, x []float64) { oo.DecAttnEffFP8 = x[0] }
	df8 := genErr("fp8", setF8Attn)
	start8 := o.DecAttnEffFP8
	if start8 == 0 {
		start8 = o.DecAttnEff
	}
	x8 := minimize(df8, []float64{start8}, []float64{0.1}, []float64{1}, 60)
	setF8Attn(&o, x8)
	fmt.Fprintf(os.Stderr, "generation attention: eff bf16 %.3f fp8 %.3f b0 %.0f  mean|log err| %.3f / %.3f (rows reading ≥ %.0f MB)\n",
		x[0], x8[0], x[1], df(x), df8(x8), genMinBytes/1e6)
	// All-reduce (graph-captured custom kernel rows).
	af := func(x []float64) float64 {
		oo := o
		oo.ARLatUs, oo.AREff = x[0], x[1]
		var s float64
		n := 0
		for _, r := range ar {
			if r["backend"] != "vllm_graph" {
				continue
			}
			s += logErr(perf.AllReduceOpMs(oo, hw, int(fnum(r, "num_gpus")), fnum(r, "message_size")), fnum(r, "latency"))
			n++
		}
		return s / float64(n)
	}
	x = minimize(af, []float64{o.ARLatUs, o.AREff}, []float64{0.5, 0.05}, []float64{50, 1}, 60)
	o.ARLatUs, o.AREff = x[0], x[1]
	fmt.Fprintf(os.Stderr, "all-reduce: latency %.2fus eff %.3f  mean|log err| %.3f\n", x[0], x[1], af(x))
	return o, nil
}

// sig rounds to 4 significant digits (the committed figures carry no false precision).
func sig(v float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	return r
}

func roundAll(c *perf.Calibration) {
	o := &c.Ops
	for _, v := range []*float64{&o.GemmEff, &o.GemmM0, &o.MemEff, &o.LaunchUs, &o.AttnEff, &o.AttnS0, &o.DecAttnEff, &o.DecAttnB0, &o.DecAttnEffFP8, &o.MoEEff, &o.ARLatUs, &o.AREff, &o.ElemUs} {
		*v = sig(*v)
	}
	for _, m := range []map[string]perf.GroupCoef{c.Groups, c.Backends} {
		for k, g := range m {
			g.Prefill, g.PrefillMs, g.Decode, g.DecodeMs = sig(g.Prefill), sig(g.PrefillMs), sig(g.Decode), sig(g.DecodeMs)
			g.PrefillSeqMs, g.DecodeSeqMs = sig(g.PrefillSeqMs), sig(g.DecodeSeqMs)
			g.FrontendMs, g.FrontendKTokMs = sig(g.FrontendMs), sig(g.FrontendKTokMs)
			m[k] = g
		}
	}
	// A model family's group carries its backend's frontend latency (perf.Calibration.Group);
	// it is written once, in the backend's entry.
	for k, g := range c.Groups {
		g.FrontendMs, g.FrontendKTokMs = 0, 0
		c.Groups[k] = g
	}
	for k, v := range c.HandoffMs {
		c.HandoffMs[k] = sig(v)
	}
	for k, f := range c.Families {
		f.Prefill, f.Decode = sig(f.Prefill), sig(f.Decode)
		c.Families[k] = f
	}
}
