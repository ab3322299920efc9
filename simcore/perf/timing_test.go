package perf

import (
	"slices"
	"testing"

	"aisimulate/simcore/spec"
)

// loopRun is DecodeRun written as the fast-forward used to run it: one DecodeMs call per pass.
func loopRun(t Timing, batch int, kv, totalKV int64, start, horizon float64, max int) []float64 {
	var ends []float64
	for i := 0; i < max; i++ {
		end := start + t.DecodeMs(batch, kv, int(kv/int64(batch)), totalKV)
		if end >= horizon || end == start {
			break
		}
		ends = append(ends, end)
		start = end
		kv += int64(batch)
	}
	return ends
}

// DecodeRun gives, for every model, the pass ends of a loop over DecodeMs: bit for bit, up
// to max passes, stopping before the horizon, and not at all for passes that take no time.
func TestDecodeRunEqualsLoop(t *testing.T) {
	models := map[string]Timing{
		"fixed":      Fixed{Prefill: 2, Decode: 1.25},
		"fixed zero": Fixed{},
		"polynomial": Polynomial{},
		"default":    mustTiming(t, "meta-llama/Meta-Llama-3.1-8B-Instruct", "h200_sxm", "vllm", spec.Parallelism{Tensor: 1}, Quant{}),
	}
	for name, tm := range models {
		for _, c := range []struct {
			batch          int
			kv             int64
			start, horizon float64
			max            int
		}{
			{64, 64 * 1100, 0, 1e9, 500},        // stops at max
			{7, 7 * 300, 12345.678, 12600, 1e6}, // stops at the horizon
			{1, 1, 3, 3, 10},                    // horizon at the start: no pass
			{300, 300 * 20000, 0, 1e12, 2000},   // past the KV capacity (p capped at 1)
		} {
			const totalKV = 16384 * 64
			want := loopRun(tm, c.batch, c.kv, totalKV, c.start, c.horizon, c.max)
			prefix := []float64{-1}
			got := tm.DecodeRun(c.batch, c.kv, totalKV, c.start, c.horizon, c.max, prefix)
			if got[0] != -1 || !slices.Equal(got[1:], want) {
				t.Errorf("%s %+v: %d ends, want %d (first %v / %v)", name, c, len(got)-1, len(want), got[1:min(3, len(got))], want[:min(2, len(want))])
			}
			if name == "fixed zero" && len(want) != 0 {
				t.Errorf("passes of no time must stop the run")
			}
		}
	}
}
