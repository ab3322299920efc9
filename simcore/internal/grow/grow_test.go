package grow

import (
	"slices"
	"testing"
)

// Room keeps the elements and makes room, doubling; To zero-extends to at least n.
func TestRoomAndTo(t *testing.T) {
	xs := []int{1, 2, 3}
	ys := Room(xs, 10)
	if !slices.Equal(ys, xs) || cap(ys)-len(ys) < 10 {
		t.Fatalf("Room: %v cap %d", ys, cap(ys))
	}
	full := make([]int, 100)
	if c := cap(Room(full, 1)); c != 200 {
		t.Fatalf("Room on a full slice of 100: capacity %d, want 200 (doubling)", c)
	}
	if got := Room(ys, 1); &got[0] != &ys[0] {
		t.Fatal("Room reallocated with room to spare")
	}
	zs := To(xs, 40)
	if len(zs) < 40 || !slices.Equal(zs[:3], xs) || slices.ContainsFunc(zs[3:], func(v int) bool { return v != 0 }) {
		t.Fatalf("To: len %d, %v", len(zs), zs[:5])
	}
	if got := To(zs, 5); len(got) != len(zs) {
		t.Fatal("To shrank")
	}
}

// Within doubles like To but stops at the limit, and keeps the elements.
func TestWithin(t *testing.T) {
	var xs []int
	xs = Within(xs, 1, 1000)
	if len(xs) != 16 {
		t.Fatalf("first growth: len %d, want 16", len(xs))
	}
	xs[15] = 7
	xs = Within(xs, 17, 1000)
	if len(xs) != 32 || xs[15] != 7 {
		t.Fatalf("second growth: len %d, xs[15] %d; want 32 and 7", len(xs), xs[15])
	}
	if got := Within(xs, 20, 1000); len(got) != 32 {
		t.Fatalf("no growth needed: len %d", len(got))
	}
	for len(xs) < 1000 {
		xs = Within(xs, len(xs)+1, 1000)
	}
	if len(xs) != 1000 || cap(xs) != 1000 || xs[15] != 7 {
		t.Fatalf("at the limit: len %d cap %d xs[15] %d; want 1000, 1000, 7", len(xs), cap(xs), xs[15])
	}
	if got := Within([]int(nil), 3, 5); len(got) != 5 {
		t.Fatalf("limit below the first size: len %d, want 5", len(got))
	}
}
