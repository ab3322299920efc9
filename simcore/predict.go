// Package simcore is the simulator: one entry point, Predict, that every target (the wasip1
// CLI module, the browser worker, the edge worker) calls with the same inputs and that
// returns the same bytes everywhere. It performs no I/O of its own: files come in through an
// fs.FS and the wall clock through a function.
package simcore

import "io/fs"

// Input is everything one prediction needs.
type Input struct {
	// ConfigName names the configuration in error messages (the --config path).
	ConfigName string
	// ConfigYAML is the configuration text.
	ConfigYAML []byte
	// Sets are --set PATH=YAML_VALUE assignments, applied left to right.
	Sets []string
	// CapturePerRequest asks for per-request records (requests.jsonl, per_request).
	CapturePerRequest bool
	// Files resolves trace paths and local model directories; nil means no files.
	Files fs.FS
	// Clock returns a monotonic time in milliseconds for the wall-time keys; nil → 0.
	Clock func() float64
	// FixedWallTimeMs, when non-nil, replaces the measured wall time (golden-test hook,
	// AISIMULATE_FIXED_WALL_TIME_MS).
	FixedWallTimeMs *float64
	// Progress, when non-nil, is called now and then with the fraction of work done (0..1).
	Progress func(fraction float64)
}

// Output is the result of a successful prediction.
type Output struct {
	// PredictionJSON is prediction.json: pretty canonical JSON ending in one newline.
	PredictionJSON []byte
	// RequestsJSONL is requests.jsonl (one compact record per line), nil without capture.
	RequestsJSONL []byte
	// SummaryJSON is the summary object in compact canonical JSON plus a newline
	// (`--format json` stdout).
	SummaryJSON []byte
	// Summary is the summary object itself (for the table view and the UI).
	Summary map[string]any
}
