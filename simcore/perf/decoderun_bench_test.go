package perf

import "testing"

// BenchmarkPolynomialDecodeRun prices a million fast-forwarded decode passes with the
// polynomial model, as the Mooncake trace's 2.7 million passes are priced.
func BenchmarkPolynomialDecodeRun(b *testing.B) {
	p := Polynomial{}
	ends := make([]float64, 0, 1<<20)
	for b.Loop() {
		ends = p.DecodeRun(64, 100000, 1<<20, 0, 1e18, 1<<20, ends[:0])
	}
}

// BenchmarkPolynomialDecodeRunShared is the same through the shared loop decodeRun (an
// interface call and a division per pass): why Polynomial.DecodeRun has its own loop.
func BenchmarkPolynomialDecodeRunShared(b *testing.B) {
	var t Timing = Polynomial{}
	ends := make([]float64, 0, 1<<20)
	for b.Loop() {
		ends = decodeRun(t, 64, 100000, 1<<20, 0, 1e18, 1<<20, ends[:0])
	}
}
