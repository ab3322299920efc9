package engine

import (
	"testing"

	"aisimulate/simcore/internal/traffic"
)

func BenchmarkMicroExtendHashes(b *testing.B) {
	in := NewHashIDs()
	segs := make([]traffic.Segment, 16)
	for i := range segs {
		segs[i] = traffic.Segment{Token: uint32(i + 1), Count: 64}
	}
	for i := 0; i < b.N; i++ {
		r := &Request{Outcome: Outcome{L: 1024, O: 128}, Prompt: segs}
		r.extendHashIDs(1024, 64, in)
	}
}

func BenchmarkMicroPoolCycle(b *testing.B) {
	p := NewKVPool(16384, true, false)
	blocks := make([]int32, 0, 20)
	for i := 0; i < b.N; i++ {
		blocks = blocks[:0]
		p.TakeAnon(18)
		for j := 0; j < 18; j++ {
			bl := p.Identify()
			blocks = append(blocks, bl)
			p.Register(bl, int32((i*18+j)%(1<<16)), 0, true)
		}
		p.Release(blocks, 0, 0, 0, false)
	}
}

func BenchmarkMicroAlloc(b *testing.B) {
	var keep []*Request
	for i := 0; i < b.N; i++ {
		r := &Request{Outcome: Outcome{L: 1024}}
		r.Reserve(64, 0)
		keep = append(keep, r)
		if len(keep) > 100000 {
			keep = keep[:0]
		}
	}
}

// BenchmarkMicroLargePool is one rank of a token-granular SGLang decode pool (3.8 M blocks of
// one token, DeepSeek-R1 FP4 on B200) serving a request of 1024 + 1024 tokens without prefix
// caching: the pool's allocation per rank (B/op) is its block state, which a lazy pool never
// makes for anonymous blocks (docs/performance.md, "Lazy KV pools").
func BenchmarkMicroLargePool(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		p := NewKVPool(3_825_506, false, false)
		p.TakeAnon(2048)
		p.Release(nil, 2048, 0, 0, true)
	}
}
