package xmath

import (
	"math"
	"testing"
)

func relErr(a, b float64) float64 {
	if a == b {
		return 0
	}
	return math.Abs(a-b) / math.Max(math.Abs(a), math.Abs(b))
}

func TestLogMatchesStdlib(t *testing.T) {
	for _, x := range []float64{1e-300, 1e-10, 0.001, 0.1, 0.5, 0.7071, 0.99, 1, 1.0000001, 2, 3, 10, 12345.678, 1e10, 1e300} {
		if e := relErr(Log(x), math.Log(x)); e > 4e-16 && math.Abs(Log(x)-math.Log(x)) > 1e-300 {
			t.Errorf("Log(%g) = %.17g, stdlib %.17g (rel %g)", x, Log(x), math.Log(x), e)
		}
	}
	if Log(1) != 0 {
		t.Errorf("Log(1) = %g", Log(1))
	}
	if !math.IsInf(Log(0), -1) || !math.IsNaN(Log(-1)) {
		t.Error("Log edge cases")
	}
}

func TestExpMatchesStdlib(t *testing.T) {
	for _, x := range []float64{-700, -50, -1, -0.5, -1e-9, 0, 1e-9, 0.3, 1, 2.5, 10, 100, 700} {
		if e := relErr(Exp(x), math.Exp(x)); e > 4e-16 {
			t.Errorf("Exp(%g) = %.17g, stdlib %.17g (rel %g)", x, Exp(x), math.Exp(x), e)
		}
	}
	if Exp(0) != 1 {
		t.Error("Exp(0) != 1")
	}
}

func TestLog1pExpm1(t *testing.T) {
	for _, x := range []float64{-0.5, -1e-6, 1e-12, 1e-5, 0.01, 3} {
		if e := relErr(Log1p(x), math.Log1p(x)); e > 1e-15 {
			t.Errorf("Log1p(%g) rel %g", x, e)
		}
		if e := relErr(Expm1(x), math.Expm1(x)); e > 1e-15 {
			t.Errorf("Expm1(%g) rel %g", x, e)
		}
	}
}

func FuzzLog(f *testing.F) {
	f.Add(1.5)
	f.Add(1e-200)
	f.Fuzz(func(t *testing.T, x float64) {
		if x <= 0 || math.IsInf(x, 0) || math.IsNaN(x) || x < 1e-300 {
			return
		}
		if e := relErr(Log(x), math.Log(x)); e > 1e-15 && math.Abs(math.Log(x)) > 1e-10 {
			t.Fatalf("Log(%g) rel err %g", x, e)
		}
	})
}

// The unsigned divisions agree with the signed ones on their domain (a ≥ 0, b > 0).
func TestCeilFloorDiv(t *testing.T) {
	for _, b := range []int{1, 2, 3, 16, 64, 1 << 20} {
		for _, a := range []int{0, 1, b - 1, b, b + 1, 7*b + 3, 1<<40 + 5} {
			if got, want := FloorDiv(a, b), a/b; got != want {
				t.Errorf("FloorDiv(%d, %d) = %d, want %d", a, b, got, want)
			}
			if got, want := CeilDiv(a, b), (a+b-1)/b; got != want {
				t.Errorf("CeilDiv(%d, %d) = %d, want %d", a, b, got, want)
			}
		}
	}
}
