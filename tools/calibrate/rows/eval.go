package rows

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"aisimulate/simcore/perf"
)

// Prepared is a row with its timing models and, for aggregated rows, the surrogate replay.
type Prepared struct {
	Row *Row
	T   *Timings
	Agg perf.AggResult
	Err error // non-nil: the row cannot be priced (counts against coverage)
}

// Prepare builds timing models and replays every row with calibration c.
func Prepare(rs []Row, c *perf.Calibration) []Prepared {
	out := make([]Prepared, len(rs))
	for i := range rs {
		r := &rs[i]
		p := Prepared{Row: r}
		p.T, p.Err = Build(r, c)
		if p.Err == nil && r.Mode != "disagg" {
			dp := p.T.AggPar.AttentionData
			ranks := dp * p.T.AggWorkers
			conc := (r.Concurrency + ranks - 1) / ranks
			if Spread > 0 && Spread < 1 {
				in, out := Lengths(r, 10*conc)
				p.Agg = perf.SimAggLengths(p.T.Agg, r.Backend, conc, in, out, p.T.KVTokens, perf.PassBudget(r.Backend, dp))
			} else {
				isl, osl := r.MeanLengths()
				p.Agg = perf.SimAgg(p.T.Agg, r.Backend, conc, isl, osl, p.T.KVTokens, perf.PassBudget(r.Backend, dp))
			}
		}
		out[i] = p
	}
	return out
}

// Family is the calibration family of the row's model.
func (p *Prepared) Family() string { return perf.FamilyOf(p.T.Model) }

// GroupKey is the row's group calibration key (perf.GroupKey).
func (p *Prepared) GroupKey() string { return perf.GroupKey(p.Row.Backend, p.Family()) }

// Predict returns the predicted mean TTFT and TPOT of a prepared row under group factors g,
// family factors f (the surrogate replay's raw op sums carry no calibration) and, for a
// disaggregated row, the hand-off latency handoffMs.
func (p *Prepared) Predict(g perf.GroupCoef, f perf.FamilyCoef, handoffMs float64) (ttft, tpot float64) {
	r := p.Row
	if r.Mode == "disagg" {
		for _, d := range []*perf.Default{p.T.Prefill, p.T.Decode} {
			d.SetGroup(g)
			d.SetFamily(f)
		}
		pr, dr := r.Prefill, r.Decode
		pr.Par, dr.Par = p.T.PrefillPar, p.T.DecodePar
		pr.Workers, dr.Workers = p.T.PrefillWorkers, p.T.DecodeWorkers
		isl, osl := r.MeanLengths()
		return perf.SimDisagg(p.T.Prefill, p.T.Decode, r.Backend, r.Concurrency, isl, osl, perf.SurrogateRole(pr), perf.SurrogateRole(dr), p.T.KVTokens, handoffMs)
	}
	ge := g
	ge.Prefill *= f.Prefill
	ge.Decode *= f.Decode
	return p.Agg.TTFT.Eval(ge), p.Agg.TPOT.Eval(ge)
}

// Score accumulates absolute percentage errors.
type Score struct {
	N, Eligible     int
	TTFTAPE, TPOAPE float64
}

// Add records one priced row.
func (s *Score) Add(r *Row, ttft, tpot float64) {
	s.N++
	s.TTFTAPE += math.Abs(ttft/r.TTFT - 1)
	s.TPOAPE += math.Abs(tpot/r.TPOT - 1)
}

// MAPE returns (TTFT, TPOT) MAPE in percent.
func (s *Score) MAPE() (float64, float64) {
	if s.N == 0 {
		return math.NaN(), math.NaN()
	}
	return 100 * s.TTFTAPE / float64(s.N), 100 * s.TPOAPE / float64(s.N)
}

// Prediction is one row's outcome for reporting.
type Prediction struct {
	Row        *Row
	TTFT, TPOT float64
	Err        error
}

// WriteReport prints MAPE per hardware/backend/mode, overall, on fitted and held-out
// curves, and coverage; rows that could not be priced are listed.
func WriteReport(w io.Writer, preds []Prediction) {
	groups := map[string]*Score{}
	var all, fit, hold, aggCov, disCov Score
	slices := map[string]*APEs{}
	var failed []Prediction
	for _, p := range preds {
		r := p.Row
		key := r.System + "/" + r.Backend + "/" + r.Mode
		g := groups[key]
		if g == nil {
			g = &Score{}
			groups[key] = g
		}
		g.Eligible++
		all.Eligible++
		cov := &aggCov
		if r.Mode == "disagg" {
			cov = &disCov
		}
		cov.Eligible++
		if p.Err != nil {
			failed = append(failed, p)
			continue
		}
		cov.N++
		g.Add(r, p.TTFT, p.TPOT)
		all.Add(r, p.TTFT, p.TPOT)
		if slices[r.Slice()] == nil {
			slices[r.Slice()] = &APEs{}
		}
		slices[r.Slice()].Add(r, p.TTFT, p.TPOT)
		if r.HeldOut() {
			hold.Add(r, p.TTFT, p.TPOT)
		} else {
			fit.Add(r, p.TTFT, p.TPOT)
		}
	}
	keys := make([]string, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "%-32s %6s %6s %9s %9s\n", "hardware/backend/mode", "rows", "priced", "TTFT%", "TPOT%")
	for _, k := range keys {
		g := groups[k]
		a, b := g.MAPE()
		fmt.Fprintf(w, "%-32s %6d %6d %9.1f %9.1f\n", k, g.Eligible, g.N, a, b)
	}
	line := func(name string, s *Score) {
		a, b := s.MAPE()
		fmt.Fprintf(w, "%-32s %6s %6d %9.1f %9.1f\n", name, "", s.N, a, b)
	}
	fmt.Fprintln(w, strings.Repeat("-", 66))
	line("overall", &all)
	line("fitted curves", &fit)
	line("held-out curves", &hold)
	fmt.Fprintf(w, "%-32s %6s %6s %16s %16s\n", "slice", "", "priced", "TTFT% (median)", "TPOT% (median)")
	for _, k := range Slices {
		if a := slices[k]; a != nil {
			fmt.Fprintf(w, "%-32s %6s %6d %7.1f (%5.1f) %7.1f (%5.1f)\n", k, "", len(a.TTFT),
				100*Mean(a.TTFT), 100*Median(a.TTFT), 100*Mean(a.TPOT), 100*Median(a.TPOT))
		}
	}
	pct := func(s Score) float64 {
		if s.Eligible == 0 {
			return 100
		}
		return 100 * float64(s.N) / float64(s.Eligible)
	}
	fmt.Fprintf(w, "coverage: aggregated %d/%d (%.1f%%), disaggregated %d/%d (%.1f%%)\n",
		aggCov.N, aggCov.Eligible, pct(aggCov), disCov.N, disCov.Eligible, pct(disCov))
	if len(failed) > 0 {
		fmt.Fprintf(w, "not priced (%d):\n", len(failed))
		for _, p := range failed {
			fmt.Fprintf(w, "  %s: %v\n", p.Row.ID, p.Err)
		}
	}
}

// APEs collects the absolute percentage errors of a set of rows, for MAPE and median APE.
type APEs struct {
	TTFT, TPOT []float64
}

// Add records one priced row.
func (a *APEs) Add(r *Row, ttft, tpot float64) {
	a.TTFT = append(a.TTFT, math.Abs(ttft/r.TTFT-1))
	a.TPOT = append(a.TPOT, math.Abs(tpot/r.TPOT-1))
}

// Mean is the mean of v (NaN when empty).
func Mean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Median is the median of v (NaN when empty).
func Median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	w := append([]float64(nil), v...)
	sort.Float64s(w)
	n := len(w)
	if n%2 == 1 {
		return w[n/2]
	}
	return (w[n/2-1] + w[n/2]) / 2
}
