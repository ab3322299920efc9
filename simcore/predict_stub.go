package simcore

import (
	"errors"

	"aisimulate/simcore/spec"
)

// Predict is a TEMPORARY stand-in until the simulation core lands (the lead deletes this
// file): it validates the configuration and then fails with "simulation core not built yet".
func Predict(in Input) (*Output, error) {
	if _, err := spec.LoadConfig(in.ConfigYAML, in.Sets); err != nil {
		return nil, err
	}
	return nil, errors.New("simulation core not built yet")
}
