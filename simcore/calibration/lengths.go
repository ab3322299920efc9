package calibration

import (
	"fmt"
	"strings"
)

// Lengths are the prompt and output lengths of n requests drawn as serving benchmarks with a
// one-sided random range ratio draw them, for the accuracy harness's -spread traces
// (tools/calibrate/rows; the simulator's own draw is the synthetic source's, docs/config.md,
// "Request length draws"): uniform integers in [⌊spread·L⌋, L] for L = isl and osl, prompt and output
// drawn in turn from one fixed-seed splitmix64 generator, so every run and every target sees
// the same lengths. A spread outside (0, 1) gives the constant lengths.
func Lengths(isl, osl, n int, spread float64) (in, out []int) {
	state := uint64(0x9e3779b97f4a7c15)
	next := func() float64 {
		// splitmix64 (Steele, Lea, Flood 2014): a Weyl step, then two xor-shift-multiply
		// rounds; the top 53 bits are a uniform float in [0, 1).
		state += 0x9e3779b97f4a7c15
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		return float64(z>>11) / float64(1<<53)
	}
	draw := func(l int) int {
		if spread <= 0 || spread >= 1 {
			return l
		}
		lo := max(int(spread*float64(l)), 1)
		return min(lo+int(next()*float64(l-lo+1)), l)
	}
	in, out = make([]int, n), make([]int, n)
	for i := range n {
		in[i] = draw(isl)
		out[i] = draw(osl)
	}
	return in, out
}

// TraceBlockSize is the block size of the traces Trace writes.
const TraceBlockSize = 512

// Trace is the Mooncake trace (docs/traces.md) of requests with these lengths, all at time
// 0, every block its own hash id (prefix caching has nothing to share).
func Trace(in, out []int) []byte {
	var b strings.Builder
	id := 1
	for i := range in {
		fmt.Fprintf(&b, "{\"timestamp\": 0, \"input_length\": %d, \"output_length\": %d, \"hash_ids\": [", in[i], out[i])
		for k := 0; k < (in[i]+TraceBlockSize-1)/TraceBlockSize; k++ {
			if k > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%d", id)
			id++
		}
		b.WriteString("]}\n")
	}
	return []byte(b.String())
}
