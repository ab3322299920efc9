package simcore

import (
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/spec"
)

// DrawLengths is the prompt and output lengths of the first n requests of a synthetic source
// with lengths l around isl and osl, as the simulator draws them (docs/config.md, "Request
// length draws"): for a model that replays the same requests, such as the accuracy harness's
// calibration surrogate.
func DrawLengths(l spec.Lengths, isl, osl, n int) (in, out []int) {
	return traffic.DrawLengths(l, isl, osl, n)
}
