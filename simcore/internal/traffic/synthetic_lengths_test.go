package traffic

import (
	"math"
	"testing"

	"aisimulate/simcore/spec"
)

// drawn releases every request of a synthetic source with these lengths and returns the
// prompt and output lengths, checking that each prompt holds exactly its length in tokens and
// that no request exceeds the workload's MaxSequenceTokens.
func drawn(t *testing.T, l spec.Lengths, isl, osl, n int) (in, out []int) {
	t.Helper()
	tr := spec.Traffic{
		Source: spec.Source{Type: spec.SourceSynthetic, InputTokens: isl, OutputTokens: osl, Lengths: l},
		Load:   spec.Load{Type: spec.LoadConcurrency, Concurrency: 4},
		Stop:   spec.Stop{Requests: ptr(n)},
	}
	w := Synthetic(tr, 64)
	for {
		s, ok := w.Next()
		if !ok {
			break
		}
		tu := s.Turns[0]
		tokens := 0
		for _, r := range runsOf(tu.Prompt) {
			tokens += r.count
		}
		if tokens != tu.InputLength {
			t.Fatalf("request %d: prompt holds %d tokens, input length %d", len(in), tokens, tu.InputLength)
		}
		if tu.InputLength+tu.OutputLength > w.Sizes.MaxSequenceTokens {
			t.Fatalf("request %d: %d + %d tokens, beyond MaxSequenceTokens %d", len(in), tu.InputLength, tu.OutputLength, w.Sizes.MaxSequenceTokens)
		}
		in, out = append(in, tu.InputLength), append(out, tu.OutputLength)
	}
	if len(in) != n {
		t.Fatalf("%d requests released, want %d", len(in), n)
	}
	return in, out
}

func meanOf(xs []int) float64 {
	s := 0
	for _, x := range xs {
		s += x
	}
	return float64(s) / float64(len(xs))
}

// A uniform draw stays in [⌊min·L⌋, ⌊max·L⌋], reaches both ends, and its mean is the
// range's midpoint within 1 % over 20,000 requests (the standard error is 0.2 %).
func TestUniformLengthDraw(t *testing.T) {
	for _, c := range []struct {
		name     string
		min, max float64
	}{{"one-sided (SGLang, InferenceX)", 0.8, 1}, {"symmetric (vLLM)", 0.9, 1.1}, {"from one token", 0, 1}} {
		t.Run(c.name, func(t *testing.T) {
			in, out := drawn(t, spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: c.min, MaxRatio: c.max}, 1000, 100, 20000)
			for _, x := range []struct {
				name string
				l    int
				vs   []int
			}{{"input", 1000, in}, {"output", 100, out}} {
				lo, hi := max(int(math.Floor(c.min*float64(x.l))), 1), int(math.Floor(c.max*float64(x.l)))
				seenLo, seenHi := false, false
				for _, v := range x.vs {
					if v < lo || v > hi {
						t.Fatalf("%s length %d outside [%d, %d]", x.name, v, lo, hi)
					}
					seenLo, seenHi = seenLo || v == lo, seenHi || v == hi
				}
				if !seenLo || !seenHi {
					t.Errorf("%s: ends %d, %d drawn: %v, %v", x.name, lo, hi, seenLo, seenHi)
				}
				if m, want := meanOf(x.vs), float64(lo+hi)/2; math.Abs(m-want) > 0.01*want {
					t.Errorf("%s mean %.2f, want %.2f ± 1 %%", x.name, m, want)
				}
			}
		})
	}
}

// A normal draw stays in [1, 2L], its mean is L within 1 % and its standard deviation the
// configured ratio of L within 3 %; a ratio of 0 keeps that length constant.
func TestNormalLengthDraw(t *testing.T) {
	in, out := drawn(t, spec.Lengths{Distribution: spec.LengthsNormal, InputStddevRatio: 0.2}, 1000, 100, 20000)
	var ss float64
	for _, v := range in {
		if v < 1 || v > 2000 {
			t.Fatalf("input length %d outside [1, 2000]", v)
		}
		ss += (float64(v) - 1000) * (float64(v) - 1000)
	}
	if m := meanOf(in); math.Abs(m-1000) > 10 {
		t.Errorf("input mean %.2f, want 1000 ± 10", m)
	}
	if sd := math.Sqrt(ss / float64(len(in))); math.Abs(sd-200) > 6 {
		t.Errorf("input standard deviation %.2f, want 200 ± 6", sd)
	}
	for _, v := range out {
		if v != 100 {
			t.Fatalf("output length %d with output_stddev_ratio 0, want 100", v)
		}
	}
}

// The draw is a fixed stream (traffic.lengths, master seed 42): the first lengths are these
// on every run and every target (docs/semantics/simulation.md §2.5).
func TestLengthDrawVector(t *testing.T) {
	in, out := drawn(t, spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1}, 1024, 128, 4)
	wantIn, wantOut := []int{934, 982, 859, 834}, []int{107, 103, 118, 108}
	for i := range in {
		if in[i] != wantIn[i] || out[i] != wantOut[i] {
			t.Fatalf("lengths %v / %v, want %v / %v", in, out, wantIn, wantOut)
		}
	}
}

// DrawLengths gives exactly the lengths the synthetic source's requests carry, in their
// order, for every distribution (a model replaying "the same requests" depends on it).
func TestDrawLengthsIsTheSourcesDraw(t *testing.T) {
	for _, l := range []spec.Lengths{
		{},
		{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1},
		{Distribution: spec.LengthsNormal, InputStddevRatio: 0.1, OutputStddevRatio: 0.2},
	} {
		wantIn, wantOut := drawn(t, l, 1000, 300, 500)
		in, out := DrawLengths(l, 1000, 300, 500)
		for i := range in {
			if in[i] != wantIn[i] || out[i] != wantOut[i] {
				t.Fatalf("%+v: request %d: DrawLengths %d/%d, the source %d/%d", l, i, in[i], out[i], wantIn[i], wantOut[i])
			}
		}
	}
}
