package baseline

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"aisimulate/tools/calibrate/rows"
)

func f(v float64) *float64 { return &v }

// synthetic is four priced rows, one per slice and two backends, and their predictions:
// APEs TTFT 0.5, 0.1, 0.2, 0.3 and TPOT 0.1, 0.2, 0.4, 0.0.
func synthetic() []Scored {
	agg := &rows.Row{Backend: "vllm", Mode: "agg", TTFT: 100, TPOT: 10}
	agg2 := &rows.Row{Backend: "vllm", Mode: "agg", TTFT: 100, TPOT: 10}
	rec := &rows.Row{Backend: "trtllm", Mode: "disagg", TTFT: 100, TPOT: 10,
		Prefill: rows.Role{Workers: 1}, Decode: rows.Role{Workers: 2}}
	not := &rows.Row{Backend: "trtllm", Mode: "disagg", TTFT: 100, TPOT: 10}
	return []Scored{{agg, 150, 11}, {agg2, 90, 12}, {rec, 120, 14}, {not, 70, 10}}
}

// Measure's figures on the synthetic rows, exactly.
func TestMeasure(t *testing.T) {
	got := Measure(synthetic(), 5)
	want := Section{Priced: 4, Total: 5, Slices: []Slice{
		{Name: AllRows, Rows: 4, TTFT: f(27.5), TTFTMedian: f(25), TPOT: f(17.5), TPOTMedian: f(15)},
		{Name: "aggregated", Rows: 2, TTFT: f(30), TTFTMedian: f(30), TPOT: f(15), TPOTMedian: f(15)},
		{Name: "disaggregated, pools recorded", Rows: 1, TTFT: f(20), TTFTMedian: f(20), TPOT: f(40), TPOTMedian: f(40)},
		{Name: "disaggregated, pools not recorded", Rows: 1, TTFT: f(30), TTFTMedian: f(30), TPOT: f(0), TPOTMedian: f(0)},
		{Name: "trtllm", Rows: 2, TTFT: f(25), TTFTMedian: f(25), TPOT: f(20), TPOTMedian: f(20)},
		{Name: "vllm", Rows: 2, TTFT: f(30), TTFTMedian: f(30), TPOT: f(15), TPOTMedian: f(15)},
		{Name: "trtllm/disagg", Rows: 2, TTFT: f(25), TTFTMedian: f(25), TPOT: f(20), TPOTMedian: f(20)},
		{Name: "vllm/agg", Rows: 2, TTFT: f(30), TTFTMedian: f(30), TPOT: f(15), TPOTMedian: f(15)},
	}}
	near := cmp.Comparer(func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 })
	// Slices come in Names order; compare as a set of names first for a readable failure.
	order := map[string]int{}
	for i, n := range Names() {
		order[n] = i
	}
	for i := 1; i < len(got.Slices); i++ {
		if order[got.Slices[i-1].Name] > order[got.Slices[i].Name] {
			t.Fatalf("slices out of Names order: %q before %q", got.Slices[i-1].Name, got.Slices[i].Name)
		}
	}
	byName := func(s Section) map[string]Slice {
		m := map[string]Slice{}
		for _, x := range s.Slices {
			m[x.Name] = x
		}
		return m
	}
	if d := cmp.Diff(byName(want), byName(got), near); d != "" {
		t.Errorf("Measure (-want +got):\n%s", d)
	}
}

// The printed comparison, line by line: a slice the baseline lacks, a figure it lacks, and
// the coverage.
func TestWriteComparison(t *testing.T) {
	before := &Section{Model: "timing model v0", Priced: 3, Total: 5, Slices: []Slice{
		{Name: AllRows, Rows: 3, TTFT: f(40), TTFTMedian: f(35), TPOT: f(20.04), TPOTMedian: f(15)},
		{Name: "aggregated", Rows: 2, TTFT: f(31.25), TPOT: f(10)},
	}}
	after := Measure(synthetic(), 5)
	after.Slices = after.Slices[:3]
	var b bytes.Buffer
	WriteComparison(&b, "replay", before, &after)
	want := `
replay, before → after (before: timing model v0)
rows                                           n     TTFT MAPE %   TTFT median %     TPOT MAPE %   TPOT median %
all rows                                   3 → 4     40.0 → 27.5     35.0 → 25.0     20.0 → 17.5     15.0 → 15.0
aggregated                                 2 → 2     31.2 → 30.0        — → 30.0     10.0 → 15.0        — → 15.0
disaggregated, pools recorded              — → 1        — → 20.0        — → 20.0        — → 40.0        — → 40.0
coverage (rows priced / all rows): 3/5 (60.0%) → 4/5 (80.0%)
`
	if d := cmp.Diff(want, b.String()); d != "" {
		t.Errorf("comparison (-want +got):\n%s", d)
	}
}

// A baseline written from a run reads back equal, through -write-baseline's Record.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.json")
	fl := &Flags{write: path, model: "timing model v9"}
	base := Committed()
	keep := base.Simulator
	after := Measure(synthetic(), 5)
	after.Budget = []Budget{{Scope: AllRows, Effect: "(a) x", Rows: 4, TTFT: 1.25, TPOT: 0.5}}
	if err := fl.Record(base, LOGOSection, after); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	after.Model = "timing model v9"
	if d := cmp.Diff(&File{LOGO: after, Simulator: keep}, back); d != "" {
		t.Errorf("round trip (-want +got):\n%s", d)
	}
	// The other harness's run into the same file keeps the section written first.
	sim := Measure(synthetic()[:2], 4)
	if err := fl.Record(Committed(), SimulatorSection, sim); err != nil {
		t.Fatal(err)
	}
	if back, err = Load(path); err != nil {
		t.Fatal(err)
	}
	sim.Model = "timing model v9"
	if d := cmp.Diff(&File{LOGO: after, Simulator: sim}, back); d != "" {
		t.Errorf("second harness (-want +got):\n%s", d)
	}
}

// The committed baseline parses, holds the four slices of issue-style reports for both
// harnesses and the previous model's all-rows figures.
func TestCommitted(t *testing.T) {
	c := Committed()
	for _, sec := range []*Section{&c.LOGO, &c.Simulator} {
		for _, n := range append([]string{AllRows}, rows.Slices[:]...) {
			if s := sec.find(n); s == nil || s.TTFT == nil || s.TPOT == nil || s.TTFTMedian == nil || s.TPOTMedian == nil {
				t.Errorf("%s: slice %q missing or incomplete", sec.Model, n)
			}
		}
	}
	if a := c.LOGO.find(AllRows); *a.TTFT != 55.9 || *a.TPOT != 23.9 || a.Rows != 3417 {
		t.Errorf("LOGO all rows %+v", a)
	}
}

// Parse rejects what is not a baseline, naming the problem.
func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"logo": {"slices": [{"name": "gpu"}]}}`, `logo: slice "gpu" unknown`},
		{`{"logo": {"slices": [{"name": "all rows"}, {"name": "all rows"}]}}`, `logo: slice "all rows" unknown or repeated`},
		{`{"simulator": {"priced": 4, "total": 3}}`, "simulator: priced 4 of total 3"},
		{`{"logo": {"slices": [{"name": "vllm", "ttft_mape": -1}]}}`, "must not be negative"},
		{`{"logos": {}}`, "unknown field"},
		{`{"logo": {"budget": [{"scope": "vllm", "effect": "(a)"}]}}`, `budget line "(a)" of scope "vllm"`},
		{`[1]`, "not a baseline"},
	} {
		_, err := Parse([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%s) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// -write-baseline without -baseline-model, and the reverse, are refused; a missing file too.
func TestFlags(t *testing.T) {
	for _, fl := range []Flags{{write: "x.json"}, {model: "v"}, {path: filepath.Join(t.TempDir(), "none.json")}} {
		if _, err := fl.Load(); err == nil {
			t.Errorf("%+v: no error", fl)
		}
	}
}
