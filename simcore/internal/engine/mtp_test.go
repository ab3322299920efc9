package engine

import (
	"testing"

	"aisimulate/simcore/internal/rng"
)

// Each request draws its drafts from its own stream `mtp` seeded by its ordinal: draft i is
// accepted iff uniform01() < rates[i], and the first rejection ends the draws (so a burst
// uses 1 to nextn draws).
func TestAcceptedDraftsStream(t *testing.T) {
	rates := []float64{0.9, 0.5, 0.5}
	for ordinal := int32(1); ordinal <= 3; ordinal++ {
		r := &Request{Outcome: Outcome{Ordinal: ordinal}}
		s := rng.New(uint64(ordinal), MTPStream)
		for burst := 0; burst < 20; burst++ {
			want := 0
			for _, p := range rates {
				if s.Uniform01() >= p {
					break
				}
				want++
			}
			if got := r.acceptedDrafts(rates); got != want {
				t.Fatalf("ordinal %d burst %d: %d drafts accepted, want %d", ordinal, burst, got, want)
			}
		}
	}
	r := &Request{Outcome: Outcome{Ordinal: 9}}
	for i := 0; i < 50; i++ {
		if n := r.acceptedDrafts([]float64{1, 1}); n != 2 {
			t.Fatalf("rates 1: %d accepted", n)
		}
		if n := r.acceptedDrafts([]float64{0, 1}); n != 0 {
			t.Fatalf("rate 0 first: %d accepted", n)
		}
	}
}

// A burst is clipped to the tokens the request still owes (its output or the context).
func TestEmitDecodeClipping(t *testing.T) {
	cfg := &RankConfig{NextN: 3, AcceptRates: []float64{1, 1, 1}, MaxModelLen: 0}
	k := &Rank{cfg: cfg}
	r := &Request{Outcome: Outcome{Ordinal: 1, L: 10, O: 3}}
	k.emitDecode(r, 5, nil, 0)
	if r.Tokens != 3 || r.generated != 3 || r.LastToken != 5 || len(r.gaps) != 2 || r.gaps[0] != 0 || r.gaps[1] != 0 {
		t.Errorf("O 3: %d tokens, generated %d, last %g, gaps %v; want 3 at 5 with two zero gaps", r.Tokens, r.generated, r.LastToken, r.gaps)
	}
	cfg.MaxModelLen = 12 // known 10 → at most 2 more tokens
	r = &Request{Outcome: Outcome{Ordinal: 2, L: 10, O: 100}}
	k.emitDecode(r, 1, nil, 0)
	if r.Tokens != 2 {
		t.Errorf("context 12: %d tokens, want 2", r.Tokens)
	}
}
