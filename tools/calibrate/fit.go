package main

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"sort"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/rows"
)

// The serving-run fit. Every prediction of a prepared row is (nearly) linear in the eight group
// coefficients g = (prefill factor, per-pass prefill ms, decode factor, per-pass decode ms,
// per-request prefill ms, per-sequence decode ms, frontend ms, frontend ms per 1000 prompt
// tokens): exactly so for aggregated rows (the surrogate replay's schedule does not depend on
// pass durations), approximately for disaggregated rows (linearised by finite differences
// around the current coefficients). Minimising the mean absolute percentage error of such a
// form is a weighted L1 regression; with the per-row cap (apeCap) it is solved by iteratively
// reweighted least squares (rows beyond the cap get no weight) with the bounds enforced by an
// active set. Family factors (one prefill, one decode per model family, shared by every
// backend and GPU) and group coefficients (per backend, and per model family on a backend
// where enough rows exist; never per GPU) are fitted alternately.

// tpotWeight weighs the TPOT error against the TTFT error in the loss (the TPOT target is the
// tighter one).
const tpotWeight = 1.5

// apeCap caps one row's absolute percentage error in the loss (a robust loss), so the few
// rows whose measurement the model cannot explain (KV-capacity-bound queues, decode batches
// capped by a server limit the CSV does not record, duplicated runs that disagree by 2×) do
// not drag every other row: an error beyond the cap counts as the cap and exerts no pull.
// 2 was chosen over 1.5 by cross-validation (-cv 4: TTFT 46.9 → 46.4 %, TPOT 20.5 → 20.2 %).
var apeCap = 2.0

func capped(e float64) float64 { return math.Min(math.Abs(e), apeCap) }

// ttftWeight weighs a row's TTFT error: disaggregated rows fit only their TPOT, because the
// surrogate's disaggregated TTFT is an analytic queueing estimate that differs from the
// simulator's (ratio p10–p90 ≈ 0.35–1.1), while its TPOT agrees to 1 %.
func ttftWeight(p *rows.Prepared) float64 {
	if p.Row.Mode == "disagg" {
		return 0
	}
	return 1
}

// fitHandoffMs is the hand-off latency the group and family fits predict disaggregated rows
// with: a constant added to their TTFT, which carries no weight there (ttftWeight), so any
// value gives the same fit; the latency is estimated after it (handoff.go).
const fitHandoffMs = 0

// nCoef is the number of group coefficients.
const nCoef = 8

type coefVec [nCoef]float64

func vecOf(g perf.GroupCoef) coefVec { return coefVec(perf.Coefs(g)) }

func groupOfVec(x coefVec, n int) perf.GroupCoef {
	return perf.GroupCoef{Prefill: x[0], PrefillMs: x[1], Decode: x[2], DecodeMs: x[3], PrefillSeqMs: x[4], DecodeSeqMs: x[5],
		FrontendMs: x[6], FrontendKTokMs: x[7], Rows: n}
}

// Bounds of the group coefficients. The factors stay within [0.75, 3]: 0.75 is the largest
// op efficiency (mem_eff; gemm_eff 0.71, dec_attn_eff 0.74), so a calibrated pass is never
// faster than the GPU's speed of light — shared by every GPU, the factors correct the op
// model's kernel efficiencies on a backend, not a GPU's speed (lower bound 0.3: LOGO TTFT
// 44.5 % / TPOT 27.8 %; 0.75: 43.7 / 26.7 %). Host costs are non-negative; the per-request
// prefill host cost (scheduling, sampling, detokenising one request) stays ≤ 2 ms: larger
// values are not a per-request cost of the pass but the frontend's latency, which does not
// delay the other requests and, charged as pass time, would cap a prefill pool's throughput
// at 1/cost requests per second. That latency is the frontend term, which delays only the
// request's own tokens (docs/semantics/simulation.md §5.3): ≤ 500 ms plus ≤ 2 ms per 1000 prompt tokens
// (tokenising and moving the prompt; 10 ms fitted at its bound and was no better: LOGO TTFT
// 44.7 vs 44.5 %).
var (
	coefLo = coefVec{0.75, 0, 0.75, 0, 0, 0, 0, 0}
	coefHi = coefVec{3, 300, 3, 30, 2, 0.5, 500, 2}
)

// term is one residual of the L1 problem: weight·|x·g − y|.
type term struct {
	x coefVec
	y float64
	w float64
}

// linear returns the affine forms (a0 + a·g) of a row's TTFT and TPOT around g under family
// factors f.
func linear(p *rows.Prepared, g perf.GroupCoef, f perf.FamilyCoef) (ta, pa coefVec, t0, p0 float64) {
	if p.Row.Mode != "disagg" {
		ta, pa = coefVec(p.Agg.TTFT), coefVec(p.Agg.TPOT)
		for _, v := range []*coefVec{&ta, &pa} {
			v[0] *= f.Prefill
			v[2] *= f.Decode
		}
		return ta, pa, 0, 0
	}
	x := vecOf(g)
	bt, bp := p.Predict(g, f, fitHandoffMs)
	for i := 0; i < nCoef; i++ {
		h := 1e-3 * (math.Abs(x[i]) + 1)
		y := x
		y[i] += h
		tt, tp := p.Predict(groupOfVec(y, 0), f, fitHandoffMs)
		ta[i] = (tt - bt) / h
		pa[i] = (tp - bp) / h
	}
	var st, sp float64
	for i := 0; i < nCoef; i++ {
		st += ta[i] * x[i]
		sp += pa[i] * x[i]
	}
	return ta, pa, bt - st, bp - sp
}

// terms builds the L1 residuals of rows around g.
func terms(ps []*rows.Prepared, g perf.GroupCoef, fam map[string]perf.FamilyCoef) []term {
	var out []term
	for _, p := range ps {
		ta, pa, t0, p0 := linear(p, g, famOf(fam, p))
		m := p.Row
		var xt, xp coefVec
		for i := range xt {
			xt[i] = ta[i] / m.TTFT
			xp[i] = pa[i] / m.TPOT
		}
		out = append(out, term{xt, 1 - t0/m.TTFT, ttftWeight(p)}, term{xp, 1 - p0/m.TPOT, tpotWeight})
	}
	return out
}

func famOf(fam map[string]perf.FamilyCoef, p *rows.Prepared) perf.FamilyCoef {
	if f, ok := fam[p.Family()]; ok {
		return f
	}
	return perf.FamilyCoef{Prefill: 1, Decode: 1}
}

// l1 minimises Σ w·|x·g − y| over g within [lo, hi] (coordinates with free[i] false stay at
// start) by iteratively reweighted least squares.
func l1(ts []term, start, lo, hi coefVec, free [nCoef]bool) coefVec {
	g := start
	for it := 0; it < 60; it++ {
		var a [nCoef][nCoef]float64
		var b coefVec
		for _, t := range ts {
			r := t.y
			for i := range g {
				r -= t.x[i] * g[i]
			}
			if math.Abs(r) > apeCap {
				continue
			}
			om := t.w / math.Max(math.Abs(r), 1e-3)
			for i := 0; i < nCoef; i++ {
				if t.x[i] == 0 {
					continue
				}
				b[i] += om * t.x[i] * t.y
				for j := 0; j < nCoef; j++ {
					a[i][j] += om * t.x[i] * t.x[j]
				}
			}
		}
		// Active set: solve for the free coordinates, clamp, repeat with clamped ones fixed.
		fixed := [nCoef]bool{}
		for i := range fixed {
			fixed[i] = !free[i]
		}
		var next coefVec
		for pass := 0; pass < nCoef+1; pass++ {
			next = g
			var idx []int
			for i := 0; i < nCoef; i++ {
				if !fixed[i] {
					idx = append(idx, i)
				}
			}
			n := len(idx)
			if n == 0 {
				break
			}
			m := make([][]float64, n)
			for r, i := range idx {
				m[r] = make([]float64, n+1)
				rhs := b[i]
				for j := 0; j < nCoef; j++ {
					if fixed[j] {
						rhs -= a[i][j] * next[j]
					}
				}
				for c, j := range idx {
					m[r][c] = a[i][j]
				}
				// A small ridge keeps coordinates that no row informs at their start.
				m[r][r] += 1e-9 * (1 + a[i][i])
				rhs += 1e-9 * (1 + a[i][i]) * g[i]
				m[r][n] = rhs
			}
			sol := calibration.Solve(m)
			clamped := false
			for r, i := range idx {
				v := sol[r]
				if math.IsNaN(v) {
					v = g[i]
				}
				if v < lo[i] {
					v, fixed[i], clamped = lo[i], true, true
				} else if v > hi[i] {
					v, fixed[i], clamped = hi[i], true, true
				}
				next[i] = v
			}
			if !clamped {
				break
			}
			for i := range fixed {
				if fixed[i] && free[i] && next[i] != lo[i] && next[i] != hi[i] {
					fixed[i] = false
				}
			}
			g = next
		}
		delta := 0.0
		for i := range g {
			delta = math.Max(delta, math.Abs(next[i]-g[i])/(math.Abs(g[i])+1e-3))
		}
		g = next
		if delta < 1e-5 {
			break
		}
	}
	return g
}

// loss is the fitted objective: mean capped TTFT APE + tpotWeight × capped TPOT APE.
func loss(ps []*rows.Prepared, gOf func(*rows.Prepared) perf.GroupCoef, fam map[string]perf.FamilyCoef) float64 {
	var s float64
	for _, p := range ps {
		t, q := p.Predict(gOf(p), famOf(fam, p), fitHandoffMs)
		s += ttftWeight(p)*capped(t/p.Row.TTFT-1) + tpotWeight*capped(q/p.Row.TPOT-1)
	}
	return s / float64(len(ps))
}

// fitGroup fits one group's coefficients on its rows (re-linearising disaggregated rows); the
// frontend latency is fitted only when frontend is set (a backend's group) and otherwise stays
// at start's (a model family's group carries its backend's frontend, perf.Calibration.Group).
func fitGroup(ps []*rows.Prepared, start perf.GroupCoef, fam map[string]perf.FamilyCoef, frontend bool) perf.GroupCoef {
	x := vecOf(start)
	for i := range x {
		x[i] = math.Min(math.Max(x[i], coefLo[i]), coefHi[i])
	}
	free := [nCoef]bool{true, true, true, true, true, true, frontend, frontend}
	best, bestLoss := x, loss(ps, func(*rows.Prepared) perf.GroupCoef { return groupOfVec(x, 0) }, fam)
	for outer := 0; outer < 4; outer++ {
		x = l1(terms(ps, groupOfVec(x, 0), fam), x, coefLo, coefHi, free)
		l := loss(ps, func(*rows.Prepared) perf.GroupCoef { return groupOfVec(x, 0) }, fam)
		if l < bestLoss {
			best, bestLoss = x, l
		}
	}
	return groupOfVec(best, len(ps))
}

// fitFamily fits one family's prefill and decode factors given the group coefficients. They
// stay within [1, 3]: a family factor adds what the family's op decomposition misses and
// never makes a pass faster than the group's factors allow (so the product stays ≥ 0.75;
// [0.3, 3]: LOGO TTFT 43.7 % / TPOT 26.7 %, [1, 3]: 42.6 / 26.0 %).
func fitFamily(ps []*rows.Prepared, start perf.FamilyCoef, gOf func(*rows.Prepared) perf.GroupCoef) perf.FamilyCoef {
	f := start
	for outer := 0; outer < 4; outer++ {
		// With groups fixed, TTFT and TPOT are affine in (family prefill, family decode):
		// finite differences give the forms exactly for aggregated rows.
		var ts []term
		for _, p := range ps {
			g := gOf(p)
			bt, bp := p.Predict(g, f, fitHandoffMs)
			var dt, dp [2]float64
			for i := 0; i < 2; i++ {
				h := 1e-3
				ff := f
				if i == 0 {
					ff.Prefill += h
				} else {
					ff.Decode += h
				}
				tt, tp := p.Predict(g, ff, fitHandoffMs)
				dt[i], dp[i] = (tt-bt)/h, (tp-bp)/h
			}
			t0 := bt - dt[0]*f.Prefill - dt[1]*f.Decode
			p0 := bp - dp[0]*f.Prefill - dp[1]*f.Decode
			m := p.Row
			ts = append(ts, term{coefVec{dt[0] / m.TTFT, dt[1] / m.TTFT}, 1 - t0/m.TTFT, ttftWeight(p)},
				term{coefVec{dp[0] / m.TPOT, dp[1] / m.TPOT}, 1 - p0/m.TPOT, tpotWeight})
		}
		x := l1(ts, coefVec{f.Prefill, f.Decode}, coefVec{1, 1}, coefVec{3, 3}, [nCoef]bool{true, true})
		f = perf.FamilyCoef{Prefill: x[0], Decode: x[1], Rows: len(ps)}
	}
	return f
}

// split chooses the rows a fit trains on and the rows it scores.
type split struct {
	train, test func(*rows.Row) bool
}

// heldOutSplit is the committed fit's: every curve not held out trains, the held-out curves
// (rows.HeldOut) are scored.
var heldOutSplit = split{
	train: func(r *rows.Row) bool { return !r.HeldOut() },
	test:  (*rows.Row).HeldOut,
}

// fittable reports whether a prepared row takes part in fits and scores: the simulator can
// price it (the accuracy harness's scope) and it has a positive measurement.
func fittable(p *rows.Prepared) bool {
	return p.Err == nil && p.T.Simulated() && p.Row.TTFT > 0 && p.Row.TPOT > 0 && p.Row.Concurrency > 0
}

// trains reports whether a fittable row of the training split enters the group and family
// fits. TensorRT-LLM disaggregated rows do not (unless fitTRTLLMDisagg): their measured TPOT
// is half the predicted one for DeepSeek-R1 (482 of their 636 rows, median ratio 1.96,
// while DeepSeek-V3's is 0.84), the speed-up of MTP the CSV does not record; fitted, they
// pull TensorRT-LLM's decode factor to its speed-of-light bound and worsen the aggregated rows
// (docs/timing.md). They are priced and scored, and enter the hand-off fit (a TTFT term).
func trains(r *rows.Row) bool {
	return fitTRTLLMDisagg || !(r.Backend == "trtllm" && r.Mode == "disagg")
}

// fitTRTLLMDisagg makes TensorRT-LLM disaggregated rows enter the group and family fits.
var fitTRTLLMDisagg = false

// predictor returns the surrogate prediction of a prepared row under calibration c.
func predict(c *perf.Calibration, p *rows.Prepared) (ttft, tpot float64) {
	g, _ := c.Group(p.Row.Backend, p.Family())
	return p.Predict(g, c.Family(p.Family()), c.HandoffMs[p.Row.Backend])
}

// fitGroups fits c's family factors and group coefficients (alternately, 4 rounds) on the
// prepared rows sp.train selects, when fit is set, and returns the rows sp.test selects.
func fitGroups(c *perf.Calibration, prep []rows.Prepared, sp split, fit bool) (test []*rows.Prepared) {
	byGroup := map[string][]*rows.Prepared{}
	byBackend := map[string][]*rows.Prepared{}
	byFamily := map[string][]*rows.Prepared{}
	var all, handoff []*rows.Prepared
	for i := range prep {
		p := &prep[i]
		if !fittable(p) {
			continue
		}
		if sp.test(p.Row) {
			test = append(test, p)
		}
		if !sp.train(p.Row) {
			continue
		}
		handoff = append(handoff, p)
		if !trains(p.Row) {
			continue
		}
		all = append(all, p)
		byGroup[p.GroupKey()] = append(byGroup[p.GroupKey()], p)
		byBackend[p.Row.Backend] = append(byBackend[p.Row.Backend], p)
		byFamily[p.Family()] = append(byFamily[p.Family()], p)
	}
	if !fit {
		return test
	}
	fam := map[string]perf.FamilyCoef{}
	fkeys := sortedKeys(byFamily)
	for _, k := range fkeys {
		fam[k] = perf.FamilyCoef{Prefill: 1, Decode: 1, Rows: len(byFamily[k])}
	}
	keys := sortedKeys(byGroup)
	c.Backends = map[string]perf.GroupCoef{}
	c.Groups = map[string]perf.GroupCoef{}
	gOf := func(p *rows.Prepared) perf.GroupCoef {
		g, _ := c.Group(p.Row.Backend, p.Family())
		return g
	}
	start := perf.GroupCoef{Prefill: 1, PrefillMs: 10, Decode: 1, DecodeMs: 1}
	for iter := 0; iter < 4; iter++ {
		for _, b := range perf.Backends {
			if ps := byBackend[b]; len(ps) > 0 {
				c.Backends[b] = fitGroup(ps, start, fam, true)
			} else {
				c.Backends[b] = perf.GroupCoef{Prefill: 1, Decode: 1}
			}
		}
		// A model family's group on a backend starts from the backend's coefficients.
		for _, k := range keys {
			ps := byGroup[k]
			if minGroupRows <= 0 || len(ps) < minGroupRows || !anyTTFT(ps) {
				continue // too few rows (or no TTFT to fit the prefill side): the backend's apply
			}
			c.Groups[k] = fitGroup(ps, c.Backends[ps[0].Row.Backend], fam, false)
		}
		for _, k := range fkeys {
			f := fitFamily(byFamily[k], fam[k], gOf)
			f.Rows = len(byFamily[k])
			fam[k] = f
		}
		c.Families = fam
		if !quiet {
			fmt.Fprintf(os.Stderr, "round %d: loss on fitted rows %.4f, scored rows %.4f\n", iter, loss(all, gOf, fam), loss(test, gOf, fam))
		}
	}
	c.Families = fam
	fitHandoff(c, handoff)
	if quiet {
		return test
	}
	for _, b := range perf.Backends {
		fmt.Fprintf(os.Stderr, "hand-off %-8s %.1f ms\n", b, c.HandoffMs[b])
	}
	for _, k := range fkeys {
		fmt.Fprintf(os.Stderr, "family %-10s rows %4d  prefill ×%.3f decode ×%.3f\n", k, fam[k].Rows, fam[k].Prefill, fam[k].Decode)
	}
	show := func(k string, g perf.GroupCoef) {
		fmt.Fprintf(os.Stderr, "%-20s rows %4d  prefill ×%.3f +%.2fms +%.3fms/req  decode ×%.3f +%.2fms +%.4fms/seq  frontend %.1fms +%.2fms/ktok\n",
			k, g.Rows, g.Prefill, g.PrefillMs, g.PrefillSeqMs, g.Decode, g.DecodeMs, g.DecodeSeqMs, g.FrontendMs, g.FrontendKTokMs)
	}
	for _, b := range perf.Backends {
		show(b, c.Backends[b])
	}
	for _, k := range keys {
		if g, ok := c.Groups[k]; ok {
			show(k, g)
		}
	}
	report := func(name string, ps []*rows.Prepared) {
		if len(ps) == 0 {
			return
		}
		var st, sp float64
		for _, p := range ps {
			t, q := predict(c, p)
			st += math.Abs(t/p.Row.TTFT - 1)
			sp += math.Abs(q/p.Row.TPOT - 1)
		}
		n := float64(len(ps))
		fmt.Fprintf(os.Stderr, "surrogate %-9s rows %4d  TTFT MAPE %.1f%%  TPOT MAPE %.1f%%\n", name, len(ps), 100*st/n, 100*sp/n)
	}
	report("fitted", all)
	report("scored", test)
	return test
}

func anyTTFT(ps []*rows.Prepared) bool {
	for _, p := range ps {
		if ttftWeight(p) > 0 {
			return true
		}
	}
	return false
}

// quiet silences the per-round progress of fits run many times (cross-validation).
var quiet = false

// cvFoldOf is the fold of a row in a K-fold cross-validation over the fitted deployments:
// by deployment (model, system, backend, lengths, quantisation, parallelism), not by
// curve_id, because the CSV repeats some sweeps under several curve ids, and a fold must not
// hold a copy of a curve the fit has seen.
func cvFoldOf(r *rows.Row, k int) int {
	h := fnv.New32a()
	a := r.Agg.Par
	fmt.Fprintf(h, "%s|%s|%s|%s|%d|%d|%s|%s|%d|%d|%d|%d", r.Model, r.System, r.Backend, r.Mode, r.ISL, r.OSL, r.GemmQuant, r.MoEQuant, a.Tensor, a.AttentionData, a.MoeExpert, r.Decode.Par.Tensor)
	return int(h.Sum32() % uint32(k))
}

func sortedKeys(m map[string][]*rows.Prepared) []string {
	k := make([]string, 0, len(m))
	for s := range m {
		k = append(k, s)
	}
	sort.Strings(k)
	return k
}

// minGroupRows, when > 0, gives a model family on a backend coefficients of its own once it
// has that many fitted rows (otherwise the backend's apply). 0, the default, fits per backend
// only: by the leave-one-campaign-out cross-validation, family groups from 8 rows gave
// TTFT 42.6 % / TPOT 26.0 %, from 50 rows 42.8 / 25.1 %, none 43.6 / 22.8 % (docs/timing.md).
var minGroupRows = 0
