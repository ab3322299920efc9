// Package hashtab holds the hashing pieces of the per-pass path, where Go maps are too slow:
// Tree, a numbered prefix tree for block hash chains and prompt tries, and Spread, the key
// mixer of the open-addressing tables (Tree's and outputs.Dist's).
package hashtab

// Spread turns a structured key (for example two small integers packed into 64 bits) into a
// well-mixed one for a table: MurmurHash3's 64-bit finaliser, a bijection (xor-shifts and
// odd multiplications are invertible), so distinct keys stay distinct and only 0 maps to 0.
func Spread(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
