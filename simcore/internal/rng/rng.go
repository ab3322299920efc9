// Package rng provides the named pseudo-random streams of docs/semantics/simulation.md §2.5: xoshiro256**
// seeded by SplitMix64 from master_seed XOR fnv1a64(stream name). One stream per purpose,
// so a change in one purpose never shifts the draws of another.
package rng

import "math/bits"

// FNV1a64 is the 64-bit FNV-1a hash of s's UTF-8 bytes.
func FNV1a64(s string) uint64 {
	h := uint64(0xcbf29ce484222325)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 0x100000001b3
	}
	return h
}

// Stream is one xoshiro256** generator.
type Stream struct{ s [4]uint64 }

// New seeds the stream named name from masterSeed.
func New(masterSeed uint64, name string) *Stream {
	x := masterSeed ^ FNV1a64(name)
	st := &Stream{}
	for i := range st.s {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		st.s[i] = z ^ (z >> 31)
	}
	return st
}

// Next returns the next 64 random bits.
func (r *Stream) Next() uint64 {
	s := &r.s
	result := bits.RotateLeft64(s[1]*5, 7) * 9
	t := s[1] << 17
	s[2] ^= s[0]
	s[3] ^= s[1]
	s[1] ^= s[2]
	s[0] ^= s[3]
	s[2] ^= t
	s[3] = bits.RotateLeft64(s[3], 45)
	return result
}

// Uniform01 returns a float64 in [0, 1) with 53 random bits.
func (r *Stream) Uniform01() float64 {
	return float64(r.Next()>>11) * (1.0 / (1 << 53))
}

// UniformInt returns an unbiased integer in [0, n) by rejection (n > 0).
func (r *Stream) UniformInt(n uint64) uint64 {
	threshold := -n % n // (2^64 − n) mod n
	for {
		x := r.Next()
		if x >= threshold {
			return x % n
		}
	}
}
