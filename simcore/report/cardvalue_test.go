package report

import "testing"

// Cards show durations of 10 s and more in seconds (docs/web.md).
func TestCardScaled(t *testing.T) {
	dur := Card{Label: "Virtual duration", Key: KeyDurationMs, Unit: "ms"}
	for _, c := range []struct {
		card Card
		v    float64
		want float64
		unit string
	}{{dur, 22010, 22.01, "s"}, {dur, 9999, 9999, "ms"}, {dur, 10000, 10, "s"},
		{Card{Unit: "tok/s"}, 22010, 22010, "tok/s"}} {
		if v, unit := c.card.Scaled(c.v); v != c.want || unit != c.unit {
			t.Errorf("%v.Scaled(%v) = %v %s, want %v %s", c.card.Label, c.v, v, unit, c.want, c.unit)
		}
	}
	if ITLNote(7.01, 7.3) != "" || ITLNote(7.3, 7.01) == "" {
		t.Error("ITLNote must explain a mean above the p99, and only that")
	}
}
