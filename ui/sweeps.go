package ui

import _ "embed"

// DefaultSweep is the recommendation configuration the Recommend view starts with:
// examples/recommend-small.yaml (a copy, because embedding cannot reach outside the package;
// TestDefaultSweepIsTheExample keeps them equal).
//
//go:embed sweeps/small.yaml
var DefaultSweep string
