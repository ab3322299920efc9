package engine

import (
	"aisimulate/simcore/internal/hashtab"
	"aisimulate/simcore/internal/xmath"
)

// Block hashing (docs/semantics/simulation.md §4.1). Hash values never reach outputs, so we use our own
// fixed 64-bit function [decision, docs/semantics/simulation.md §4.1]: a block's local hash
// mixes its maximal runs of equal tokens as (token<<32 | run length), which is a function of
// the block's tokens alone; seq(i) mixes seq(i−1) with local(i).

const hashSeed = 1337

// mix64 is a SplitMix64-style finaliser over a ^ b·odd.
func mix64(a, b uint64) uint64 {
	z := a ^ (b * 0x9e3779b97f4a7c15)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// chainHash combines the parent's sequence hash with a block's local hash.
// Zero is reserved (hashtab.Tree keys are nonzero), so it maps to 1.
func chainHash(parent, local uint64) uint64 {
	h := mix64(parent+0x632be59bd9b4e019, local)
	if h == 0 {
		h = 1
	}
	return h
}

// generatedToken is the default id of a request's k-th (0-based) generated token.
func generatedToken(ordinal int32, k int) uint32 {
	return 0x80000000 | uint32((uint64(ordinal)*65599+uint64(k))%(1<<31))
}

// tokenCursor walks a request's token sequence (prompt, then generated tokens) as runs.
type tokenCursor struct {
	r      *Request
	pos    int // absolute token position
	seg    int // prompt segment index
	segOff int // offset inside the segment
	outSeg int // explicit output segment index
	outOff int
}

// nextRun returns the next run (token, count ≤ limit) starting at c.pos.
func (c *tokenCursor) nextRun(limit int) (uint32, int) {
	r := c.r
	if c.pos < r.L {
		for c.segOff >= r.Prompt[c.seg].Count {
			c.seg++
			c.segOff = 0
		}
		s := r.Prompt[c.seg]
		n := s.Count - c.segOff
		tok := s.Token
		if s.Stride > 0 {
			// A stride segment changes token at every Stride-token block.
			blk := xmath.FloorDiv(c.segOff, int(s.Stride))
			tok += uint32(blk)
			if end := (blk+1)*int(s.Stride) - c.segOff; n > end {
				n = end
			}
		}
		if rem := r.L - c.pos; n > rem {
			n = rem
		}
		if n > limit {
			n = limit
		}
		c.segOff += n
		c.pos += n
		return tok, n
	}
	k := c.pos - r.L
	if r.OutputTokens != nil {
		for c.outSeg < len(r.OutputTokens) && c.outOff >= r.OutputTokens[c.outSeg].Count {
			c.outSeg++
			c.outOff = 0
		}
		if c.outSeg < len(r.OutputTokens) {
			s := r.OutputTokens[c.outSeg]
			n := s.Count - c.outOff
			if n > limit {
				n = limit
			}
			c.outOff += n
			c.pos += n
			return s.Token, n
		}
	}
	c.pos++
	return generatedToken(r.Ordinal, k), 1
}

// extendHashIDs appends the hash ids (numbered by in) of the sequence hashes of every full
// block of the first upto tokens that is not hashed yet. Hashes are computed at most once
// per request, block size and numbering.
func (r *Request) extendHashIDs(upto, bs int, in *HashIDs) {
	if r.hashBS != bs || r.hashIDsOf != in {
		r.hashIDs = r.hashIDs[:0]
		r.hashBS, r.hashIDsOf = bs, in
		r.cursor = tokenCursor{r: r}
	}
	full := r.Shareable(bs)
	if full > 0 {
		full = min(int(uint(upto)/uint(bs)), full)
	}
	b := len(r.hashIDs)
	if b >= full {
		return
	}
	parent, parentID := uint64(0), hashtab.Root
	if b > 0 {
		parentID = r.hashIDs[b-1]
		parent = in.Hash(parentID)
	}
	for ; b < full; b++ {
		c := &r.cursor
		if c.pos != b*bs {
			*c = tokenCursor{r: r}
			for c.pos < b*bs {
				c.nextRun(b*bs - c.pos)
			}
		}
		if c.pos+bs <= r.L {
			// Blocks inside one plain prompt segment are one run each, with the same local
			// hash (trace prompts are made of such segments): they are hashed together,
			// without the run loop. (Unsigned division: signed is a runtime call in wasm.)
			for c.segOff >= r.Prompt[c.seg].Count {
				c.seg++
				c.segOff = 0
			}
			if s := r.Prompt[c.seg]; s.Stride == 0 && s.Count-c.segOff >= bs {
				n := min(uint(s.Count-c.segOff)/uint(bs), uint(r.L-c.pos)/uint(bs), uint(full-b))
				local := mix64(hashSeed, uint64(s.Token)<<32|uint64(bs))
				ids := r.hashIDs
				for range n {
					parent = chainHash(parent, local)
					parentID = in.tree.Child(parentID, parent)
					ids = append(ids, parentID)
				}
				r.hashIDs = ids
				c.segOff += int(n) * bs
				c.pos += int(n) * bs
				b += int(n) - 1
				continue
			}
		}
		local := uint64(hashSeed)
		var curTok uint32
		curCnt := 0
		for left := bs; left > 0; {
			tok, n := c.nextRun(left)
			left -= n
			if curCnt > 0 && tok == curTok {
				curCnt += n
				continue
			}
			if curCnt > 0 {
				local = mix64(local, uint64(curTok)<<32|uint64(curCnt))
			}
			curTok, curCnt = tok, n
		}
		local = mix64(local, uint64(curTok)<<32|uint64(curCnt))
		parent = chainHash(parent, local)
		parentID = in.tree.Child(parentID, parent)
		r.hashIDs = append(r.hashIDs, parentID)
	}
}
