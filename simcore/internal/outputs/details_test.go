package outputs

import "testing"

// No detail section asked for means no details object at all (docs/semantics/outputs.md §3.1).
func TestNoDetailsWithoutSections(t *testing.T) {
	if d, err := Details(nil); d != nil || err != nil {
		t.Errorf("Details(nil) = %v, %v; want no details object", d, err)
	}
}
