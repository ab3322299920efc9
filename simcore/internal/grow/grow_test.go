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
