// Package grow sizes the arrays that long runs append to or index by ever larger ids (pass
// ends, per-pass counts, per-hash-id state): they double when full, where append grows a
// large slice by only a quarter and so copies each element about four times over (the
// Mooncake trace's pass arrays reach hundreds of thousands of entries per worker).
package grow

// Room returns xs, with the same elements, with capacity for at least n more.
func Room[T any](xs []T, n int) []T {
	if cap(xs)-len(xs) >= n {
		return xs
	}
	ys := make([]T, len(xs), max(2*cap(xs), len(xs)+n, 16))
	copy(ys, xs)
	return ys
}

// To returns xs extended with zero values to at least n elements (its whole capacity).
func To[T any](xs []T, n int) []T {
	if n <= len(xs) {
		return xs
	}
	xs = Room(xs, n-len(xs))
	xs = xs[:cap(xs)]
	return xs
}

// Within is To for an array indexed by ids below limit (a KV pool's capacity): it extends xs
// with zero values to at least n elements, doubling, but never past limit elements, so an
// array that grows with the highest id in use holds at most what a full-size one would.
// n must not exceed limit.
func Within[T any](xs []T, n, limit int) []T {
	if n <= len(xs) {
		return xs
	}
	size := min(max(2*len(xs), n, 16), limit)
	if size <= cap(xs) {
		ys := xs[:size]
		clear(ys[len(xs):])
		return ys
	}
	ys := make([]T, size)
	copy(ys, xs)
	return ys
}
