package perf

// HandoffMs is kv_transfer.handoff_ms: auto for a backend whose prefill and decode roles
// both use the default timing model (docs/semantics/simulation.md §11.4): the calibrated per-request
// hand-off latency in ms (control round trips, connection set-up and decode-side scheduling
// a KV hand-off costs on top of moving the bytes), the `handoff_ms` entry of the embedded
// calibration (calibration.json, fitted by tools/calibrate; docs/timing.md, hand-off
// latency). 0 for an unknown backend, which validation never lets through.
func HandoffMs(backend string) float64 {
	return DefaultCalibration().HandoffMs[backend]
}
