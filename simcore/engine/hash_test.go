package engine

import (
	"slices"
	"testing"

	"aisimulate/simcore/traffic"
)

// A stride segment hashes exactly like the per-block segments it stands for, at any hashing
// block size (aligned with its blocks or not) and with a plain segment in front of it.
func TestStrideSegmentHashesLikeBlocks(t *testing.T) {
	const stride, blocks = 64, 9
	L := stride*blocks - 20 // a partial last block
	plain := []traffic.Segment{{Token: 5, Count: 64}}
	strided := []traffic.Segment{{Token: 5, Count: 64}, {Token: 100, Stride: stride, Count: L - 64}}
	left := L - 64
	for k := uint32(0); left > 0; k++ {
		n := min(left, stride)
		plain = append(plain, traffic.Segment{Token: 100 + k, Count: n})
		left -= n
	}
	in := NewHashIDs()
	for _, bs := range []int{16, 48, 64, 128, 200} {
		a := &Request{Outcome: Outcome{Ordinal: 1, L: L, O: 4}, Prompt: plain, SharedTokens: -1}
		b := &Request{Outcome: Outcome{Ordinal: 1, L: L, O: 4}, Prompt: strided, SharedTokens: -1}
		if ha, hb := a.PromptHashIDs(bs, in), b.PromptHashIDs(bs, in); len(ha) != L/bs || !slices.Equal(ha, hb) {
			t.Errorf("block size %d: stride hashes differ from per-block hashes (%d vs %d blocks)", bs, len(hb), len(ha))
		}
	}
}
