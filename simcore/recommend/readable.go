package recommend

import (
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// objectiveColumn is how the readable table heads an objective: a short label and its unit.
type objectiveColumn struct{ label, unit string }

// objectiveColumns are the readable table's headings of every objective (a target name).
var objectiveColumns = map[string]objectiveColumn{
	spec.TargetThroughput:        {"throughput", "tok/s"},
	spec.TargetThroughputPerGPU:  {"per GPU", "tok/s"},
	spec.TargetThroughputPerUser: {"per user", "tok/s"},
	spec.TargetGoodput:           {"goodput", "tok/s"},
	spec.TargetGoodputPerGPU:     {"goodput/GPU", "tok/s"},
	spec.TargetTTFT:              {"mean TTFT", "ms"},
	spec.TargetE2ELatency:        {"mean E2E", "ms"},
	spec.TargetMinGPUs:           {"GPUs", ""},
	spec.TargetCost:              {"cost/Mtok", "USD"},
	spec.TargetGoodCost:          {"cost/good Mtok", "USD"},
}

// unmetShown is how many deployments none of whose requests met the SLA the readable table
// lists below its line when others did meet it.
const unmetShown = 3

// ReadableTable renders the answer for a person at a terminal `columns` wide
// (docs/recommend.md, "The answer at a terminal"): one row per distinct deployment (Distinct)
// with its GPUs, objectives with units, TTFT p50/p90, mean ITL and SLA attainment; the
// deployments none of whose requests met the SLA apart, below a line; a Pareto front ordered
// by GPUs; then how far the search went, its warnings, and where the files are. The `#` of a
// row is its rank, which is also its file's number (recommendations/NNNN.yaml) up to TopN;
// for pareto, its place in the front (every front member has a file).
func (r *Result) ReadableTable(outputDir string, columns int) string {
	columns = max(columns, 60)
	var b strings.Builder
	b.WriteString(r.heading() + "\n")
	sla := r.slaText()
	if sla != "" {
		b.WriteString("SLA: " + sla + "\n")
	}
	rows := r.tableRows(sla != "")
	b.WriteByte('\n')
	switch {
	case rows.aboveTotal == 0:
		b.WriteString("No feasible candidate.\n")
	case rows.noneMet:
		b.WriteString("No candidate met the SLA for any request; the deployments below are ranked regardless.\n")
		r.writeRows(&b, rows.above, rows.aboveTotal, columns)
	default:
		r.writeRows(&b, rows.above, rows.aboveTotal, columns)
		if rows.belowTotal > 0 {
			b.WriteString("\n── " + plural(rows.belowTotal, "deployment") + " met the SLA for no request" +
				shownOf(rows.belowTotal, len(rows.below)) + " ──\n")
			r.writeRows(&b, rows.below, 0, columns)
		}
	}
	b.WriteByte('\n')
	for _, line := range wrapAt(r.searchText(), " ", columns) {
		b.WriteString(line + "\n")
	}
	for _, w := range r.Stats.Warnings {
		for _, line := range wrapAt("warning: "+w, " ", columns) {
			b.WriteString(line + "\n")
		}
	}
	if len(r.Configs) > 0 {
		b.WriteString("Configurations: " + path.Join(outputDir, "recommendations", "NNNN.yaml") + " for # NNNN ≤ " + strconv.Itoa(len(r.Configs)) + "\n")
	}
	b.WriteString("Saved full result to: " + path.Join(outputDir, "recommendation.json") + "\n")
	return b.String()
}

// deployments are the rows' distinct deployments: the ranked candidates folded, or for
// pareto the front folded and ordered by GPUs (ties in the front's order).
func (r *Result) deployments() []Deployment {
	if r.Rec.Optimization.Target != spec.TargetPareto {
		return r.Space.Distinct(r.Ranked)
	}
	front := make([]*Candidate, len(r.Rows))
	for i, row := range r.Rows {
		front[i] = row.Candidate
	}
	ds := r.Space.Distinct(front)
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Best.UsedGPUs < ds[j].Best.UsedGPUs })
	return ds
}

func firstN(ds []Deployment, n int) []Deployment { return ds[:min(n, len(ds))] }

// tableRows are the deployments the readable table lists: above its line, and below it the
// ones that met the SLA for no request when others met it.
type tableRows struct {
	above, below []Deployment
	// aboveTotal and belowTotal count each part's deployments, listed or not.
	aboveTotal, belowTotal int
	// noneMet says that no deployment met the SLA, so the ones above are ranked regardless.
	noneMet bool
}

// tableRows splits the deployments into the table's parts (hasSLA: some SLA bound is set):
// at most TopN above the line; below it unmetShown, or for pareto the whole front.
func (r *Result) tableRows(hasSLA bool) tableRows {
	var met, unmet []Deployment
	for _, d := range r.deployments() {
		if hasSLA && attainment(d.Best.Summary) == 0 {
			unmet = append(unmet, d)
		} else {
			met = append(met, d)
		}
	}
	if len(met) == 0 {
		return tableRows{above: firstN(unmet, TopN), aboveTotal: len(unmet), noneMet: len(unmet) > 0}
	}
	shown := unmetShown
	if r.Rec.Optimization.Target == spec.TargetPareto {
		shown = len(unmet) // the whole front
	}
	return tableRows{above: firstN(met, TopN), aboveTotal: len(met), below: firstN(unmet, shown), belowTotal: len(unmet)}
}

// shownOf is ", the best N shown" when only n of total are listed.
func shownOf(total, n int) string {
	if total <= n {
		return ""
	}
	return ", the best " + strconv.Itoa(n) + " shown"
}

// heading names the target and the GPU budget.
func (r *Result) heading() string {
	op := r.Rec.Optimization
	what := "Best deployments by " + op.Target
	if op.Target == spec.TargetPareto {
		what = "Pareto front of " + strings.Join(r.Objectives, ", ") + ", by GPUs"
	}
	gpus := "at most " + plural(op.MaxGPUs, "GPU")
	if op.MinGPUs > 1 {
		gpus = strconv.Itoa(op.MinGPUs) + " to " + plural(op.MaxGPUs, "GPU")
	}
	return what + ", on " + gpus
}

// slaText lists the SLA bounds that are set ("" without an SLA).
func (r *Result) slaText() string {
	s := r.Rec.SLA
	if s == nil {
		return ""
	}
	var parts []string
	for _, b := range []struct {
		name  string
		bound *float64
	}{{"TTFT", s.TTFTMs}, {"ITL", s.ITLMs}, {"E2E", s.E2EMs}} {
		if b.bound != nil {
			parts = append(parts, b.name+" ≤ "+strconv.FormatFloat(*b.bound, 'f', -1, 64)+" ms")
		}
	}
	return strings.Join(parts, ", ")
}

// searchText is how far the search went: trials, simulations, the space and when the best
// was found.
func (r *Result) searchText() string {
	st := r.Stats
	text := "Search: " + st.Algorithm + ", " + plural(st.Trials, "trial") + ", " + strconv.Itoa(st.Simulated) + " simulated"
	if math.IsInf(st.SpacePoints, 1) {
		text += ", in a space with continuous ranges"
	} else {
		text += " of a space of " + formatPoints(st.SpacePoints) + " points (" + percentOf(float64(st.Simulated), st.SpacePoints) + ")"
	}
	if st.BestTrial > 0 {
		text += "; the best was found at trial " + strconv.Itoa(st.BestTrial)
	}
	return text + "."
}

// attainment is the share of completed requests that met every SLA bound, NaN without
// completed requests.
func attainment(summary map[string]any) float64 {
	good := SummaryNumber(summary, report.KeyGoodputCompletedRequests)
	done := SummaryNumber(summary, report.KeyCompletedRequests)
	if !(done > 0) {
		return math.NaN()
	}
	return good / done
}

// writeRows writes the heading and one row per deployment; total > len(ds) adds a line
// saying how many more there are.
func (r *Result) writeRows(b *strings.Builder, ds []Deployment, total, columns int) {
	type col struct {
		head, unit string
		cell       func(d Deployment) string
	}
	num := func(key string) func(d Deployment) string {
		return func(d Deployment) string { return short(SummaryNumber(d.Best.Summary, key)) }
	}
	cols := []col{
		{"#", "", func(d Deployment) string { return strconv.Itoa(d.Rank) }},
		{"GPUs", "", func(d Deployment) string { return strconv.Itoa(d.Best.UsedGPUs) }},
	}
	for i, n := range r.Objectives {
		if n == spec.TargetMinGPUs {
			continue
		}
		oc := objectiveColumns[n]
		cols = append(cols, col{oc.label, oc.unit, func(d Deployment) string { return short(d.Best.Objectives[i]) }})
	}
	if r.Rec.Optimization.GPUHourCost != nil {
		cols = append(cols, col{"cost/h", "USD", func(d Deployment) string {
			if d.Best.Cost == nil {
				return "–"
			}
			return short(d.Best.Cost.USDPerHour)
		}})
		if t := r.Rec.Optimization.Target; t != spec.TargetCost && t != spec.TargetGoodCost {
			cols = append(cols, col{"cost/Mtok", "USD", func(d Deployment) string {
				if d.Best.Cost == nil {
					return "–"
				}
				return short(d.Best.Cost.USDPerMTok)
			}})
		}
	}
	cols = append(cols,
		col{"TTFT p50", "ms", num(report.TTFT.Key(report.Median))},
		col{"TTFT p90", "ms", num(report.TTFT.Key(report.P90))},
		col{"ITL", "ms", num(report.ITL.Key(report.Mean))})
	if r.slaText() != "" {
		cols = append(cols, col{"SLA met", "", func(d Deployment) string {
			a := attainment(d.Best.Summary)
			if math.IsNaN(a) {
				return "–"
			}
			return strings.TrimSuffix(strconv.FormatFloat(100*a, 'f', 1, 64), ".0") + " %"
		}})
	}
	cells := make([][]string, len(ds))
	widths := make([]int, len(cols))
	for j, c := range cols {
		widths[j] = max(utf8.RuneCountInString(c.head), utf8.RuneCountInString(c.unit))
	}
	for i, d := range ds {
		cells[i] = make([]string, len(cols))
		for j, c := range cols {
			cells[i][j] = c.cell(d)
			widths[j] = max(widths[j], utf8.RuneCountInString(cells[i][j]))
		}
	}
	lead := 0
	for _, w := range widths {
		lead += w + 2
	}
	// The deployment follows the numbers when it has room, else it goes below them.
	deployW, below := columns-lead, false
	if deployW < 40 {
		deployW, below = columns-4, true
	}
	line := func(vals []string, last string) {
		var s strings.Builder
		for j, v := range vals {
			s.WriteString(strings.Repeat(" ", widths[j]-utf8.RuneCountInString(v)) + v + "  ")
		}
		b.WriteString(strings.TrimRight(s.String()+last, " ") + "\n")
	}
	heads, units := make([]string, len(cols)), make([]string, len(cols))
	for j, c := range cols {
		heads[j], units[j] = c.head, c.unit
	}
	pad := strings.Repeat(" ", lead)
	if below {
		line(heads, "")
		pad = "    "
	} else {
		line(heads, "deployment")
	}
	line(units, "")
	extras := r.Space.telling(ds)
	for i, d := range ds {
		text := d.Summary
		if extras[i] != "" {
			text += " · " + extras[i]
		}
		if len(d.Alike) > 0 {
			text += " · +" + strconv.Itoa(len(d.Alike)) + " alike: " + strings.Join(shortKnobs(d.Knobs), ", ")
		}
		parts := wrapAt(text, " · ", deployW)
		if below {
			line(cells[i], "")
		} else {
			line(cells[i], parts[0])
			parts = parts[1:]
		}
		for _, part := range parts {
			b.WriteString(pad + part + "\n")
		}
	}
	if total > len(ds) {
		b.WriteString(strconv.Itoa(total-len(ds)) + " more distinct deployments are in recommendation.json\n")
	}
}

// short formats a table number: no decimals from 100, one from 10, else two; "–" when
// absent or not finite.
func short(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case math.Abs(v) >= 100:
		return report.FormatCount(v)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// shortKnobs names search-space paths briefly: the last key, with the role for the
// disaggregated roles' fields ("prefill max_sequences").
func shortKnobs(paths []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		name := p[strings.LastIndexByte(p, '.')+1:]
		if rest, ok := strings.CutPrefix(p, "engine.workers."); ok {
			if role, _, _ := strings.Cut(rest, "."); role != spec.RoleAggregated {
				name = role + " " + name
			}
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

// wrapAt splits text at sep into lines of at most width runes (a longer part stays whole);
// continuation lines keep the separator's trailing text at their end.
func wrapAt(text, sep string, width int) []string {
	var out []string
	cur := ""
	for _, part := range strings.Split(text, sep) {
		switch {
		case cur == "":
			cur = part
		case utf8.RuneCountInString(cur)+utf8.RuneCountInString(sep)+utf8.RuneCountInString(part) <= width:
			cur += sep + part
		default:
			out = append(out, cur+strings.TrimRight(sep, " "))
			cur = part
		}
	}
	return append(out, cur)
}

// plural is "1 GPU" / "2 GPUs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// telling is, per deployment, the searched knobs that tell it apart from the listed
// deployments with the same DeploymentSummary ("max_sequences 4, concurrency 8"); "" when
// its summary is unique among them.
func (s *Space) telling(ds []Deployment) []string {
	bySummary := map[string][]int{}
	for i, d := range ds {
		bySummary[d.Summary] = append(bySummary[d.Summary], i)
	}
	out := make([]string, len(ds))
	for _, idx := range bySummary {
		if len(idx) < 2 {
			continue
		}
		var knobs []string
		for _, j := range idx[1:] {
			knobs = mergeKnobs(knobs, s.differingKnobs(ds[idx[0]].Best, ds[j].Best))
		}
		for _, j := range idx {
			cfg := s.ConfigOf(ds[j].Best.Point)
			var parts []string
			for _, k := range knobs {
				if v, ok := cfg[k]; ok {
					parts = append(parts, shortKnobs([]string{k})[0]+" "+knobText(v))
				}
			}
			out[j] = strings.Join(parts, ", ")
		}
	}
	return out
}

// knobText prints a knob's value as the configuration would write it.
func knobText(v any) string {
	if b, err := canon.Compact(v); err == nil {
		return strings.Trim(string(b), `"`)
	}
	return "?"
}
