// Package xmath holds the math helpers of simulation paths: transcendental functions, our own
// pure-Go implementations so every target (native tests, the wasip1 module, js/wasm) computes
// the same bits (the standard library uses assembly for some of them on amd64 only), and
// integer divisions that stay clear of WebAssembly runtime calls.
package xmath

import "math"

const (
	ln2Hi = 6.93147180369123816490e-01 // high bits of ln 2 (exact in float64 multiples)
	ln2Lo = 1.90821492927058770002e-10 // ln 2 − ln2Hi
	ln2   = 0.6931471805599453
)

// Log is the natural logarithm. It splits x = m·2^e with m in [√½, √2) and sums the series
// ln m = 2·atanh(s), s = (m−1)/(m+1), which converges fast since |s| ≤ 0.172.
func Log(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	case math.IsInf(x, 1):
		return x
	}
	m, e := math.Frexp(x) // x = m·2^e, m in [0.5, 1)
	if m < math.Sqrt2/2 {
		m *= 2
		e--
	}
	s := (m - 1) / (m + 1)
	s2 := s * s
	// Horner over the odd series 1 + s²/3 + s⁴/5 + … (terms up to s^26 keep < 1e-20 error).
	sum := 0.0
	for k := 25; k >= 1; k -= 2 {
		sum = float64(sum*s2) + 1/float64(k)
	}
	lnm := 2 * float64(s*sum)
	fe := float64(e)
	return float64(fe*ln2Hi) + (float64(fe*ln2Lo) + lnm)
}

// Exp is e^x: x = k·ln2 + r with |r| ≤ ln2/2, a Taylor sum for e^r, then scaling by 2^k.
func Exp(x float64) float64 {
	switch {
	case math.IsNaN(x):
		return x
	case x > 709.782712893384:
		return math.Inf(1)
	case x < -745.1332191019412:
		return 0
	}
	k := math.Floor(x/ln2 + 0.5)
	r := (x - float64(k*ln2Hi)) - float64(k*ln2Lo)
	// Taylor series of e^r to degree 20 (|r| ≤ 0.347 ⇒ truncation < 1e-22).
	sum := 1.0
	for n := 20; n >= 1; n-- {
		sum = float64(sum*r)/float64(n) + 1
	}
	return math.Ldexp(sum, int(k))
}

// Log1p is ln(1+x), accurate for small x: for |x| < 0.5 it sums 2·atanh(s), s = x/(2+x),
// without forming 1+x.
func Log1p(x float64) float64 {
	if math.Abs(x) >= 0.5 || math.IsNaN(x) {
		return Log(1 + x)
	}
	s := x / (2 + x)
	s2 := s * s
	sum := 0.0
	for k := 39; k >= 1; k -= 2 {
		sum = float64(sum*s2) + 1/float64(k)
	}
	return 2 * float64(s*sum)
}

// Expm1 is e^x − 1, accurate for small x: for |x| < 0.5 a Taylor sum without the leading 1.
func Expm1(x float64) float64 {
	if math.Abs(x) >= 0.5 || math.IsNaN(x) {
		return Exp(x) - 1
	}
	// e^x − 1 = x·(1 + x/2·(1 + x/3·(1 + …)))
	sum := 1.0
	for n := 24; n >= 2; n-- {
		sum = float64(float64(sum*x)/float64(n)) + 1
	}
	return x * sum
}
