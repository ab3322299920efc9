package report

import (
	"slices"
	"strings"
	"testing"
)

// The sentence of docs/semantics/outputs.md §3.4 for each trend, a bottleneck, and a run
// without a release window.
func TestSaturationSentence(t *testing.T) {
	section := func(offered any, trend any, waiting int, bottleneck any) map[string]any {
		return map[string]any{SatOfferedRPS: offered, SatServedRPS: 5.7312, SatQueueTrend: trend,
			SatWaitingAtLastRelease: waiting, SatBottleneck: bottleneck}
	}
	for _, c := range []struct {
		sat  map[string]any
		want string
	}{
		{section(20.0, TrendGrowing, 1425, nil),
			"Overloaded: offered 20 req/s, served 5.73 req/s; the queue was still growing at the last arrival (1,425 waiting)."},
		{section(19.96, TrendSteady, 3, nil),
			"Keeping up: offered 20 req/s, served 5.73 req/s; the queue was steady at the last arrival (3 waiting)."},
		{section(1234.5, TrendDraining, 0, nil),
			"Keeping up: offered 1,234 req/s, served 5.73 req/s; the queue was draining at the last arrival (0 waiting)."},
		{section(500.0, TrendGrowing, 2, "decode"),
			"Overloaded: offered 500 req/s, served 5.73 req/s; the queue was still growing at the last arrival (2 waiting). Bottleneck: decode."},
		{section(nil, nil, 0, nil),
			"All requests arrived at one instant, so there is no offered rate; served 5.73 req/s."},
		{nil, ""},
	} {
		if got := SaturationSentence(c.sat); got != c.want {
			t.Errorf("SaturationSentence(%v)\n got %q\nwant %q", c.sat, got, c.want)
		}
	}
}

// Rates keep three significant digits at most, without trailing zeros.
func TestRateText(t *testing.T) {
	for v, want := range map[float64]string{20: "20", 5.7312: "5.73", 9.5151: "9.52", 0.5: "0.5", 62.5: "62.5",
		99.96: "100", 321.42857142857144: "321", 1234.5: "1,234", 0: "0", -3.25: "-3.25"} {
		if got := rateText(v); got != want {
			t.Errorf("rateText(%v) = %q, want %q", v, got, want)
		}
	}
	if got := rateText(nil); got != "N/A" {
		t.Errorf("rateText(nil) = %q", got)
	}
}

// The AIPerf table warns only about a growing queue; the readable table always has the Load line.
func TestTablesSaySaturation(t *testing.T) {
	growing := map[string]any{SatOfferedRPS: 250.0, SatServedRPS: 200.0, SatQueueTrend: TrendGrowing, SatWaitingAtLastRelease: 2}
	steady := map[string]any{SatOfferedRPS: 250.0, SatServedRPS: 249.0, SatQueueTrend: TrendSteady, SatWaitingAtLastRelease: 0}
	sentence := SaturationSentence(growing)
	if got := Table(e2Summary(), growing, "o"); !slices.Contains(strings.Split(got, "\n"), sentence) {
		t.Errorf("AIPerf table of an overloaded run lacks the line %q:\n%s", sentence, got)
	}
	if Table(e2Summary(), steady, "o") != Table(e2Summary(), nil, "o") {
		t.Error("AIPerf table of a deployment that keeps up differs from the spec's table")
	}
	got := ReadableTable(e2Summary(), nil, steady, 200, "o")
	if !slices.Contains(strings.Split(got, "\n"), "Load        "+SaturationSentence(steady)) {
		t.Errorf("readable table lacks the Load line:\n%s", got)
	}
}
