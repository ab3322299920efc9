package simcore

import "aisimulate/simcore/perf"

// tuning is a calibration applied to one prediction (docs/calibration.md): each role's
// correction of the default timing model, by role name (spec.RoleAggregated, RolePrefill,
// RoleDecode), and the time added to every disaggregated hand-off. A nil tuning changes
// nothing.
type tuning struct {
	roles     map[string]perf.Correction
	handoffMs float64
	// capacity is each role's KV-capacity scale (docs/calibration.md, "KV capacity"); a
	// role without one keeps the capacity its configuration gives.
	capacity map[string]float64
	// frontendServiceMs is the serving frontend's serial time per request
	// (docs/calibration.md, "Frontend queue"; 0: none).
	frontendServiceMs float64
	// decodeMaxSequences caps the requests a disaggregated decode rank runs at once
	// (docs/calibration.md, "Decode batch cap"); 0 keeps the configuration's max_sequences.
	decodeMaxSequences int
}

// role is the correction of a role (none for a nil tuning or a role without one).
func (t *tuning) role(name string) perf.Correction {
	if t == nil {
		return perf.Correction{}
	}
	return t.roles[name]
}

// handoff is the time added to every hand-off.
func (t *tuning) handoff() float64 {
	if t == nil {
		return 0
	}
	return t.handoffMs
}

// capacityScale is the factor on a role's KV capacity (1: none).
func (t *tuning) capacityScale(role string) float64 {
	if t == nil {
		return 1
	}
	if s, ok := t.capacity[role]; ok {
		return s
	}
	return 1
}

// frontendService is the serving frontend's serial time per request (0: none).
func (t *tuning) frontendService() float64 {
	if t == nil {
		return 0
	}
	return t.frontendServiceMs
}

// decodeCap is the decode rank's max_sequences under the tuning: the configuration's, lowered
// to the calibrated cap when there is one (the cap only lowers a scheduler limit).
func (t *tuning) decodeCap(configured int) int {
	if t == nil || t.decodeMaxSequences == 0 {
		return configured
	}
	return min(configured, t.decodeMaxSequences)
}
