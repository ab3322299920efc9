package report

import (
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table styles: the spec's AIPerf table (docs/semantics/outputs.md §7.2, the default when standard output is
// not a terminal) and the readable one (ReadableTable) [decision, docs/architecture.md].
const (
	TableAIPerf   = "aiperf"
	TableReadable = "readable"
)

// NarrowColumns is the terminal width below which the readable table drops to the narrow
// statistics (avg, p50, p90, p99, max) and wraps metric names.
const NarrowColumns = 100

// minColumns is the narrowest layout ReadableTable tries to fit.
const minColumns = 40

// readableStats are the statistics columns of the wide and narrow readable layouts.
var (
	wideStats   = []Statistic{Mean, Min, Max, P99, P90, P75, Std}
	narrowStats = []Statistic{Mean, Median, P90, P99, Max}
)

// ReadableTable renders the table for a person at a terminal `columns` wide: the deployment,
// whether it kept up with its load (SaturationSentence of sat, the saturation section; nil
// leaves the line out), the SLA attainment and goodput, the latency statistics with the AIPerf
// metric names in one border style, throughput per GPU and per user, and the footer lines of
// the AIPerf table. No line is wider than max(columns, 40) unless a single number is.
func ReadableTable(summary map[string]any, ov *Overview, sat map[string]any, columns int, outputDir string) string {
	columns = max(columns, minColumns)
	var b strings.Builder
	// lines writes text under a 12-column label, wrapped by wrap; label wraps a list at ", ".
	lines := func(name, text string, wrap func(string, int) []string) {
		for i, part := range wrap(text, columns-12) {
			if i > 0 {
				name = ""
			}
			b.WriteString(padRight(name, 12) + part + "\n")
		}
	}
	label := func(name, text string) { lines(name, text, wrapList) }
	if ov != nil {
		d := ov.Deployment
		label("Deployment", d.ModelText())
		label("", d.HardwareLine())
		for _, w := range d.Workers {
			label("", w.Line(d.Hardware))
		}
	}
	if n, ok := Number(summary[KeyCompletedRequests]); ok {
		text := FormatCount(n) + " of " + cell(summary, KeyNumRequests) + " requests completed"
		if ms, ok := Number(summary[KeyDurationMs]); ok {
			text += " in " + FormatNumber(ms/1000) + " s simulated"
		}
		label("Requests", strings.Replace(text, ".00 requests", " requests", 1))
	}
	if s := SaturationSentence(sat); s != "" {
		lines("Load", s, wrapWords)
	}
	if ov != nil && ov.SLA != nil {
		var parts []string
		for _, a := range ov.Attainment {
			parts = append(parts, a.Label()+": "+strconv.Itoa(a.Met)+"/"+strconv.Itoa(a.Completed)+" ("+a.Share()+")")
		}
		if len(parts) == 0 {
			parts = []string{"no bounds set"}
		}
		label("SLA", strings.Join(parts, ", "))
		good, _ := Number(summary[KeyGoodputCompletedRequests])
		done, _ := Number(summary[KeyCompletedRequests])
		label("Goodput", FormatCount(good)+" requests met every bound ("+Share(good, done)+"), "+
			cell(summary, KeyGoodputRequestThroughputRPS)+" requests/s, "+cell(summary, KeyGoodputOutputThroughputTokS)+" tokens/s")
	}
	if ov != nil && ov.Intervals != nil {
		label("Uncertainty", IntervalText(ov.Intervals))
	}
	if ov != nil && ov.Uncalibrated != nil {
		label("Default", UncalibratedText(ov.Uncalibrated))
	}
	b.WriteByte('\n')

	// Statistics: wide columns when the whole table fits, else the narrow set with wrapped
	// metric names.
	var rows []tableRowDef
	for _, r := range tableRows {
		if _, ok := summary[r.dist.Key(Mean)]; ok {
			rows = append(rows, r)
		}
	}
	stats := wideStats
	if columns < NarrowColumns || boxWidth(summary, rows, wideStats, longestLabel(rows)) > columns {
		stats = narrowStats
	}
	labelW := longestLabel(rows)
	if over := boxWidth(summary, rows, stats, labelW) - columns; over > 0 {
		labelW = max(labelW-over, 12)
	}
	writeBox(&b, summary, rows, stats, labelW)

	// Single values.
	b.WriteByte('\n')
	tput := cell(summary, KeyOutputThroughputTokS) + " tokens/s"
	var per []string
	if tok, ok := Number(summary[KeyTotalOutputTokens]); ok {
		if gh, ok := Number(summary[KeyGPUHours]); ok && gh > 0 {
			per = append(per, FormatNumber(tok/(gh*3600))+" per GPU")
		}
	}
	if _, ok := summary[OutputTokenThroughputPerUser.Key(Mean)]; ok {
		per = append(per, cell(summary, OutputTokenThroughputPerUser.Key(Mean))+" per user")
	}
	if len(per) > 0 {
		tput += ", " + strings.Join(per, ", ")
	}
	pairs := [][2]string{
		{"Output Token Throughput", tput},
		{"Request Throughput", cell(summary, KeyRequestThroughputRPS) + " requests/s"},
	}
	for _, c := range tableCounts {
		if v, ok := summary[c.key]; ok && c.optional {
			pairs = append(pairs, [2]string{strings.TrimSuffix(c.label, " (trajectories)"), formatCell(v)})
		}
	}
	if _, ok := summary[KeyGPUHours]; ok {
		pairs = append(pairs, [2]string{"GPU Hours", strconv.FormatFloat(mustFloat(summary[KeyGPUHours]), 'g', 4, 64)})
	}
	if cov, ok := summary[keyPowerCoverage]; ok {
		pairs = append(pairs, [2]string{"Power per GPU (W)", cell(summary, keyPowerW)})
		if f, isNum := Number(cov); isNum {
			pairs = append(pairs, [2]string{"Power Data Coverage (%)", FormatNumber(f * 100)})
		}
	}
	keyW := 0
	for _, p := range pairs {
		keyW = max(keyW, utf8.RuneCountInString(p[0]))
	}
	for _, p := range pairs {
		for i, part := range wrapList(p[1], columns-keyW-2) {
			if i == 0 {
				b.WriteString(padRight(p[0]+":", keyW+2) + part + "\n")
			} else {
				b.WriteString(strings.Repeat(" ", keyW+2) + part + "\n")
			}
		}
	}
	for _, f := range tableFooter {
		if v, ok := summary[f.key]; ok && isNumber(v) {
			b.WriteString(f.label + ": " + formatCell(v) + "\n")
		}
	}
	b.WriteString("Saved full report to: " + path.Join(outputDir, "prediction.json") + "\n")
	return b.String()
}

// tableRowDef is a statistics row of both tables: its AIPerf label and its distribution.
type tableRowDef struct {
	label string
	dist  Distribution
}

func longestLabel(rows []tableRowDef) int {
	w := utf8.RuneCountInString("Metric")
	for _, r := range rows {
		w = max(w, utf8.RuneCountInString(r.label))
	}
	return w
}

// statWidths are the widths of the statistics columns: the longest of header and cells.
func statWidths(summary map[string]any, rows []tableRowDef, stats []Statistic) []int {
	ws := make([]int, len(stats))
	for i, st := range stats {
		ws[i] = utf8.RuneCountInString(statHeader(st))
		for _, r := range rows {
			ws[i] = max(ws[i], utf8.RuneCountInString(cell(summary, r.dist.Key(st))))
		}
	}
	return ws
}

// boxWidth is the width of the statistics box: "│ label │ c1 │ … │".
func boxWidth(summary map[string]any, rows []tableRowDef, stats []Statistic, labelW int) int {
	w := labelW + 4
	for _, sw := range statWidths(summary, rows, stats) {
		w += sw + 3
	}
	return w
}

// writeBox draws the statistics box in light box-drawing characters, wrapping metric names
// longer than labelW at spaces.
func writeBox(b *strings.Builder, summary map[string]any, rows []tableRowDef, stats []Statistic, labelW int) {
	ws := statWidths(summary, rows, stats)
	border := func(left, mid, right string) {
		b.WriteString(left + strings.Repeat("─", labelW+2))
		for _, w := range ws {
			b.WriteString(mid + strings.Repeat("─", w+2))
		}
		b.WriteString(right + "\n")
	}
	line := func(first string, cells []string) {
		b.WriteString("│ " + padRight(first, labelW) + " │")
		for i, c := range cells {
			b.WriteString(" " + padLeft(c, ws[i]) + " │")
		}
		b.WriteByte('\n')
	}
	header := make([]string, len(stats))
	blank := make([]string, len(stats))
	for i, st := range stats {
		header[i] = statHeader(st)
	}
	border("┌", "┬", "┐")
	line("Metric", header)
	border("├", "┼", "┤")
	for _, r := range rows {
		cells := make([]string, len(stats))
		for i, st := range stats {
			cells[i] = cell(summary, r.dist.Key(st))
		}
		for i, part := range wrapWords(r.label, labelW) {
			if i == 0 {
				line(part, cells)
			} else {
				line(part, blank)
			}
		}
	}
	border("└", "┴", "┘")
}

// statHeader is a statistic's column header (the AIPerf names, p50 for the median).
func statHeader(st Statistic) string {
	switch st {
	case Mean:
		return "avg"
	case Median:
		return "p50"
	}
	return string(st)
}

// wrapList splits a comma-separated text into lines of at most width runes at ", "
// boundaries, the comma that ends a wrapped line included (a part longer than width stays
// whole).
func wrapList(s string, width int) []string {
	var out []string
	cur := ""
	parts := strings.Split(s, ", ")
	for i, part := range parts {
		room := width - 1 // for the comma if the line wraps after this part
		if i == len(parts)-1 {
			room = width
		}
		switch {
		case cur == "":
			cur = part
		case utf8.RuneCountInString(cur)+2+utf8.RuneCountInString(part) <= room:
			cur += ", " + part
		default:
			out, cur = append(out, cur+","), part
		}
	}
	return append(out, cur)
}

// wrapWords splits s into lines of at most width runes at spaces (a longer word is cut).
func wrapWords(s string, width int) []string {
	var out []string
	cur := ""
	for _, w := range strings.Fields(s) {
		for utf8.RuneCountInString(w) > width {
			if cur != "" {
				out, cur = append(out, cur), ""
			}
			r := []rune(w)
			out, w = append(out, string(r[:width])), string(r[width:])
		}
		switch {
		case cur == "":
			cur = w
		case utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) <= width:
			cur += " " + w
		default:
			out, cur = append(out, cur), w
		}
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	return out
}

func padRight(s string, w int) string {
	return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s))) + s
}

// plural is "1 GPU" / "2 GPUs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// FormatCount formats a count without decimals, with thousands separators.
func FormatCount(v float64) string {
	return groupThousands(strconv.FormatFloat(v, 'f', 0, 64))
}

// trimNumber prints a bound as written: 200, 12.5.
func trimNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// Share is met/of as a percentage with one decimal, "80.0%"; "n/a" when of is not positive.
func Share(met, of float64) string {
	if of <= 0 {
		return "n/a"
	}
	return strconv.FormatFloat(100*met/of, 'f', 1, 64) + "%"
}

func mustFloat(v any) float64 { f, _ := Number(v); return f }
