package uncertainty

import "fmt"

// Group is the residual group a prediction's band comes from: the backend, the serving mode
// and the load regime (docs/uncertainty.md, "Groups").
type Group struct {
	// Backend is vllm, sglang or trtllm.
	Backend string
	// Mode is ModeAgg or ModeDisagg.
	Mode string
	// Regime is one of Regimes.
	Regime string
}

// The serving modes of a group, as the measured-runs CSV spells them.
const (
	ModeAgg    = "agg"
	ModeDisagg = "disagg"
)

// Modes lists the serving modes.
var Modes = []string{ModeAgg, ModeDisagg}

// Regime bounds: the load, in requests in flight per aggregated replica (per deployment when
// disaggregated), at which the low regime ends and the high regime begins. They split the
// measured runs where the model's error changes character: up to 32 requests passes are
// small and the error is the per-pass and first-token cost; above 128 admission and queueing
// dominate (docs/timing.md, "What limits the accuracy").
const (
	LowMax = 32
	MidMax = 128
)

// Regimes lists the load regimes, lightest first.
var Regimes = []string{
	fmt.Sprintf("c1-%d", LowMax),
	fmt.Sprintf("c%d-%d", LowMax+1, MidMax),
	fmt.Sprintf("c%d+", MidMax+1),
}

// RegimeOf is the regime of a load of c requests in flight. Loads are compared after
// rounding to the nearest whole request, so a measured concurrency and a simulated mean in
// flight land alike.
func RegimeOf(c float64) string {
	n := int(c + 0.5)
	switch {
	case n <= LowMax:
		return Regimes[0]
	case n <= MidMax:
		return Regimes[1]
	}
	return Regimes[2]
}

// String is the group's key in bands.json and in prediction.json: backend/mode/regime.
func (g Group) String() string { return g.Backend + "/" + g.Mode + "/" + g.Regime }
