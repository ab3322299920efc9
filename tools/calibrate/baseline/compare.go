package baseline

import (
	"fmt"
	"io"
)

// find returns the slice of sec named name, or nil.
func (sec *Section) find(name string) *Slice {
	for i := range sec.Slices {
		if sec.Slices[i].Name == name {
			return &sec.Slices[i]
		}
	}
	return nil
}

// BudgetLine returns the baseline's budget line of scope and effect, or nil.
func (sec *Section) BudgetLine(scope, effect string) *Budget {
	for i := range sec.Budget {
		if sec.Budget[i].Scope == scope && sec.Budget[i].Effect == effect {
			return &sec.Budget[i]
		}
	}
	return nil
}

// WriteComparison prints every slice of after as "before → after" against before: priced
// rows, TTFT MAPE and median APE, TPOT MAPE and median APE (percent), then the coverage. A
// figure the baseline does not hold prints as "—".
func WriteComparison(w io.Writer, harness string, before, after *Section) {
	fmt.Fprintf(w, "\n%s, before → after (before: %s)\n", harness, before.Model)
	fmt.Fprintf(w, "%-34s %13s %15s %15s %15s %15s\n", "rows", "n", "TTFT MAPE %", "TTFT median %", "TPOT MAPE %", "TPOT median %")
	for _, a := range after.Slices {
		b := before.find(a.Name)
		if b == nil {
			b = &Slice{}
		}
		n := "—"
		if b.Rows > 0 {
			n = fmt.Sprint(b.Rows)
		}
		fmt.Fprintf(w, "%-34s %13s %15s %15s %15s %15s\n", a.Name, n+" → "+fmt.Sprint(a.Rows),
			Arrow(b.TTFT, a.TTFT), Arrow(b.TTFTMedian, a.TTFTMedian), Arrow(b.TPOT, a.TPOT), Arrow(b.TPOTMedian, a.TPOTMedian))
	}
	fmt.Fprintf(w, "coverage (rows priced / all rows): %s → %s\n", coverage(before), coverage(after))
}

// Arrow formats one figure as "before → after" to 0.1; a missing figure is "—".
func Arrow(before, after *float64) string {
	return fig(before) + " → " + fig(after)
}

func fig(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f", *v)
}

func coverage(s *Section) string {
	if s.Total == 0 {
		return "—"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", s.Priced, s.Total, 100*float64(s.Priced)/float64(s.Total))
}
