package traffic

import (
	"math"

	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// lengthDraw draws the prompt and output length of each synthetic request from the source's
// lengths (docs/config.md, "Request length draws"; docs/semantics/simulation.md §2.5, stream
// traffic.lengths, master seed 42): per request the prompt length, then the output length.
type lengthDraw struct {
	l        spec.Lengths
	isl, osl int
	stream   *rng.Stream
}

// newLengthDraw is the draw of a synthetic source; nil when its lengths are constant.
func newLengthDraw(src spec.Source) *lengthDraw {
	if src.Type != spec.SourceSynthetic || src.Lengths.Constant() {
		return nil
	}
	return &lengthDraw{l: src.Lengths, isl: src.InputTokens, osl: src.OutputTokens, stream: rng.New(42, "traffic.lengths")}
}

// maxLength is the longest length the draw can give around l.
func (g *lengthDraw) maxLength(l int) int {
	return int(math.Floor(g.l.MaxFactor() * float64(l)))
}

// next is the next request's prompt and output length.
func (g *lengthDraw) next() (in, out int) {
	if g.l.Distribution == spec.LengthsUniform {
		return g.uniform(g.isl), g.uniform(g.osl)
	}
	return g.normal(g.isl, g.l.InputStddevRatio), g.normal(g.osl, g.l.OutputStddevRatio)
}

// uniform is an integer uniform in [max(⌊min_ratio·l⌋, 1), ⌊max_ratio·l⌋], as numpy's
// randint(low, high + 1) of the benchmark clients draws it.
func (g *lengthDraw) uniform(l int) int {
	lo := max(int(math.Floor(g.l.MinRatio*float64(l))), 1)
	hi := g.maxLength(l)
	return lo + int(g.stream.UniformInt(uint64(hi-lo+1)))
}

// normal is round(l + σ·z) for σ = ratio·l and z a standard normal, drawn again while outside
// [1, 2l]: a normal truncated symmetrically about l, so its mean stays l (AIPerf's
// sample_positive_normal_integer truncates at 0 only; they differ beyond 2l, which a normal
// of σ ≤ l/3 reaches less than once in 700 draws). ratio 0 is l.
func (g *lengthDraw) normal(l int, ratio float64) int {
	if ratio == 0 {
		return l
	}
	sigma := ratio * float64(l)
	for {
		v := math.Round(float64(l) + float64(sigma*g.standardNormal()))
		if v >= 1 && v <= 2*float64(l) {
			return int(v)
		}
	}
}

// standardNormal is one standard normal by Marsaglia's polar method: u, v uniform in (−1, 1)
// until 0 < s = u² + v² < 1, then u·√(−2 ln s / s). It needs only log (xmath's, the same bits
// on every target) and the correctly rounded square root.
func (g *lengthDraw) standardNormal() float64 {
	for {
		u := 2*g.stream.Uniform01() - 1
		v := 2*g.stream.Uniform01() - 1
		s := float64(u*u) + float64(v*v)
		if s > 0 && s < 1 {
			return u * math.Sqrt(-2*xmath.Log(s)/s)
		}
	}
}

// DrawLengths is the prompt and output lengths of the first n requests of a synthetic source
// of lengths l around isl and osl: the draw newLengthDraw gives, in the order the source's
// requests take it (constant lengths when l is constant).
func DrawLengths(l spec.Lengths, isl, osl, n int) (in, out []int) {
	in, out = make([]int, n), make([]int, n)
	g := newLengthDraw(spec.Source{Type: spec.SourceSynthetic, InputTokens: isl, OutputTokens: osl, Lengths: l})
	for i := range n {
		if g == nil {
			in[i], out[i] = isl, osl
			continue
		}
		in[i], out[i] = g.next()
	}
	return in, out
}
