package simcore

import (
	"runtime"
	"runtime/metrics"
)

// replayHeapCollect is the heap size (bytes of heap objects, live or not yet collected) from
// which a calibration collects before its next replay. A replay keeps nothing once its means
// are read, so a collection there finds little live and is cheap, and the next replays reuse
// memory already touched instead of growing the WebAssembly instance's memory (the module
// runs with the collector off below 1 GiB, wasm/wasip1): page faults on fresh memory cost
// more system time than these few collections cost (docs/performance.md, "Calibration
// through the CLI"). Natively the collector keeps the heap smaller and this rarely fires.
const replayHeapCollect = 128 << 20

// heapObjectBytes reads the bytes of heap objects, live or not yet collected; a fresh slice
// per call, so concurrent callers share nothing.
func heapObjectBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// collectBetweenReplays collects when the heap holds replayHeapCollect bytes or more. It
// changes no output: only where the next replay's memory comes from.
func collectBetweenReplays() { CollectAbove(replayHeapCollect) }

// CollectAbove collects when the heap holds threshold bytes or more: between two runs whose
// allocations are all garbage once the run is read (a calibration's replays, a
// recommendation's evaluations), so the next run reuses memory already touched instead of
// growing a WebAssembly instance's memory (the collector stays off below 1 GiB there).
func CollectAbove(threshold uint64) {
	if heapObjectBytes() >= threshold {
		runtime.GC()
	}
}
