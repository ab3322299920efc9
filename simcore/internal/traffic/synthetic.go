package traffic

import (
	"fmt"
	"math"

	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// Synthetic builds the workload of a synthetic or synthetic-session source (docs/semantics/simulation.md
// §12). blockSize is the engine block size of the entry role: prompts are
// synthesised block by block so prefix groups share whole engine blocks.
func Synthetic(t spec.Traffic, blockSize int) Workload {
	src, load := t.Source, t.Load
	session := src.Type == spec.SourceSyntheticSession
	isl, osl, turns := src.InputTokens, src.OutputTokens, 1
	var ratio, delay float64
	groups := 0
	if session {
		isl, osl = src.NewInputTokensPerTurn, src.OutputTokensPerTurn
		turns = src.Session.Turns
		ratio, groups, delay = src.Session.SharedPrefixRatio, src.Session.PrefixGroups, src.Session.InterTurnDelayMs
	}
	count := t.StopCount()
	numBlocks := (isl + blockSize - 1) / blockSize
	prefixBlocks := 0
	if groups > 0 && ratio > 0 {
		prefixBlocks = min(numBlocks, int(math.Round(float64(numBlocks)*ratio)))
	}
	groupStream := rng.New(42, "traffic.prefix_groups")
	var arrivals *rng.Stream
	rate := 0.0
	if load.RequestsPerSecond != nil {
		rate = *load.RequestsPerSecond
	}
	if load.SessionsPerSecond != nil {
		rate = *load.SessionsPerSecond
	}
	if load.Type == spec.LoadPoisson {
		arrivals = rng.New(load.Seed, "traffic.arrivals")
	}
	var uniqueID uint64
	next := 0
	// Turns and prompts are carved out of shared chunks: one allocation per thousands of
	// requests instead of two per request.
	var turnBuf []Turn
	var segBuf []Segment
	clock := 0.0
	w := Workload{Sessions: count, OpenLoop: load.Type != spec.LoadConcurrency, Concurrency: load.Concurrency, SingleTurn: turns == 1}
	// Without a length draw every turn is alike: its shared prefix is known, its sequence
	// isl + osl.
	sharedTokens := min(isl, prefixBlocks*blockSize)
	one := Sizes{}
	draw := newLengthDraw(src)
	if draw != nil {
		// A drawn request is at most the draw's longest lengths; it shares nothing (a plain
		// synthetic source has no prefix groups).
		one.add(&Turn{InputLength: draw.maxLength(isl), OutputLength: draw.maxLength(osl), SharedKnown: true})
	} else {
		one.add(&Turn{InputLength: isl, OutputLength: osl, SharedTokens: sharedTokens, SharedKnown: true})
	}
	n := float64(count) * float64(turns)
	w.Sizes = Sizes{ShareableTokens: one.ShareableTokens * n, ShareableRequests: one.ShareableRequests * n, MaxSequenceTokens: one.MaxSequenceTokens}
	w.Next = func() (Session, bool) {
		if next >= count {
			return Session{}, false
		}
		idx := next
		next++
		s := Session{}
		if session {
			s.ID = fmt.Sprintf("session_%d", idx+1)
		}
		switch load.Type {
		case spec.LoadConstantRate:
			s.ArrivalMs = float64(idx) * 1000 / rate
		case spec.LoadPoisson:
			if idx > 0 {
				mean := 1000 / rate
				clock += -mean * xmath.Log(1-arrivals.Uniform01())
			}
			s.ArrivalMs = clock
		}
		g := uint64(0)
		if prefixBlocks > 0 {
			g = groupStream.UniformInt(uint64(groups))
		}
		if len(turnBuf) < turns {
			turnBuf = make([]Turn, max(turns, 1024))
		}
		s.Turns, turnBuf = turnBuf[:turns:turns], turnBuf[turns:]
		isl, osl, numBlocks := isl, osl, numBlocks
		if draw != nil {
			isl, osl = draw.next()
			numBlocks = (isl + blockSize - 1) / blockSize
		}
		for k := range s.Turns {
			// Prefix blocks one segment each, then one stride segment for the unique blocks
			// (one segment per block once the ids pass 2^32).
			nseg := min(numBlocks, prefixBlocks+1)
			if uniqueID+uint64(numBlocks) >= 1<<32 {
				nseg = numBlocks
			}
			if len(segBuf) < nseg {
				segBuf = make([]Segment, max(nseg, 16384))
			}
			segs := segBuf[:0:nseg]
			segBuf = segBuf[nseg:]
			left := isl
			for b := 0; b < numBlocks; b++ {
				var id uint64
				if b < prefixBlocks {
					id = 0xD00D000000000000 | g<<32 | uint64(b)
				} else {
					if uniqueID+uint64(numBlocks) < 1<<32 {
						// The unique blocks' ids run on by one and fold to themselves:
						// one stride segment holds them all.
						segs = append(segs, Segment{Token: foldID(uniqueID + 1), Stride: uint32(blockSize), Count: left})
						uniqueID += uint64(numBlocks - b)
						break
					}
					uniqueID++
					id = uniqueID
				}
				n := min(blockSize, left)
				left -= n
				segs = append(segs, Segment{Token: foldID(id), Count: n})
			}
			// turnBuf is fresh (zeroed): set the fields one by one instead of copying a whole
			// Turn, whose pointer fields each cost a write barrier.
			tu := &s.Turns[k]
			tu.InputLength, tu.OutputLength = isl, osl
			tu.Prompt = segs
			tu.SharedTokens, tu.SharedKnown = sharedTokens, true
			if k > 0 {
				tu.DelayMs = delay
			}
		}
		return s, true
	}
	return w
}

// foldID maps a 64-bit block id to the 32-bit token id that fills its block. The reference
// truncates to the low 32 bits, which would give every prefix group the same tokens; we fold
// the high half in so groups stay distinct [decision, docs/semantics/simulation.md].
func foldID(id uint64) uint32 { return uint32(id ^ id>>32) }
