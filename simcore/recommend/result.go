package recommend

import (
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// SchemaVersion is recommendation.json's schema_version.
const SchemaVersion = "1.0"

// TopN is how many ranked candidates views.top_n (and the rows, files and stdout of a
// single-objective target) hold.
const TopN = 10

// wallClockKeys are the summary keys that depend on the host (docs/semantics/outputs.md §3.3); candidate
// metrics leave them out so the result depends only on the inputs.
var wallClockKeys = []string{report.KeyWallTimeMs, report.KeyProcessedTokensPerS, report.KeyProcessedOutputTokensPerS}

// csvMetrics are the summary metrics recommendation.csv carries, in column order.
var csvMetrics = []string{report.KeyCompletedRequests, report.KeyOutputThroughputTokS, report.KeyRequestThroughputRPS,
	report.KeyGoodputOutputThroughputTokS, report.KeyGoodputRequestThroughputRPS, report.TTFT.Key(report.Mean), report.TTFT.Key(report.P99),
	report.ITL.Key(report.Mean), report.TPOT.Key(report.Mean), report.E2ELatency.Key(report.Mean), report.E2ELatency.Key(report.P99),
	report.OutputTokenThroughputPerUser.Key(report.Mean), report.KeyGPUHours, report.KeyDurationMs}

// Provenance is what the caller adds to the result's provenance.
type Provenance struct {
	// ModuleVersion is the program version.
	ModuleVersion string
	// WallTimeMs is the whole search's wall time, the only host-dependent value.
	WallTimeMs float64
	// WorkBudgetSteps is the per-candidate work budget in event-loop steps.
	WorkBudgetSteps int64
	// Distrusted are the remote evaluators found answering wrong outcomes, in the order they
	// were found (docs/recommend.md, "Checking remote workers"); their outcomes were all
	// recomputed locally. Empty for a run without remote evaluators or with honest ones.
	Distrusted []Distrusted
	// Calibration is the provenance's `calibration` object when calibration profiles were
	// given (which profiles, by hash; whether strict), nil otherwise: then the key is absent.
	Calibration map[string]any
}

// Distrusted is one remote evaluator whose answers were not used, and why.
type Distrusted struct {
	// Remote is the --remote URL; Reason what proved it wrong.
	Remote, Reason string
}

// Named are the candidates the result names, in this order without repeats: views.top_n,
// the rows (the Pareto front for pareto), and every candidate of the deployments the readable
// table lists (ReadableTable), folded ones included. They are the ones whose outcomes a remote
// check always recomputes (docs/recommend.md, "Checking remote workers").
func (r *Result) Named() []*Candidate {
	named := slices.Clone(r.Ranked[:min(TopN, len(r.Ranked))])
	for _, row := range r.Rows {
		named = append(named, row.Candidate)
	}
	rows := r.tableRows(r.slaText() != "")
	for _, d := range slices.Concat(rows.above, rows.below) {
		named = append(append(named, d.Best), d.Alike...)
	}
	seen := map[*Candidate]bool{}
	out := named[:0]
	for _, c := range named {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// Row is one ranked recommendation.
type Row struct {
	Rank      int
	Candidate *Candidate
	// File is the configuration file name relative to the output directory.
	File string
}

// File is one output file: a name relative to the output directory and its bytes.
type File struct {
	Name string
	Data []byte
}

// Result is everything `recommend` writes and prints.
type Result struct {
	// JSON is recommendation.json (pretty canonical JSON), CSV recommendation.csv.
	JSON []byte
	CSV  []byte
	// Configs are recommendations/NNNN.yaml, one per row, in rank order.
	Configs []File
	Rows    []Row
	// Objectives are the objective names of the target.
	Objectives []string
	// Feasible is the number of feasible candidates.
	Feasible int
	// Ranked are the feasible candidates in rank order (Rows are the first TopN of them, or
	// the Pareto front).
	Ranked []*Candidate
	// Rec is the recommendation searched, Space its search space.
	Rec   *spec.Recommendation
	Space *Space
	// Stats is how far the search went.
	Stats SearchStats
	// Distrusted are the remote evaluators whose outcomes were replaced (Provenance.Distrusted).
	Distrusted []Distrusted
	// WithinError are the rows after rank 1 whose objective interval overlaps rank 1's
	// (WithinError).
	WithinError []*Candidate
}

// Result encodes the finished search.
func (s *Search) Result(prov Provenance) (*Result, error) {
	rec := s.space.Rec
	names := rec.Objectives()
	ranked := Rank(s.cands)
	res := &Result{Objectives: names, Ranked: ranked, Rec: rec, Space: s.space, Stats: s.Stats(), Distrusted: prov.Distrusted}
	res.Feasible = len(ranked)
	var rowsC []*Candidate
	front := []*Candidate{}
	if rec.Optimization.Target == spec.TargetPareto {
		front = ParetoFront(s.cands)
		rowsC = front
	} else {
		rowsC = ranked[:min(TopN, len(ranked))]
	}
	for i, c := range rowsC {
		name := fmt.Sprintf("recommendations/%04d.yaml", i+1)
		res.Rows = append(res.Rows, Row{Rank: i + 1, Candidate: c, File: name})
		res.Configs = append(res.Configs, File{Name: name, Data: spec.EmitYAML(c.Tree)})
	}
	res.WithinError = WithinError(res.Rows, rec.Optimization.Target, names)
	counts := map[string]any{"evaluated": len(s.cands), "cache_hits": len(s.trials) - len(s.cands)}
	for _, st := range []string{StatusFeasible, StatusInfeasible, StatusUnsupported, StatusTimedOut, StatusFailed} {
		counts[st] = 0
	}
	cands := make([]any, 0, len(s.cands))
	for _, c := range s.cands {
		counts[c.Status] = counts[c.Status].(int) + 1
		cands = append(cands, s.candidateJSON(c, names))
	}
	ids := func(cs []*Candidate) []string {
		out := make([]string, 0, len(cs))
		for _, c := range cs {
			out = append(out, c.ID)
		}
		return out
	}
	doc := map[string]any{
		"schema_version":      SchemaVersion,
		"candidate_retention": "all",
		"counts":              counts,
		"candidates":          cands,
		"views": map[string]any{"top_n": ids(ranked[:min(TopN, len(ranked))]), "pareto_front": ids(front),
			"within_model_error": ids(res.WithinError)},
		"provenance": s.provenance(prov, names, res.Stats),
	}
	var err error
	if res.JSON, err = canon.Pretty(doc); err != nil {
		return nil, err
	}
	if res.CSV, err = s.csv(names); err != nil {
		return nil, err
	}
	return res, nil
}

// candidateMetrics is a simulated candidate's summary without the wall-clock keys, as
// recommendation.json's `metrics` holds it; nil when the candidate was not simulated.
func candidateMetrics(c *Candidate) map[string]any {
	if c.Summary == nil {
		return nil
	}
	m := make(map[string]any, len(c.Summary))
	for k, v := range c.Summary {
		m[k] = v
	}
	for _, k := range wallClockKeys {
		delete(m, k)
	}
	return m
}

func finiteOrNil(x float64) any {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return x
}

func (s *Search) candidateJSON(c *Candidate, names []string) map[string]any {
	trials := make([]int, len(c.Trials))
	for i, t := range c.Trials {
		trials[i] = t + 1
	}
	out := map[string]any{
		"candidate_id":        c.ID,
		"status":              c.Status,
		"config":              s.space.ConfigOf(c.Point),
		"prediction_config":   spec.PlainTree(c.Tree),
		"used_gpus":           c.UsedGPUs,
		"score":               nil,
		"metrics":             nil,
		"objectives":          nil,
		"reason_category":     nil,
		"reason":              nil,
		"provenance":          map[string]any{"trials": trials, "cache_hits": len(c.Trials) - 1},
		report.KeyIntervals:   nil,
		"objective_intervals": nil,
	}
	if c.Intervals != nil {
		out[report.KeyIntervals] = c.Intervals
	}
	if s.space.Rec.Optimization.GPUHourCost != nil {
		out["cost"] = costJSON(c.Cost)
	}
	if m := candidateMetrics(c); m != nil {
		out["metrics"] = m
	}
	if c.Objectives != nil {
		obj := map[string]any{}
		for i, n := range names {
			obj[n] = finiteOrNil(c.Objectives[i])
		}
		out["objectives"] = obj
		out["objective_intervals"] = objectiveIntervals(c, names)
		sc := c.Objectives[0]
		if minimised(s.space.Rec.Optimization.Target) {
			sc = -sc
		}
		out["score"] = finiteOrNil(sc)
	}
	if c.Status != StatusFeasible {
		out["reason_category"] = c.ReasonCategory
		out["reason"] = c.Reason
	}
	return out
}

func (s *Search) provenance(prov Provenance, names []string, st SearchStats) map[string]any {
	rec := s.space.Rec
	params := make([]any, 0, len(s.space.Params))
	for _, p := range s.space.Params {
		e := map[string]any{"name": p.Name}
		if p.Continuous {
			scale := spec.ScaleLinear
			if p.Log {
				scale = spec.ScaleLog
			}
			e["range"] = map[string]any{"min": p.Min, "max": p.Max, "scale": scale, "integer": p.Int}
		} else {
			e["values"] = len(p.Values)
		}
		params = append(params, e)
	}
	out := map[string]any{
		"module_version":            prov.ModuleVersion,
		"stack":                     spec.Stack,
		"algorithm":                 s.opt.Algorithm,
		"seed":                      s.opt.Seed,
		"max_trials":                s.opt.MaxTrials,
		"trials":                    len(s.trials),
		"candidate_timeout_seconds": s.opt.CandidateTimeoutSeconds,
		"work_budget_steps":         prov.WorkBudgetSteps,
		"target":                    rec.Optimization.Target,
		"objectives":                names,
		"search_space":              params,
		"coverage_trials":           min(len(s.cover), len(s.trials)),
		"refit_block":               Block,
		"wall_time_ms":              prov.WallTimeMs,
		"space_points":              nil,
		"best_trial":                nil,
		"warnings":                  append([]string{}, st.Warnings...),
	}
	if !math.IsInf(st.SpacePoints, 1) {
		out["space_points"] = int64(st.SpacePoints)
	}
	if prov.Calibration != nil {
		cal := map[string]any{}
		for k, v := range prov.Calibration {
			cal[k] = v
		}
		cal["calibrated_candidates"] = s.calibratedCandidates()
		out["calibration"] = cal
	}
	out["screen"] = nil
	if sc := s.ScreenStats(); sc != nil {
		out["screen"] = map[string]any{"points": sc.Points, "priced": sc.Priced, "compared": sc.Compared,
			"rank_correlation": finiteOrNil(sc.RankCorrelation)}
	}
	if st.BestTrial > 0 {
		out["best_trial"] = st.BestTrial
	}
	// Only a run that distrusted a remote has the key, so an honest remote's result stays
	// byte-identical to a local one.
	if len(prov.Distrusted) > 0 {
		d := make([]any, len(prov.Distrusted))
		for i, r := range prov.Distrusted {
			d[i] = map[string]any{"remote": r.Remote, "reason": r.Reason}
		}
		out["distrusted_remotes"] = d
	}
	return out
}

// flatten writes the leaves of a tree value under prefix into out.
func flatten(prefix string, v any, out map[string]any) {
	if m, ok := v.(map[string]any); ok {
		for k, e := range m {
			flatten(prefix+"."+k, e, out)
		}
		return
	}
	out[prefix] = v
}

func csvCell(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		if strings.ContainsAny(x, ",\"\n\r") {
			return `"` + strings.ReplaceAll(x, `"`, `""`) + `"`, nil
		}
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", nil
		}
	}
	b, err := canon.Compact(v)
	return string(b), err
}

// csv is recommendation.csv: one row per candidate in candidate order; columns
// candidate_id, status, used_gpus, score, the objectives, the flattened search-space point
// (config.<path>, sorted), the key metrics, reason_category and reason.
func (s *Search) csv(names []string) ([]byte, error) {
	configs := make([]map[string]any, len(s.cands))
	colSet := map[string]bool{}
	for i, c := range s.cands {
		configs[i] = map[string]any{}
		for k, v := range s.space.ConfigOf(c.Point) {
			flatten("config."+k, v, configs[i])
		}
		for k := range configs[i] {
			colSet[k] = true
		}
	}
	var cfgCols []string
	for k := range colSet {
		cfgCols = append(cfgCols, k)
	}
	sort.Strings(cfgCols)
	header := append([]string{"candidate_id", "status", "used_gpus", "score"}, names...)
	header = append(header, cfgCols...)
	header = append(header, csvMetrics...)
	header = append(header, "reason_category", "reason")
	var b strings.Builder
	b.WriteString(strings.Join(header, ",") + "\n")
	for i, c := range s.cands {
		j := s.candidateJSON(c, names)
		row := []any{c.ID, c.Status, int64(c.UsedGPUs), j["score"]}
		for _, n := range names {
			var v any
			if obj, ok := j["objectives"].(map[string]any); ok {
				v = obj[n]
			}
			row = append(row, v)
		}
		for _, k := range cfgCols {
			row = append(row, configs[i][k])
		}
		for _, k := range csvMetrics {
			var v any
			if c.Summary != nil {
				v = c.Summary[k]
			}
			row = append(row, v)
		}
		row = append(row, j["reason_category"], j["reason"])
		cells := make([]string, len(row))
		for k, v := range row {
			cell, err := csvCell(v)
			if err != nil {
				return nil, err
			}
			cells[k] = cell
		}
		b.WriteString(strings.Join(cells, ",") + "\n")
	}
	return []byte(b.String()), nil
}

// fmtG formats like Python's format(v, ".4g") (Go's %.4g agrees for finite values).
func fmtG(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// objectiveIntervals is a simulated candidate's {objective: {p10, p90} | null}
// (ObjectiveInterval).
func objectiveIntervals(c *Candidate, names []string) map[string]any {
	out := map[string]any{}
	for i, n := range names {
		out[n] = nil
		if lo, hi, ok := ObjectiveInterval(c, names, i); ok {
			out[n] = map[string]any{report.KeyIntervalP10: lo, report.KeyIntervalP90: hi}
		}
	}
	return out
}

// Table is the `--format table` standard output (docs/recommend.md, "Outputs"): one line per row,
// "<rank>: <objective>=<value .4g> [<objective>_p10=… <objective>_p90=…] … used_gpus=N
// config=<path>", the WithinErrorText line when ranks overlap rank 1, then the result path.
func (r *Result) Table(outputDir string) string {
	var b strings.Builder
	b.WriteString("AISimulate recommendations\n")
	for _, row := range r.Rows {
		parts := []string{}
		for i, n := range r.Objectives {
			parts = append(parts, n+"="+fmtG(row.Candidate.Objectives[i]))
			if lo, hi, ok := ObjectiveInterval(row.Candidate, r.Objectives, i); ok {
				parts = append(parts, n+"_p10="+fmtG(lo), n+"_p90="+fmtG(hi))
			}
		}
		parts = append(parts, "used_gpus="+strconv.Itoa(row.Candidate.UsedGPUs), "config="+path.Join(outputDir, row.File))
		b.WriteString(strconv.Itoa(row.Rank) + ": " + strings.Join(parts, " ") + "\n")
	}
	if len(r.Objectives) > 0 {
		if t := WithinErrorText(r.Rows, r.WithinError, r.Objectives[0]); t != "" {
			b.WriteString(t + "\n")
		}
	}
	b.WriteString("Saved full result to: " + path.Join(outputDir, "recommendation.json") + "\n")
	return b.String()
}

// StdoutJSON is the `--format json` standard output: a JSON array of rows {rank, score,
// objectives, objective_intervals, within_model_error, used_gpus, config_path}, compact
// canonical JSON and a newline.
func (r *Result) StdoutJSON(outputDir string) ([]byte, error) {
	within := map[*Candidate]bool{}
	for _, c := range r.WithinError {
		within[c] = true
	}
	rows := make([]any, 0, len(r.Rows))
	for _, row := range r.Rows {
		obj := map[string]any{}
		for i, n := range r.Objectives {
			obj[n] = finiteOrNil(row.Candidate.Objectives[i])
		}
		rows = append(rows, map[string]any{
			"rank":                row.Rank,
			"score":               finiteOrNil(row.Candidate.Score),
			"objectives":          obj,
			"objective_intervals": objectiveIntervals(row.Candidate, r.Objectives),
			"within_model_error":  within[row.Candidate],
			"used_gpus":           row.Candidate.UsedGPUs,
			"config_path":         path.Join(outputDir, row.File),
		})
	}
	b, err := canon.Compact(rows)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
