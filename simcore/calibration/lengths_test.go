package calibration

import (
	"slices"
	"testing"
)

// The draw is splitmix64 from its fixed seed: the first three (prompt, output) pairs of
// 1024/128 at spread 0.8 are those an independent implementation of the generator gives
// (907, 102), (1019, 104), (886, 106); every length lies in [⌊0.8·L⌋, L], both ends are
// reached, the mean is the uniform's, and a spread outside (0, 1) keeps the lengths constant.
func TestLengthsDrawUniformlyInTheSpread(t *testing.T) {
	in, out := Lengths(1024, 128, 4000, 0.8)
	if !slices.Equal(in[:3], []int{907, 1019, 886}) || !slices.Equal(out[:3], []int{102, 104, 106}) {
		t.Fatalf("first draws %v %v, want [907 1019 886] [102 104 106]", in[:3], out[:3])
	}
	for _, c := range []struct {
		got      []int
		lo, hi   int
		wantMean float64
	}{{in, 819, 1024, 921.5}, {out, 102, 128, 115}} {
		total := 0
		for i, v := range c.got {
			if v < c.lo || v > c.hi {
				t.Fatalf("request %d length %d outside [%d, %d]", i, v, c.lo, c.hi)
			}
			total += v
		}
		if slices.Min(c.got) != c.lo || slices.Max(c.got) != c.hi {
			t.Errorf("lengths span [%d, %d], want [%d, %d]", slices.Min(c.got), slices.Max(c.got), c.lo, c.hi)
		}
		if mean := float64(total) / float64(len(c.got)); mean < 0.99*c.wantMean || mean > 1.01*c.wantMean {
			t.Errorf("mean length %.1f, want %.1f ± 1 %%", mean, c.wantMean)
		}
	}
	again, _ := Lengths(1024, 128, 4000, 0.8)
	if !slices.Equal(again, in) {
		t.Error("two draws differ")
	}
	for _, s := range []float64{0, 1} {
		in, out := Lengths(1024, 128, 5, s)
		if slices.ContainsFunc(in, func(v int) bool { return v != 1024 }) || slices.ContainsFunc(out, func(v int) bool { return v != 128 }) {
			t.Errorf("spread %g: lengths %v %v, want constant 1024/128", s, in, out)
		}
	}
}

// The trace is one Mooncake line per request at time 0, one fresh hash id per started block
// of TraceBlockSize tokens.
func TestTraceWritesOneLinePerRequest(t *testing.T) {
	got := string(Trace([]int{600, 512}, []int{5, 7}))
	want := "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [1, 2]}\n" +
		"{\"timestamp\": 0, \"input_length\": 512, \"output_length\": 7, \"hash_ids\": [3]}\n"
	if got != want {
		t.Fatalf("trace:\n%s\nwant:\n%s", got, want)
	}
}
