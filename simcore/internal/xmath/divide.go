package xmath

// CeilDiv is ⌈a/b⌉ and FloorDiv ⌊a/b⌋ for a ≥ 0, b > 0: block counts and block boundaries
// on the scheduler and router paths. They divide unsigned because signed division compiles
// to a runtime call in WebAssembly (it must handle MinInt64 / −1), which cost about 10 % of a
// trace replay's instructions on the fast-forward path alone.
func CeilDiv(a, b int) int { return int(uint(a+b-1) / uint(b)) }

// FloorDiv is ⌊a/b⌋ for a ≥ 0, b > 0 (see CeilDiv).
func FloorDiv(a, b int) int { return int(uint(a) / uint(b)) }
