package rng

import "testing"

// Test vectors from docs/semantics/simulation.md §2.5.
func TestSpecVectors(t *testing.T) {
	if got := FNV1a64("router.agg"); got != 0xf31466b9a02b8a5b {
		t.Fatalf("fnv1a64(router.agg) = %#x", got)
	}
	s := New(42, "router.agg")
	want := []uint64{0x3b88224e87c2c80c, 0xfbaf3b73511a26f0, 0xb06c266da8c09c42}
	for i, w := range want {
		if got := s.Next(); got != w {
			t.Fatalf("draw %d = %#x, want %#x", i, got, w)
		}
	}
	if got := New(42, "router.agg").Uniform01(); got != 0.23254599015468636 {
		t.Fatalf("uniform01 = %.17g", got)
	}
	s = New(42, "router.agg")
	wantInts := []uint64{0, 0, 0, 1, 0, 1, 1, 0}
	for i, w := range wantInts {
		if got := s.UniformInt(2); got != w {
			t.Fatalf("uniform_int(2) draw %d = %d, want %d", i, got, w)
		}
	}
}

func TestUniformIntRange(t *testing.T) {
	s := New(7, "x")
	for n := uint64(1); n < 50; n++ {
		for i := 0; i < 100; i++ {
			if v := s.UniformInt(n); v >= n {
				t.Fatalf("UniformInt(%d) = %d", n, v)
			}
		}
	}
}
