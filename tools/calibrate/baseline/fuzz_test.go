package baseline

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Parse never panics, and whatever it accepts writes back to text it reads as the same file.
func FuzzParse(f *testing.F) {
	f.Add(committed)
	f.Add([]byte(`{"logo": {"model": "m", "priced": 1, "total": 2, "slices": [{"name": "all rows", "rows": 1, "ttft_mape": 1.5}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		a, err := Parse(b)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := a.Write(&buf); err != nil {
			t.Fatal(err)
		}
		back, err := Parse(buf.Bytes())
		if err != nil {
			t.Fatalf("written baseline does not parse: %v\n%s", err, buf.Bytes())
		}
		if d := cmp.Diff(a, back); d != "" {
			t.Errorf("round trip (-first +second):\n%s", d)
		}
	})
}
