package main

import (
	"fmt"
	"io"
	"math"
	"strings"

	"aisimulate/tools/calibrate/baseline"
	"aisimulate/tools/calibrate/rows"
)

// The error budget of the cross-validated MAPE (docs/timing.md "Error budget"): how many
// points of the overall TTFT and TPOT MAPE each named effect accounts for. A set of rows
// contributes Σ APE over its rows / all scored rows; a correction contributes the MAPE it
// removes. The sets overlap, so the points do not add up.

// budgetLine is one effect of the budget.
type budgetLine struct {
	effect     string
	rows       int
	ttft, tpot float64 // points of the overall MAPE
	note       string
}

// mtpTPOTRatio is the measured/predicted TPOT at or below which a DeepSeek-R1 TensorRT-LLM
// row counts as running unrecorded MTP: MTP at the default acceptance (docs/timing.md "MTP")
// about halves the decode time, so such rows measure half the prediction or less (0.6 leaves
// room for the prediction's own error).
const mtpTPOTRatio = 0.6

// errorBudget computes the budget lines of res (every scored row of the cross-validation).
func errorBudget(res []logoResult) []budgetLine {
	n := float64(len(res))
	if n == 0 {
		return nil
	}
	apeT := func(r logoResult) float64 { return math.Abs(r.ttft/r.row.TTFT - 1) }
	apeP := func(r logoResult) float64 { return math.Abs(r.tpot/r.row.TPOT - 1) }
	var out []budgetLine
	// A named set of rows: the points its rows contribute.
	set := func(effect, note string, in func(logoResult) bool) {
		l := budgetLine{effect: effect, note: note}
		for _, r := range res {
			if in(r) {
				l.rows++
				l.ttft += 100 * apeT(r) / n
				l.tpot += 100 * apeP(r) / n
			}
		}
		out = append(out, l)
	}

	// (a) Per-curve level: remove each measured curve's own median log error (an oracle no
	// model has); what it removes is the part of the error that is one offset per curve —
	// the settings the CSV does not record.
	med := map[string][2]float64{}
	by := map[string][]logoResult{}
	for _, r := range res {
		by[r.row.CurveID] = append(by[r.row.CurveID], r)
	}
	for k, v := range by {
		lt := make([]float64, len(v))
		lp := make([]float64, len(v))
		for i, r := range v {
			lt[i] = math.Log(r.ttft / r.row.TTFT)
			lp[i] = math.Log(r.tpot / r.row.TPOT)
		}
		med[k] = [2]float64{rows.Median(lt), rows.Median(lp)}
	}
	var before, after [2]float64
	for _, r := range res {
		m := med[r.row.CurveID]
		before[0] += apeT(r)
		before[1] += apeP(r)
		after[0] += math.Abs(r.ttft*math.Exp(-m[0])/r.row.TTFT - 1)
		after[1] += math.Abs(r.tpot*math.Exp(-m[1])/r.row.TPOT - 1)
	}
	out = append(out, budgetLine{effect: "(a) per-curve level (settings the CSV does not record)", rows: len(res),
		ttft: 100 * (before[0] - after[0]) / n, tpot: 100 * (before[1] - after[1]) / n,
		note: fmt.Sprintf("removing each curve's median error leaves TTFT %.1f %%, TPOT %.1f %%", 100*after[0]/n, 100*after[1]/n)})

	// (b) Campaign-to-campaign spread: the same recorded deployment (every column but the
	// measurements, identity and date) measured in two or more campaigns. Each such row is
	// predicted by the median measurement of the other campaigns: the error no model of the
	// recorded columns can go below.
	camps := map[string]map[string][]float64{} // key → campaign → measured TTFTs
	campsP := map[string]map[string][]float64{}
	for _, r := range res {
		k := deploymentKey(r.row)
		if camps[k] == nil {
			camps[k], campsP[k] = map[string][]float64{}, map[string][]float64{}
		}
		c := r.row.Campaign()
		camps[k][c] = append(camps[k][c], r.row.TTFT)
		campsP[k][c] = append(campsP[k][c], r.row.TPOT)
	}
	spread := budgetLine{effect: "(b) campaign-to-campaign spread of one deployment"}
	var modelT, modelP float64
	for _, r := range res {
		k := deploymentKey(r.row)
		if len(camps[k]) < 2 {
			continue
		}
		var ot, op []float64
		for c, v := range camps[k] {
			if c != r.row.Campaign() {
				ot = append(ot, v...)
				op = append(op, campsP[k][c]...)
			}
		}
		spread.rows++
		spread.ttft += 100 * math.Abs(rows.Median(ot)/r.row.TTFT-1) / n
		spread.tpot += 100 * math.Abs(rows.Median(op)/r.row.TPOT-1) / n
		modelT += apeT(r)
		modelP += apeP(r)
	}
	if spread.rows > 0 {
		m := float64(spread.rows)
		spread.note = fmt.Sprintf("another campaign's measurement predicts these rows to TTFT %.1f %% / TPOT %.1f %% (the model: %.1f / %.1f %%)",
			spread.ttft*n/m, spread.tpot*n/m, 100*modelT/m, 100*modelP/m)
	}
	out = append(out, spread)

	// (c) TensorRT-LLM disaggregated rows.
	trtDisagg := func(r logoResult) bool { return r.row.Backend == "trtllm" && r.row.Mode == "disagg" }
	set("(c) TensorRT-LLM disaggregated rows (queueing TTFT; unrecorded worker counts and MTP)", "", trtDisagg)

	// (d) Unrecorded MTP: DeepSeek-R1 TensorRT-LLM rows measuring at most 0.6 of the
	// predicted TPOT; the correction halves their predicted TPOT.
	mtp := func(r logoResult) bool {
		return r.row.Backend == "trtllm" && strings.HasSuffix(r.row.Model, "DeepSeek-R1") && r.row.TPOT <= mtpTPOTRatio*r.tpot
	}
	set("(d) unrecorded MTP (DeepSeek-R1 TensorRT-LLM, measured TPOT ≤ 0.6 × predicted)", "", mtp)
	l := &out[len(out)-1]
	var gain float64
	for _, r := range res {
		if mtp(r) {
			gain += apeP(r) - math.Abs(r.tpot/2/r.row.TPOT-1)
		}
	}
	l.note = fmt.Sprintf("halving their predicted TPOT removes %.1f TPOT points", 100*gain/n)

	// (e) Other named sets.
	set("(e) SGLang disaggregated rows", "", func(r logoResult) bool { return r.row.Backend == "sglang" && r.row.Mode == "disagg" })
	set("(e) aggregated rows at concurrency > 64 (admission and queueing)", "", func(r logoResult) bool {
		return r.row.Mode != "disagg" && r.row.Concurrency > 64
	})
	set("(e) rows with TTFT APE > 100 %", "", func(r logoResult) bool { return apeT(r) > 1 })
	set("(e) rows with TPOT APE > 100 %", "", func(r logoResult) bool { return apeP(r) > 1 })
	return out
}

// deploymentKey names a row's recorded deployment: every column of the CSV except the
// measurements, the row's identity and its date.
func deploymentKey(r *rows.Row) string {
	return fmt.Sprintf("%s|%s|%s|%s|%s|%s|%d|%d|%d|%d|%+v|%+v|%+v", r.Model, r.System, r.Backend, r.Mode, r.GemmQuant,
		r.MoEQuant, r.ISL, r.OSL, r.Concurrency, r.BatchSize, r.Agg, r.Prefill, r.Decode)
}

// writeErrorBudget prints the budget lines of one scope (baseline.AllRows or one of
// rows.Slices: points of that set's cross-validated MAPE), each "before → after" against the
// line of the same scope and effect in before, and returns them for a baseline.
func writeErrorBudget(w io.Writer, scope string, lines []budgetLine, before *baseline.Section) []baseline.Budget {
	if len(lines) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nerror budget, %s (points of its cross-validated MAPE; the sets overlap; before → after)\n", scope)
	fmt.Fprintf(w, "%-88s %13s %15s %15s\n", "effect", "rows", "TTFT", "TPOT")
	var out []baseline.Budget
	for _, l := range lines {
		if l.rows == 0 {
			continue // a set with no rows in this scope
		}
		a := baseline.Budget{Scope: scope, Effect: l.effect, Rows: l.rows, TTFT: l.ttft, TPOT: l.tpot}
		out = append(out, a)
		n, bt, bp := "—", (*float64)(nil), (*float64)(nil)
		if b := before.BudgetLine(scope, l.effect); b != nil {
			n, bt, bp = fmt.Sprint(b.Rows), &b.TTFT, &b.TPOT
		}
		fmt.Fprintf(w, "%-88s %13s %15s %15s\n", l.effect, n+" → "+fmt.Sprint(l.rows), baseline.Arrow(bt, &a.TTFT), baseline.Arrow(bp, &a.TPOT))
		if l.note != "" {
			fmt.Fprintf(w, "%-88s\n", "    "+l.note)
		}
	}
	return out
}
