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
