package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"aisimulate/simcore/perf"
	"aisimulate/simcore/uncertainty"
	"aisimulate/tools/calibrate/rows"
)

// The default model's error bands (docs/uncertainty.md): the leave-one-campaign-out
// residuals of every priced row, grouped by backend, mode and load regime, estimated by the
// shrinkage rule of simcore/uncertainty, and their held-out coverage.

// metrics is the number of banded metrics: TTFT, TPOT, E2E, output throughput (the index
// order of intervalRow.r).
const metrics = 4

// intervalRow is one cross-validated row's residuals: its group, campaign and
// r = ln(measured / predicted) per metric.
type intervalRow struct {
	group    uncertainty.Group
	campaign string
	r        [metrics]float64
}

// intervalRows turns the cross-validated predictions into residuals. The CSV measures mean
// TTFT and TPOT; mean E2E is TTFT + (OSL − 1)·TPOT on both sides (every request of a row has
// OSL output tokens), and the output throughput of a closed loop of c clients is c·OSL / E2E
// (Little's law), so its residual is ln(predicted E2E / measured E2E). The load of a row is
// its concurrency per aggregated replica (replicas[row], 1 when absent; per deployment when
// disaggregated).
func intervalRows(res []logoResult, replicas map[*rows.Row]int) []intervalRow {
	var out []intervalRow
	for _, x := range res {
		r := x.row
		osl := float64(r.OSL - 1)
		measE2E, predE2E := r.TTFT+osl*r.TPOT, x.ttft+osl*x.tpot
		if !(x.ttft > 0 && x.tpot > 0 && r.TTFT > 0 && r.TPOT > 0) {
			continue
		}
		load, mode := float64(r.Concurrency), uncertainty.ModeAgg
		if r.Mode == "disagg" {
			mode = uncertainty.ModeDisagg
		} else if n := replicas[r]; n > 1 {
			load /= float64(n)
		}
		out = append(out, intervalRow{
			group:    uncertainty.Group{Backend: r.Backend, Mode: mode, Regime: uncertainty.RegimeOf(load)},
			campaign: r.Campaign(),
			r:        [metrics]float64{math.Log(r.TTFT / x.ttft), math.Log(r.TPOT / x.tpot), math.Log(measE2E / predE2E), math.Log(predE2E / measE2E)},
		})
	}
	return out
}

// samples are the metric-m residuals of the rows that keep says to keep.
func samples(rs []intervalRow, m int, keep func(*intervalRow) bool) []uncertainty.Sample {
	var out []uncertainty.Sample
	for i := range rs {
		if keep(&rs[i]) {
			out = append(out, uncertainty.Sample{R: rs[i].r[m], Campaign: rs[i].campaign})
		}
	}
	return out
}

// groupBands estimates the bands of every backend × mode × regime group: the pooled
// distribution of all rows (campaign-weighted), each backend/mode shrunk toward it, each
// group shrunk toward its backend/mode (uncertainty.Shrunk). Band values are rounded to 4
// decimals (0.01 % of a value).
func groupBands(rs []intervalRow) map[string]uncertainty.GroupBands {
	out := map[string]uncertainty.GroupBands{}
	for m := 0; m < metrics; m++ {
		pooled := uncertainty.CampaignWeighted(samples(rs, m, func(*intervalRow) bool { return true }))
		for _, b := range perf.Backends {
			for _, mode := range uncertainty.Modes {
				bm := samples(rs, m, func(x *intervalRow) bool { return x.group.Backend == b && x.group.Mode == mode })
				parent := uncertainty.Shrunk(bm, pooled)
				for _, reg := range uncertainty.Regimes {
					g := uncertainty.Group{Backend: b, Mode: mode, Regime: reg}
					own := samples(rs, m, func(x *intervalRow) bool { return x.group == g })
					band := uncertainty.Shrunk(own, parent).Band(len(own))
					band.P10, band.P90 = round4(band.P10), round4(band.P90)
					e := out[g.String()]
					e.Campaigns = uncertainty.Campaigns(own)
					switch m {
					case 0:
						e.TTFT = band
					case 1:
						e.TPOT = band
					case 2:
						e.E2E = band
					default:
						e.OutputThroughput = band
					}
					out[g.String()] = e
				}
			}
		}
	}
	return out
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// bandOf is metric m's band of a group entry.
func bandOf(e uncertainty.GroupBands, m int) uncertainty.Band {
	return [metrics]uncertainty.Band{e.TTFT, e.TPOT, e.E2E, e.OutputThroughput}[m]
}

// heldOut is the held-out coverage of the estimator: every campaign's rows scored against
// the bands groupBands estimates from the other campaigns' rows, so a campaign's residuals
// never shape its own band.
type heldOut struct {
	eval uncertainty.Evaluation
	// group[g][m] counts, per group, the rows inside their interval and all rows.
	group map[string]*[metrics][2]int
}

// coverage computes heldOut over the rows.
func coverage(rs []intervalRow) heldOut {
	camps := map[string]bool{}
	for _, x := range rs {
		camps[x.campaign] = true
	}
	names := make([]string, 0, len(camps))
	for c := range camps {
		names = append(names, c)
	}
	sort.Strings(names)
	h := heldOut{group: map[string]*[metrics][2]int{}}
	var rowHits, campShare [metrics]float64
	scored := 0
	for _, c := range names {
		var train, test []intervalRow
		for _, x := range rs {
			if x.campaign == c {
				test = append(test, x)
			} else {
				train = append(train, x)
			}
		}
		bands := groupBands(train)
		var hits [metrics]float64
		for _, x := range test {
			e := bands[x.group.String()]
			k := x.group.String()
			if h.group[k] == nil {
				h.group[k] = &[metrics][2]int{}
			}
			for m := 0; m < metrics; m++ {
				b := bandOf(e, m)
				in := b.P10 <= x.r[m] && x.r[m] <= b.P90
				if in {
					hits[m]++
					h.group[k][m][0]++
				}
				h.group[k][m][1]++
			}
		}
		for m := range hits {
			rowHits[m] += hits[m]
			campShare[m] += hits[m] / float64(len(test))
		}
		scored += len(test)
	}
	vals := func(v [metrics]float64, d float64) uncertainty.MetricValues {
		return uncertainty.MetricValues{TTFT: round4(v[0] / d), TPOT: round4(v[1] / d), E2E: round4(v[2] / d), OutputThroughput: round4(v[3] / d)}
	}
	h.eval = uncertainty.Evaluation{Rows: scored, Campaigns: len(names),
		Coverage: vals(rowHits, float64(scored)), CampaignMeanCoverage: vals(campShare, float64(len(names)))}
	return h
}

// writeIntervals estimates the default model's bands from the cross-validated predictions,
// writes them to path (simcore/uncertainty/bands.json) and prints the held-out coverage.
func writeIntervals(w io.Writer, path string, prep []rows.Prepared, c perf.Calibration) error {
	res, _ := logoFolds(prep, c)
	replicas := map[*rows.Row]int{}
	for i := range prep {
		if p := &prep[i]; p.T != nil {
			replicas[p.Row] = p.T.AggWorkers
		}
	}
	rs := intervalRows(res, replicas)
	cov := coverage(rs)
	f := uncertainty.File{
		Note: "Written by `make intervals` (tools/calibrate -intervals): 80 % bands of ln(measured / predicted) of the default timing model, " +
			"from leave-one-campaign-out residuals on the measured-runs CSV, per backend/mode/load regime; quantiles only, no rows; see docs/uncertainty.md.",
		CalibrationSHA256: perf.CalibrationSHA256(),
		Shrinkage:         uncertainty.Shrinkage,
		Evaluation:        cov.eval,
		Groups:            groupBands(rs),
	}
	b, err := json.MarshalIndent(&f, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return err
	}
	e := cov.eval
	fmt.Fprintf(w, "held-out coverage of the nominal 80 %% intervals (%d rows, %d campaigns; each campaign against bands estimated without it)\n", e.Rows, e.Campaigns)
	fmt.Fprintf(w, "%-22s %6s %7s %7s %7s %7s   %s\n", "group", "rows", "TTFT", "TPOT", "E2E", "thr", "band TTFT / TPOT (ratio measured/predicted)")
	fmt.Fprintf(w, "%-22s %6d %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n", "all rows", e.Rows, 100*e.Coverage.TTFT, 100*e.Coverage.TPOT, 100*e.Coverage.E2E, 100*e.Coverage.OutputThroughput)
	fmt.Fprintf(w, "%-22s %6d %6.1f%% %6.1f%% %6.1f%% %6.1f%%\n", "mean over campaigns", e.Campaigns, 100*e.CampaignMeanCoverage.TTFT, 100*e.CampaignMeanCoverage.TPOT, 100*e.CampaignMeanCoverage.E2E, 100*e.CampaignMeanCoverage.OutputThroughput)
	keys := make([]string, 0, len(f.Groups))
	for k := range f.Groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		g := f.Groups[k]
		line := fmt.Sprintf("%-22s %6d", k, g.TTFT.N)
		if c := cov.group[k]; c != nil {
			for m := 0; m < metrics; m++ {
				line += fmt.Sprintf(" %6.1f%%", 100*float64(c[m][0])/float64(c[m][1]))
			}
		} else {
			line += fmt.Sprintf(" %7s %7s %7s %7s", "–", "–", "–", "–")
		}
		fmt.Fprintf(w, "%s   ×%.2f–%.2f / ×%.2f–%.2f\n", line, math.Exp(g.TTFT.P10), math.Exp(g.TTFT.P90), math.Exp(g.TPOT.P10), math.Exp(g.TPOT.P90))
	}
	return nil
}
