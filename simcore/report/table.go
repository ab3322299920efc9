package report

import (
	"path"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tableRows lists the statistics rows of the table view (docs/semantics/outputs.md §7.2): label and
// distribution. A row is shown only when its mean key is in the summary, so the trajectory
// row appears for agentic-graph sources only [decision, docs/web.md].
var tableRows = []tableRowDef{
	{"Time to First Token (ms)", TTFT},
	{"Time to Second Token (ms)", TTST},
	{"Request Latency (ms)", E2ELatency},
	{"Trajectory Latency (ms)", TrajectoryE2ELatency},
	{"Inter Token Latency (ms)", ITL},
	{"Output Token Throughput Per User (tokens/sec/user)", OutputTokenThroughputPerUser},
}

// tableStats are the statistics of the avg, min, max, p99, p90, p75 and std cells.
var tableStats = []Statistic{Mean, Min, Max, P99, P90, P75, Std}

// tableCounts are the single-value rows of the table view after the statistics rows: label,
// key of the avg cell (the others are N/A), a key read when the first is missing, and whether
// the row is left out when both are missing (otherwise its avg cell is N/A).
var tableCounts = []struct {
	label, key, fallback string
	optional             bool
}{
	{"Output Token Throughput (tokens/sec)", KeyOutputThroughputTokS, "", false},
	{"Request Throughput (requests/sec)", KeyRequestThroughputRPS, "", false},
	{"Request Count (requests)", KeyCompletedRequests, KeyNumRequests, false},
	{"Completed Trajectories (trajectories)", KeyCompletedTrajectories, "", true},
	{"Incomplete Trajectories (trajectories)", KeyIncompleteTrajectories, "", true},
}

// tableFooter are the footer lines: label and key, printed when the value is a number.
var tableFooter = []struct{ label, key string }{
	{"Wall Time (ms)", KeyWallTimeMs},
	{"Prefix Cache Reused Ratio", KeyPrefixCacheReusedRatio},
	{"First Admission Prefix Cache Reused Ratio", KeyFirstAdmissionPrefixCacheReusedRatio},
}

// Table renders the `--format table` standard output of docs/semantics/outputs.md §7.2 for a summary
// object: the AIPerf-style metrics table, the footer lines, and the path of prediction.json
// inside outputDir. Every line ends in a newline. When the saturation section sat says the
// queue was growing, the saturation sentence follows the table [decision,
// docs/semantics/outputs.md §7.2]; a deployment that keeps up gets the spec's table unchanged.
func Table(summary map[string]any, sat map[string]any, outputDir string) string {
	header := []string{"Metric", "avg", "min", "max", "p99", "p90", "p75", "std"}
	var rows [][]string
	for _, r := range tableRows {
		if _, ok := summary[r.dist.Key(Mean)]; !ok {
			continue
		}
		row := []string{r.label}
		for _, st := range tableStats {
			row = append(row, cell(summary, r.dist.Key(st)))
		}
		rows = append(rows, row)
	}
	single := func(label string, v any, ok bool) {
		row := []string{label, "N/A", "N/A", "N/A", "N/A", "N/A", "N/A", "N/A"}
		if ok {
			row[1] = formatCell(v)
		}
		rows = append(rows, row)
	}
	for _, c := range tableCounts {
		v, ok := summary[c.key]
		if !ok && c.fallback != "" {
			v, ok = summary[c.fallback]
		}
		if !ok && c.optional {
			continue
		}
		single(c.label, v, ok)
	}
	if cov, ok := summary[keyPowerCoverage]; ok {
		v, ok := summary[keyPowerW]
		single("Power per GPU (W)", v, ok)
		if f, isNum := Number(cov); isNum {
			single("Power Data Coverage (%)", f*100, true)
		} else {
			single("Power Data Coverage (%)", cov, true)
		}
	}

	widths := make([]int, len(header))
	for i, h := range header {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	b.WriteString("NVIDIA AIPerf | LLM Metrics\n")
	border := func(left, mid, right string) {
		b.WriteString(left)
		for i, w := range widths {
			if i > 0 {
				b.WriteString(mid)
			}
			b.WriteString(strings.Repeat("━", w+2))
		}
		b.WriteString(right)
		b.WriteByte('\n')
	}
	line := func(cells []string) {
		b.WriteString("┃")
		for i, c := range cells {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			b.WriteByte(' ')
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
			b.WriteString(" ┃")
		}
		b.WriteByte('\n')
	}
	border("┏", "┳", "┓")
	line(header)
	border("┡", "╇", "┩")
	for _, row := range rows {
		line(row)
	}
	border("└", "┴", "┘")
	if sat[SatQueueTrend] == TrendGrowing {
		b.WriteString(SaturationSentence(sat) + "\n")
	}
	for _, f := range tableFooter {
		if v, ok := summary[f.key]; ok && isNumber(v) {
			b.WriteString(f.label + ": " + formatCell(v) + "\n")
		}
	}
	b.WriteString("Saved full report to: " + path.Join(outputDir, "prediction.json") + "\n")
	return b.String()
}

func cell(summary map[string]any, key string) string {
	v, ok := summary[key]
	if !ok {
		return "N/A"
	}
	return formatCell(v)
}

func isNumber(v any) bool {
	_, ok := Number(v)
	return ok
}

// Number reads a summary value as a float64: float64 and the integer types convert; ok is
// false for anything else (an absent key included).
func Number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case int32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint:
		return float64(x), true
	}
	return 0, false
}

// formatCell renders one table cell: numbers with two decimals (ties to even on the exact
// binary value) and thousands separators, nil as N/A, anything else as text.
func formatCell(v any) string {
	switch x := v.(type) {
	case nil:
		return "N/A"
	case string:
		return x
	case bool:
		if x {
			return "True"
		}
		return "False"
	case int:
		return groupThousands(strconv.FormatInt(int64(x), 10) + ".00")
	case int64:
		return groupThousands(strconv.FormatInt(x, 10) + ".00")
	case int32:
		return groupThousands(strconv.FormatInt(int64(x), 10) + ".00")
	case uint64:
		return groupThousands(strconv.FormatUint(x, 10) + ".00")
	case uint32:
		return groupThousands(strconv.FormatUint(uint64(x), 10) + ".00")
	case uint:
		return groupThousands(strconv.FormatUint(uint64(x), 10) + ".00")
	case float64:
		return FormatNumber(x)
	}
	return "N/A"
}

// FormatNumber formats a float like Python's f"{v:,.2f}": two decimals, correctly rounded
// with ties to even, and comma thousands separators (1234567.891 → "1,234,567.89").
func FormatNumber(v float64) string {
	return groupThousands(strconv.FormatFloat(v, 'f', 2, 64))
}

// groupThousands inserts ',' every three digits of the integer part of a decimal string.
func groupThousands(s string) string {
	sign := ""
	if strings.HasPrefix(s, "-") {
		sign, s = "-", s[1:]
	}
	intPart, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		intPart, frac = s[:i], s[i:]
	}
	if len(intPart) <= 3 || intPart[0] < '0' || intPart[0] > '9' { // short, or Inf/NaN
		return sign + intPart + frac
	}
	var b strings.Builder
	b.WriteString(sign)
	head := len(intPart) % 3
	if head > 0 {
		b.WriteString(intPart[:head])
	}
	for i := head; i < len(intPart); i += 3 {
		if b.Len() > len(sign) {
			b.WriteByte(',')
		}
		b.WriteString(intPart[i : i+3])
	}
	b.WriteString(frac)
	return b.String()
}
