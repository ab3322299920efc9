package main

import (
	"math"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"aisimulate/tools/calibrate/baseline"
	"aisimulate/tools/calibrate/rows"
)

// budgetRows are four hand-made scored rows: two curves, one deployment measured in two
// campaigns, one DeepSeek-R1 TensorRT-LLM disaggregated row at twice its measured TPOT.
func budgetRows() []logoResult {
	agg := func(curve, date string, conc int, ttft, tpot float64) *rows.Row {
		return &rows.Row{CurveID: curve, Backend: "vllm", Mode: "agg", Model: "m", System: "h200_sxm", ISL: 1024, OSL: 128,
			Concurrency: conc, MeasuredOn: date, TTFT: ttft, TPOT: tpot}
	}
	ds := &rows.Row{CurveID: "d", Backend: "trtllm", Mode: "disagg", Model: "deepseek-ai/DeepSeek-R1", System: "gb200",
		Concurrency: 4, MeasuredOn: "2026-02-01", TTFT: 1000, TPOT: 5}
	return []logoResult{
		{agg("a", "2026-01-01", 4, 100, 10), 150, 12}, // APE 0.5 / 0.2
		{agg("a", "2026-01-01", 8, 200, 20), 300, 24}, // 0.5 / 0.2
		{agg("b", "2026-02-01", 4, 120, 10), 150, 12}, // same deployment as row 1, another campaign: 0.25 / 0.2
		{ds, 500, 10}, // 0.5 / 1
	}
}

// The budget's points on budgetRows.
func TestErrorBudget(t *testing.T) {
	res := budgetRows()
	near := func(name string, a, b float64) {
		if math.Abs(a-b) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, a, b)
		}
	}
	lines := errorBudget(res)
	// (a) curve a's median log error is log 1.5 / log 1.2: corrected exactly; curves b and d
	// (one row each) too. All error removed: 100·(0.5+0.5+0.25+0.5)/4 = 43.75 TTFT points,
	// 100·(0.2+0.2+0.2+1)/4 = 40 TPOT points.
	near("(a) ttft", lines[0].ttft, 43.75)
	near("(a) tpot", lines[0].tpot, 40)
	// (b) rows 1 and 3 share the deployment: 100 predicts 120 (APE 1/6), 120 predicts 100
	// (0.2); TPOT 10 and 10: 0.
	if lines[1].rows != 2 {
		t.Fatalf("(b) rows %d, want 2", lines[1].rows)
	}
	near("(b) ttft", lines[1].ttft, 100*(1.0/6+0.2)/4)
	near("(b) tpot", lines[1].tpot, 0)
	// (c) the TensorRT-LLM disaggregated row: 12.5 / 25 points; (d) the same row is MTP
	// (measured TPOT 5 ≤ 0.6 × 10), halving its prediction removes all 25 points.
	near("(c) ttft", lines[2].ttft, 12.5)
	near("(c) tpot", lines[2].tpot, 25)
	if lines[3].rows != 1 || lines[3].note != "halving their predicted TPOT removes 25.0 TPOT points" {
		t.Errorf("(d) %+v", lines[3])
	}
}

// The printed budget, "before → after" per line against a baseline holding one of its
// effects; the returned lines are what -write-baseline records.
func TestWriteErrorBudget(t *testing.T) {
	lines := []budgetLine{
		{effect: "(a) x", rows: 4, ttft: 12.345, tpot: 1, note: "a note"},
		{effect: "(c) y", rows: 0, ttft: 0, tpot: 0},
		{effect: "(d) z", rows: 2, ttft: 3, tpot: 4.25},
	}
	before := &baseline.Section{Budget: []baseline.Budget{{Scope: "aggregated", Effect: "(d) z", Rows: 3, TTFT: 5, TPOT: 6}}}
	var b strings.Builder
	got := writeErrorBudget(&b, "aggregated", lines, before)
	pad := func(s string) string { return s + strings.Repeat(" ", 88-utf8.RuneCountInString(s)) }
	want := "\nerror budget, aggregated (points of its cross-validated MAPE; the sets overlap; before → after)\n" +
		pad("effect") + "          rows            TTFT            TPOT\n" +
		pad("(a) x") + "         — → 4        — → 12.3         — → 1.0\n" +
		pad("    a note") + "\n" +
		pad("(d) z") + "         3 → 2       5.0 → 3.0       6.0 → 4.2\n"
	if b.String() != want {
		t.Errorf("printed\n%q\nwant\n%q", b.String(), want)
	}
	if len(got) != 2 || got[0] != (baseline.Budget{Scope: "aggregated", Effect: "(a) x", Rows: 4, TTFT: 12.345, TPOT: 1}) {
		t.Errorf("returned %+v", got)
	}
}

// figureArrow is one printed "before → after" cell of numbers.
var figureArrow = regexp.MustCompile(`^([0-9.]+) → ([0-9.]+)$`)

// A run compared with the baseline recorded from it prints every figure and budget line as
// "x → x": nothing is lost between what is printed, recorded and read back.
func TestLOGOComparisonAgainstItself(t *testing.T) {
	res := budgetRows()
	var first strings.Builder
	after := writeLOGOComparison(&first, res, 5, &baseline.Section{})
	var buf strings.Builder
	if err := (&baseline.File{LOGO: after}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := baseline.Parse([]byte(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	writeLOGOComparison(&b, res, 5, &back.LOGO)
	out := b.String()
	if strings.Contains(out, "—") {
		t.Errorf("a figure missing from the recorded baseline:\n%s", out)
	}
	arrows := 0
	for _, line := range strings.Split(out, "\n") {
		for _, cell := range strings.Split(line, "  ") {
			if m := figureArrow.FindStringSubmatch(strings.TrimSpace(cell)); m != nil {
				a, c := m[1], m[2]
				arrows++
				if a != c {
					t.Errorf("%q: before %q, after %q", line, a, c)
				}
			}
		}
	}
	// 7 slices (all rows, aggregated, not recorded, vllm, trtllm, vllm/agg, trtllm/disagg) × 5
	// columns and the budget lines × 3 columns.
	if arrows < 40 {
		t.Errorf("only %d before → after cells:\n%s", arrows, out)
	}
	if !strings.Contains(out, "coverage (rows priced / all rows): 4/5 (80.0%) → 4/5 (80.0%)") {
		t.Errorf("coverage line missing:\n%s", out)
	}
}
