package simcore

import (
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/perf"
)

// poolTiming is a lowered pool, possibly absent.
type poolTiming struct{ p *replay.PoolPlan }

// defaultModel is the pool's default timing model, nil for an absent pool or another model.
func (t *poolTiming) defaultModel() *perf.Default {
	if t.p == nil {
		return nil
	}
	d, _ := t.p.Rank.Timing.(*perf.Default)
	return d
}

// surrogateKVTokens is a rank's KV capacity as the steady-state surrogate takes it
// (perf.SimAgg, perf.SimDisagg): its blocks, bounded by its sequence limit at the
// surrogate's footprint per request (perf.Footprint).
func surrogateKVTokens(pp *replay.PoolPlan, backend string, isl, osl int) int64 {
	kv := int64(pp.Rank.NumBlocks) * int64(pp.Rank.BlockSize)
	if s := pp.Rank.MaxSequences; s > 0 {
		kv = min(kv, int64(s)*int64(perf.Footprint(backend, isl, osl)))
	}
	return kv
}
