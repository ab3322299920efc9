package simcore

import (
	"runtime/debug"
	"testing"
)

// sink keeps the test's allocations from being optimised away.
var sink []byte

// TestCollectBetweenReplays: with the collector off (as in the module), garbage past
// replayHeapCollect is collected, and a heap below it is left alone.
func TestCollectBetweenReplays(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	collectBetweenReplays()
	for i := 0; i < 2*replayHeapCollect>>20; i++ {
		sink = make([]byte, 1<<20)
	}
	sink = nil
	if got := heapObjectBytes(); got < replayHeapCollect {
		t.Fatalf("heap %d bytes after allocating %d with the collector off; want at least %d", got, 2*replayHeapCollect, replayHeapCollect)
	}
	collectBetweenReplays()
	after := heapObjectBytes()
	if after >= replayHeapCollect {
		t.Fatalf("heap %d bytes after collectBetweenReplays; want below %d", after, replayHeapCollect)
	}
	sink = make([]byte, 1<<20)
	collectBetweenReplays()
	if got := heapObjectBytes(); got < after+1<<20 {
		t.Errorf("heap %d bytes: collected below the threshold (before %d + 1 MiB)", got, after)
	}
	sink = nil
}
