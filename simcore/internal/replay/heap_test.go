package replay

import (
	"math/rand/v2"
	"testing"
)

// Every pop returns the least pending event by (at, phase, tie), through interleaved pushes
// and pops with equal times and phases (ties unique, as the loop numbers them), against a
// linear scan of the pending events; the hole-moving sifts must order exactly as swaps would.
func TestEventHeapPopsTheLeast(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var h eventHeap
	var pending []event
	tie := int64(0)
	for step := range 20000 {
		if len(pending) == 0 || rng.IntN(3) > 0 && len(pending) < 64 {
			tie++
			e := event{at: float64(rng.IntN(8)), phase: uint8(1 + rng.IntN(3)), tie: rng.Int64N(1<<20)<<20 | tie, a: int32(step)}
			h.push(e)
			pending = append(pending, e)
			continue
		}
		least := 0
		for i := range pending {
			if pending[i].less(&pending[least]) {
				least = i
			}
		}
		if top := h.top(); *top != pending[least] {
			t.Fatalf("step %d: top %+v, least %+v", step, *top, pending[least])
		}
		if got := h.pop(); got != pending[least] {
			t.Fatalf("step %d: popped %+v, least %+v", step, got, pending[least])
		}
		pending = append(pending[:least], pending[least+1:]...)
		if h.len() != len(pending) {
			t.Fatalf("step %d: %d events in the heap, %d pending", step, h.len(), len(pending))
		}
	}
}
