// Command calibinterp measures the calibrated-interpolation target of docs/calibration.md:
// for every measured curve (one deployment measured at several concurrencies) of a
// measured-runs CSV, calibrate on its lowest- and highest-concurrency rows, predict the rows
// between with the profile, and report the MAPE of mean TTFT and TPOT, calibrated and
// uncalibrated, on those rows: over all curves, and apart over the curves whose measurements
// calibrate warns about (simcore.MeasurementWarnings) and those it does not. It also reports
// how many of those rows' measured means the predictions' 80 % intervals hold, and the
// smallest floor of the calibrated bands' half-width at which they would hold 80 % (the
// measurement behind calibration.MinHalfWidth, docs/calibration.md "Calibrated intervals").
//
//	go run ./tools/calibinterp [-mode agg|disagg|all] [-every N] [-spread S [-predict-spread P]] [-curve ID] [-v] MEASURED.csv
//
// -spread S (in (0, 1)) replays every row, in the fit and in the predictions between, with
// request lengths drawn uniformly in [S·L, L], L the row's isl and osl (calibrate --lengths
// '{distribution: uniform, min_ratio: S}', the draw of serving benchmarks' random range
// ratio) instead of constant lengths; -predict-spread P predicts the rows between with another spread than the fit's
// (0: constant lengths).
//
// The CSV is read, never written or copied; rows are replayed as recorded
// (calibration.RowConfig), so curves whose recorded deployment the simulator refuses are
// counted as not covered.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

func main() {
	mode := flag.String("mode", "agg", "curves of this mode: agg, disagg or all")
	every := flag.Int("every", 1, "only every N-th curve (by a hash of curve_id), to sample a large CSV")
	verbose := flag.Bool("v", false, "print every predicted row")
	spread := flag.Float64("spread", 0, "request lengths uniform in [spread·L, L] in the fit and the predictions (0 = constant lengths)")
	predictSpread := flag.Float64("predict-spread", -1, "the predictions' spread when it differs from the fit's (-1 = -spread)")
	only := flag.String("curve", "", "only the curves whose curve_id starts with this")
	flag.Parse()
	if *predictSpread < 0 {
		*predictSpread = *spread
	}
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: calibinterp [-mode agg|disagg|all] [-every N] [-spread S [-predict-spread P]] [-curve ID] [-v] MEASURED.csv")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "calibinterp:", err)
		os.Exit(1)
	}
	header, _, _ := strings.Cut(string(data), "\n")
	ms, err := measure.Read(flag.Arg(0), data)
	if err != nil {
		// Rows without a concurrency cannot be replayed: keep the others.
		ms = nil
		rows, perr := measure.ParseCSV(flag.Arg(0), data)
		if perr != nil {
			fmt.Fprintln(os.Stderr, "calibinterp:", perr)
			os.Exit(1)
		}
		for i := range rows {
			r := &rows[i]
			if r.Concurrency > 0 && r.TTFT > 0 && r.TPOT > 0 && r.ISL > 0 && r.OSL > 0 {
				ms = append(ms, r.Measurement("csv")) // as the CSV reader gives it
			}
		}
	}
	lines := map[string]string{}
	for _, l := range strings.Split(string(data), "\n")[1:] {
		if id := csvField(l, 1); id != "" {
			lines[id] = l
		}
	}
	curves := map[string][]*measure.Measurement{}
	var ids []string
	for i := range ms {
		m := &ms[i]
		if *mode != "all" && m.Row.Mode != *mode {
			continue
		}
		if !strings.HasPrefix(m.Row.CurveID, *only) {
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(m.Row.CurveID))
		if int(h.Sum32()%uint32(*every)) != 0 {
			continue
		}
		if _, ok := curves[m.Row.CurveID]; !ok {
			ids = append(ids, m.Row.CurveID)
		}
		curves[m.Row.CurveID] = append(curves[m.Row.CurveID], m)
	}
	sort.Strings(ids)
	// All curves, then those whose measurements calibrate warns about (simcore.
	// MeasurementWarnings of the whole curve: its own rule, docs/calibration.md, "Measurements
	// that contradict a closed loop") and those it does not.
	all, warned, clean := newTally("all curves"), newTally("curves calibrate warns about"), newTally("curves without a warning")
	curvesUsed, curvesFailed, start := 0, 0, time.Now()
	for _, id := range ids {
		c := curves[id]
		sort.SliceStable(c, func(i, j int) bool { return c[i].Concurrency < c[j].Concurrency })
		if len(c) < 3 || c[0].Concurrency == c[len(c)-1].Concurrency {
			continue
		}
		lo, hi := c[0], c[len(c)-1]
		csv := header + "\n" + lines[lo.ID] + "\n" + lines[hi.ID] + "\n"
		out, err := simcore.Calibrate(simcore.CalibrateInput{Measurements: []simcore.NamedFile{{Name: id + ".csv", Data: []byte(csv)}}, Lengths: oneSided(*spread)})
		if err != nil {
			curvesFailed++
			if *verbose {
				fmt.Printf("curve %s: not calibrated: %v\n", id, err)
			}
			continue
		}
		curvesUsed++
		var prof spec.Profile
		if err := json.Unmarshal(out.ProfileJSON, &prof); err != nil || len(prof.Entries) != 1 {
			fmt.Fprintln(os.Stderr, "calibinterp: curve", id, "does not give one profile entry")
			os.Exit(1)
		}
		res := &prof.Entries[0].Residuals
		// Predict the rows between first: a row calibrate would refuse (its replay's KV
		// capacity cannot hold the measured load) or that does not predict is left out of the
		// figures and of the warning check alike.
		type predicted struct {
			m      *measure.Measurement
			u, k   map[string]any
			ui, ki map[string]any // the predictions' intervals
		}
		var rows []predicted
		whole := header + "\n" + lines[lo.ID] + "\n" + lines[hi.ID] + "\n"
		for _, m := range c[1 : len(c)-1] {
			if m.Concurrency == lo.Concurrency || m.Concurrency == hi.Concurrency {
				continue
			}
			one := header + "\n" + lines[m.ID] + "\n"
			if _, err := simcore.MeasurementWarnings(simcore.CalibrateInput{Measurements: []simcore.NamedFile{{Name: m.ID + ".csv", Data: []byte(one)}}, Lengths: oneSided(*spread)}); err != nil {
				if *verbose {
					fmt.Printf("%s c=%d: left out: %v\n", m.ID, m.Concurrency, err)
				}
				continue
			}
			drawn := *m // the row as its client drew it
			drawn.Lengths = oneSided(*predictSpread)
			yaml := spec.EmitYAML(calibration.RowConfig(&drawn))
			zero := 0.0
			in := simcore.Input{ConfigName: m.ID, ConfigYAML: yaml, FixedWallTimeMs: &zero}
			u, err := simcore.Predict(in)
			if err != nil {
				continue
			}
			in.Calibrations = []simcore.NamedFile{{Name: "calibration.json", Data: out.ProfileJSON}}
			k, err := simcore.Predict(in)
			if err != nil {
				continue
			}
			rows = append(rows, predicted{&drawn, u.Summary, k.Summary, u.Intervals, k.Intervals})
			whole += lines[m.ID] + "\n"
		}
		ws, err := simcore.MeasurementWarnings(simcore.CalibrateInput{Measurements: []simcore.NamedFile{{Name: id + ".csv", Data: []byte(whole)}}, Lengths: oneSided(*spread)})
		if err != nil {
			fmt.Fprintln(os.Stderr, "calibinterp: curve", id, err)
			os.Exit(1)
		}
		side := clean
		if len(ws) > 0 {
			side = warned
		}
		side.curves++
		all.curves++
		if *verbose {
			fmt.Printf("curve %s (%s, %s, %s, %d/%d, c %d–%d, %d warnings): %s\n", id, lo.Model, lo.Row.System, lo.Backend, lo.ISL, lo.OSL, lo.Concurrency, hi.Concurrency, len(ws), fitSummary(out))
			for _, w := range ws {
				fmt.Printf("  warning: %s\n", w)
			}
		}
		for _, r := range rows {
			m := r.m
			all.add(m, r.k, r.u, r.ki, r.ui, res)
			side.add(m, r.k, r.u, r.ki, r.ui, res)
			if *verbose {
				fmt.Printf("%s c=%d: TTFT %.1f uncal %.1f cal %.1f | TPOT %.2f uncal %.2f cal %.2f\n", m.ID, m.Concurrency,
					m.TTFT, num(r.u, report.TTFT.Key(report.Mean)), num(r.k, report.TTFT.Key(report.Mean)),
					m.TPOT, num(r.u, report.TPOT.Key(report.Mean)), num(r.k, report.TPOT.Key(report.Mean)))
			}
		}
	}
	fmt.Printf("curves calibrated %d (not calibrated: %d), rows predicted between %d, %.0f s\n", curvesUsed, curvesFailed, all.cal.n, time.Since(start).Seconds())
	for _, t := range []*tally{all, warned, clean} {
		t.print()
	}
}

// tally is the scores of a set of curves: calibrated and uncalibrated, overall and per
// backend.
type tally struct {
	name      string
	curves    int
	cal, unc  score
	byBackend map[string]*[2]score // calibrated, uncalibrated
}

func newTally(name string) *tally { return &tally{name: name, byBackend: map[string]*[2]score{}} }

// add scores one predicted row: its calibrated (k) and uncalibrated (u) summaries, their
// intervals (ki, ui) and the calibrating profile entry's residuals.
func (t *tally) add(m *measure.Measurement, k, u, ki, ui map[string]any, res *spec.ProfileResiduals) {
	t.cal.add(m, k, ki, res)
	t.unc.add(m, u, ui, nil)
	if t.byBackend[m.Backend] == nil {
		t.byBackend[m.Backend] = &[2]score{}
	}
	t.byBackend[m.Backend][0].add(m, k, ki, res)
	t.byBackend[m.Backend][1].add(m, u, ui, nil)
}

func (t *tally) print() {
	fmt.Printf("%s: %d curves, %d rows\n", t.name, t.curves, t.cal.n)
	fmt.Printf("  calibrated:   TTFT MAPE %.1f %% (median %.1f %%), TPOT MAPE %.1f %% (median %.1f %%); TTFT above measured on %d rows; 80 %% intervals hold TTFT %.1f %%, TPOT %.1f %%\n", t.cal.mape(0), t.cal.median(0), t.cal.mape(1), t.cal.median(1), t.cal.above, t.cal.coverage(0), t.cal.coverage(1))
	fmt.Printf("  uncalibrated: TTFT MAPE %.1f %% (median %.1f %%), TPOT MAPE %.1f %% (median %.1f %%); 80 %% intervals hold TTFT %.1f %%, TPOT %.1f %%\n", t.unc.mape(0), t.unc.median(0), t.unc.mape(1), t.unc.median(1), t.unc.coverage(0), t.unc.coverage(1))
	fmt.Printf("  calibrated: smallest band floor (ln) holding 80 %% of rows: TTFT %.3f, TPOT %.3f, E2E %.3f, output throughput %.3f\n",
		t.cal.floor80(0), t.cal.floor80(1), t.cal.floor80(2), t.cal.floor80(3))
	backends := make([]string, 0, len(t.byBackend))
	for b := range t.byBackend {
		backends = append(backends, b)
	}
	sort.Strings(backends)
	for _, b := range backends {
		s := t.byBackend[b]
		fmt.Printf("  %-8s %3d rows: calibrated TTFT %.1f %% (median %.1f %%), TPOT %.1f %% (median %.1f %%); uncalibrated TTFT %.1f %%, TPOT %.1f %%\n",
			b, s[0].n, s[0].mape(0), s[0].median(0), s[0].mape(1), s[0].median(1), s[1].mape(0), s[1].mape(1))
	}
}

// score collects absolute percentage errors of mean TTFT (0) and TPOT (1), how many
// predicted TTFTs lie above the measured one, and how many measured means the predictions'
// 80 % intervals hold (of the rows that have intervals).
type score struct {
	n, above int
	ape      [2][]float64
	held     [2]int
	banded   [2]int
	// spread is, per calibrated metric (bandMetrics), each row's residual against its
	// profile entry's residual band, from which the smallest band half-width holding 80 % of
	// the rows is found (floor80).
	spread [4][]bandRow
}

// bandRow is one predicted row's residual r = ln(measured / predicted) of a metric and the
// half-width its entry's residuals give (calibration.ResidualHalfWidth) about their mean.
type bandRow struct{ r, mean, half float64 }

// bandMetrics are the metrics of a profile's residuals, in score.spread order.
var bandMetrics = []struct {
	key      string
	band     func(spec.ProfileResiduals) spec.ProfileBand
	measured func(calibration.Metrics) float64
}{
	{report.TTFT.Key(report.Mean), func(r spec.ProfileResiduals) spec.ProfileBand { return r.TTFT }, func(m calibration.Metrics) float64 { return m.TTFT }},
	{report.TPOT.Key(report.Mean), func(r spec.ProfileResiduals) spec.ProfileBand { return r.TPOT }, func(m calibration.Metrics) float64 { return m.TPOT }},
	{report.E2ELatency.Key(report.Mean), func(r spec.ProfileResiduals) spec.ProfileBand { return r.E2E }, func(m calibration.Metrics) float64 { return m.E2E }},
	{report.KeyOutputThroughputTokS, func(r spec.ProfileResiduals) spec.ProfileBand { return r.OutputThroughput }, func(m calibration.Metrics) float64 { return m.OutputThroughput }},
}

func (s *score) add(m *measure.Measurement, summary, intervals map[string]any, res *spec.ProfileResiduals) {
	s.n++
	if num(summary, report.TTFT.Key(report.Mean)) > m.TTFT {
		s.above++
	}
	s.ape[0] = append(s.ape[0], 100*math.Abs(num(summary, report.TTFT.Key(report.Mean))/m.TTFT-1))
	s.ape[1] = append(s.ape[1], 100*math.Abs(num(summary, report.TPOT.Key(report.Mean))/m.TPOT-1))
	measured := calibration.MeasuredMetrics(m)
	for i, b := range bandMetrics {
		x := b.measured(measured)
		if i < len(s.held) { // coverage of TTFT and TPOT
			if p10, p90, ok := report.IntervalOf(intervals, b.key); ok {
				s.banded[i]++
				if p10 <= x && x <= p90 {
					s.held[i]++
				}
			}
		}
		if v := num(summary, b.key); res != nil && v > 0 && x > 0 {
			band := b.band(*res)
			s.spread[i] = append(s.spread[i], bandRow{r: math.Log(x / v), mean: band.Mean, half: calibration.ResidualHalfWidth(band)})
		}
	}
}

// floor80 is the smallest floor H of the band half-width, max(residual half-width, H) about
// the residuals' mean, at which the bands hold 80 % of the rows of metric i (NaN with no rows):
// what the model's own error between calibrated loads needs beyond the profile's residuals.
func (s *score) floor80(i int) float64 {
	rows := s.spread[i]
	if len(rows) == 0 {
		return math.NaN()
	}
	need := int(math.Ceil(0.8 * float64(len(rows))))
	var beyond []float64 // the distances the residual half-width does not hold
	for _, r := range rows {
		if d := math.Abs(r.r - r.mean); d > r.half {
			beyond = append(beyond, d)
		}
	}
	held := len(rows) - len(beyond)
	if held >= need {
		return 0
	}
	sort.Float64s(beyond)
	return beyond[need-held-1]
}

// coverage is the share of the measured means of metric i that their 80 % intervals hold (%).
func (s *score) coverage(i int) float64 {
	return 100 * float64(s.held[i]) / float64(max(s.banded[i], 1))
}

func (s *score) mape(i int) float64 {
	var t float64
	for _, v := range s.ape[i] {
		t += v
	}
	return t / float64(max(len(s.ape[i]), 1))
}

func (s *score) median(i int) float64 {
	v := append([]float64(nil), s.ape[i]...)
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	return v[len(v)/2]
}

func num(s map[string]any, k string) float64 { v, _ := report.Number(s[k]); return v }

// csvField is the i-th comma-separated field of a line (the measured CSV quotes nothing in
// its first columns).
func csvField(line string, i int) string {
	f := strings.Split(line, ",")
	if i < len(f) {
		return f[i]
	}
	return ""
}

// fitSummary is a calibration's fitted parameters and its residuals at the two ends, one line.
func fitSummary(out *simcore.CalibrateOutput) string {
	var p spec.Profile
	if err := json.Unmarshal(out.ProfileJSON, &p); err != nil || len(p.Entries) == 0 {
		return "?"
	}
	q := calibration.FromProfile(p.Entries[0].Parameters)
	s := ""
	q.Fields(func(name string, v float64) { s += fmt.Sprintf(" %s %.4g", name, v) })
	for _, r := range out.Fit {
		s += fmt.Sprintf(" | TTFT %.0f→%.0f (meas %.0f) TPOT %.2f→%.2f (meas %.2f)", r.Uncalibrated.TTFT, r.Calibrated.TTFT, r.Measured.TTFT, r.Uncalibrated.TPOT, r.Calibrated.TPOT, r.Measured.TPOT)
	}
	return s
}

// oneSided is the draw of a random range ratio s in (0, 1): every length uniform in [s·L, L];
// other values are constant lengths.
func oneSided(s float64) spec.Lengths {
	if s <= 0 || s >= 1 {
		return spec.Lengths{}
	}
	return spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: s, MaxRatio: 1}
}
