package main

import (
	"fmt"
	"io"
	"sort"

	"aisimulate/simcore/perf"
	"aisimulate/tools/calibrate/baseline"
	"aisimulate/tools/calibrate/rows"
)

// Leave-one-group-out cross-validation: for each measurement campaign (rows.Row.Campaign:
// the month of measured_on, or the model where the date is missing) the serving-run part of
// the calibration is re-fitted on every other row and the campaign is predicted — deployments
// the fit has never seen, as a user's would be. The op coefficients (fitted on kernel tables,
// not on serving runs) are kept. Fits and predictions use the calibration surrogate (a full
// simulator replay per fold would take hours); on aggregated rows the surrogate and the
// simulator agree exactly (docs/timing.md).

// logoResult is one scored row's prediction.
type logoResult struct {
	row        *rows.Row
	ttft, tpot float64
}

// logoFolds runs the cross-validation on the prepared rows: every campaign predicted by a
// fit on all the others. It returns the scored rows and the campaign names in order.
func logoFolds(prep []rows.Prepared, c perf.Calibration) (res []logoResult, names []string) {
	quiet = true
	camps := map[string]bool{}
	for i := range prep {
		camps[prep[i].Row.Campaign()] = true
	}
	for k := range camps {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		cc := c
		camp := name
		sp := split{
			train: func(r *rows.Row) bool { return r.Campaign() != camp },
			test:  func(r *rows.Row) bool { return r.Campaign() == camp },
		}
		for _, p := range fitGroups(&cc, prep, sp, true) {
			t, q := predict(&cc, p)
			res = append(res, logoResult{p.Row, t, q})
		}
	}
	return res, names
}

// writeLOGO runs the cross-validation on the prepared rows and prints its tables, each slice
// "before → after" against before (docs/timing.md "Before and after") and the error budget
// per slice; it returns the run's figures (for -write-baseline). With dump set it also writes
// every scored row's prediction there (tab-separated, measured values included: keep it
// outside the repository).
func writeLOGO(w io.Writer, prep []rows.Prepared, c perf.Calibration, dump io.Writer, before *baseline.Section) baseline.Section {
	res, names := logoFolds(prep, c)
	all := make([]*rows.Row, len(prep))
	for i := range prep {
		all[i] = prep[i].Row
	}
	writeLOGOTables(w, res, all, names)
	after := writeLOGOComparison(w, res, len(prep), before)
	if dump != nil {
		fmt.Fprintln(dump, "id\tcampaign\tbackend\tmode\tsystem\tmodel\tconc\tisl\tosl\tpred_ttft\tmeas_ttft\tpred_tpot\tmeas_tpot")
		for _, r := range res {
			x := r.row
			fmt.Fprintf(dump, "%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%.4g\t%.4g\t%.4g\t%.4g\n", x.ID, x.Campaign(), x.Backend, x.Mode,
				x.System, x.Model, x.Concurrency, x.ISL, x.OSL, r.ttft, x.TTFT, r.tpot, x.TPOT)
		}
	}
	return after
}

// writeLOGOComparison prints the scored rows' figures per slice and the error budget of every
// row and of each of rows.Slices, each against before; it returns the figures and budget.
func writeLOGOComparison(w io.Writer, res []logoResult, total int, before *baseline.Section) baseline.Section {
	scored := make([]baseline.Scored, len(res))
	for i, r := range res {
		scored[i] = baseline.Scored{Row: r.row, TTFT: r.ttft, TPOT: r.tpot}
	}
	after := baseline.Measure(scored, total)
	baseline.WriteComparison(w, "leave-one-campaign-out cross-validation", before, &after)
	after.Budget = writeErrorBudget(w, baseline.AllRows, errorBudget(res), before)
	for _, k := range rows.Slices {
		var sub []logoResult
		for _, r := range res {
			if r.row.Slice() == k {
				sub = append(sub, r)
			}
		}
		after.Budget = append(after.Budget, writeErrorBudget(w, k, errorBudget(sub), before)...)
	}
	return after
}

func within(v []float64, lim float64) float64 {
	k := 0
	for _, x := range v {
		if x <= lim {
			k++
		}
	}
	return float64(k) / float64(len(v))
}

// writeLOGOTables prints MAPE, median APE and the share within 20 % of mean TTFT and mean
// TPOT overall, per mode, per backend (and mode) and per campaign, and the coverage over
// every row of the CSV (TRT-LLM disaggregated rows and rows the simulator rejects count as
// not covered).
func writeLOGOTables(w io.Writer, res []logoResult, all []*rows.Row, camps []string) {
	stats := map[string]*rows.APEs{}
	var order []string
	get := func(k string) *rows.APEs {
		if s, ok := stats[k]; ok {
			return s
		}
		s := &rows.APEs{}
		stats[k] = s
		order = append(order, k)
		return s
	}
	get("overall")
	get("aggregated")
	get("disaggregated")
	for _, k := range rows.Slices[1:] {
		get(k)
	}
	for _, b := range perf.Backends {
		get(b)
	}
	for _, b := range perf.Backends {
		get(b + "/agg")
		get(b + "/disagg")
	}
	for _, c := range camps {
		get("campaign " + c)
	}
	for _, r := range res {
		keys := []string{"overall", r.row.Slice(), r.row.Backend, r.row.Backend + "/" + r.row.Mode, "campaign " + r.row.Campaign()}
		if r.row.Mode == "disagg" {
			keys = append(keys, "disaggregated")
		}
		for _, k := range keys {
			get(k).Add(r.row, r.ttft, r.tpot)
		}
	}
	fmt.Fprintf(w, "\nleave-one-campaign-out cross-validation (%d campaigns; surrogate fit and prediction per fold)\n", len(camps))
	fmt.Fprintf(w, "%-34s %6s %8s %8s %7s %8s %8s %7s\n", "rows", "n", "TTFT%", "med%", "≤20%", "TPOT%", "med%", "≤20%")
	for _, k := range order {
		s := stats[k]
		if len(s.TTFT) == 0 {
			continue
		}
		fmt.Fprintf(w, "%-34s %6d %8.1f %8.1f %6.0f%% %8.1f %8.1f %6.0f%%\n", k, len(s.TTFT),
			100*rows.Mean(s.TTFT), 100*rows.Median(s.TTFT), 100*within(s.TTFT, 0.2),
			100*rows.Mean(s.TPOT), 100*rows.Median(s.TPOT), 100*within(s.TPOT, 0.2))
	}
	cov := map[string][2]int{}
	for _, r := range all {
		for _, k := range []string{"all", r.Backend + "/" + r.Mode} {
			v := cov[k]
			v[1]++
			cov[k] = v
		}
	}
	for _, r := range res {
		for _, k := range []string{"all", r.row.Backend + "/" + r.row.Mode} {
			v := cov[k]
			v[0]++
			cov[k] = v
		}
	}
	ks := make([]string, 0, len(cov))
	for k := range cov {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	fmt.Fprintf(w, "coverage (rows priced / all rows):")
	for _, k := range ks {
		v := cov[k]
		fmt.Fprintf(w, " %s %d/%d (%.1f%%)", k, v[0], v[1], 100*float64(v[0])/float64(v[1]))
	}
	fmt.Fprintln(w)
}
