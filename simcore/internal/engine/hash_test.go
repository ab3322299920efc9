package engine

import (
	"slices"
	"testing"

	"aisimulate/simcore/internal/traffic"
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

// Blocks that lie inside one plain segment (hashed together, without the run loop) hash like
// the same tokens given one per segment (hashed run by run), including blocks that straddle
// segments of the same token and a partial last block, at once or a few tokens at a time.
func TestPlainSegmentBlocksHashLikeSingleTokens(t *testing.T) {
	segs := []traffic.Segment{{Token: 3, Count: 63}, {Token: 5, Count: 1}, {Token: 9, Count: 200}, {Token: 9, Count: 56}, {Token: 4, Count: 130}, {Token: 7, Count: 300}}
	var single []traffic.Segment
	L := 0
	for _, s := range segs {
		for range s.Count {
			single = append(single, traffic.Segment{Token: s.Token, Count: 1})
		}
		L += s.Count
	}
	in := NewHashIDs()
	for _, bs := range []int{16, 64, 100} {
		a := &Request{Outcome: Outcome{Ordinal: 1, L: L, O: 4}, Prompt: segs, SharedTokens: -1}
		b := &Request{Outcome: Outcome{Ordinal: 1, L: L, O: 4}, Prompt: single, SharedTokens: -1}
		if ha, hb := a.PromptHashIDs(bs, in), b.PromptHashIDs(bs, in); len(ha) != L/bs || !slices.Equal(ha, hb) {
			t.Errorf("block size %d: %v, want %v", bs, ha, hb)
		}
		// Hashed a few tokens at a time (as chunked prefill registers blocks), the same ids.
		c := &Request{Outcome: Outcome{Ordinal: 1, L: L, O: 4}, Prompt: segs, SharedTokens: -1}
		for upto := 0; upto <= L; upto += 37 {
			c.extendHashIDs(upto, bs, in)
			if len(c.hashIDs) != upto/bs {
				t.Fatalf("block size %d, %d tokens: %d blocks hashed", bs, upto, len(c.hashIDs))
			}
		}
		if hc := c.PromptHashIDs(bs, in); !slices.Equal(hc, a.PromptHashIDs(bs, in)) {
			t.Errorf("block size %d: hashed incrementally %v, want %v", bs, hc, a.PromptHashIDs(bs, in))
		}
	}
}
