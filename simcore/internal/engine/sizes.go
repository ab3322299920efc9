package engine

import "unsafe"

// Sizes of the engine's per-block and per-request records, for the up-front memory estimate
// of a run (simcore/budget.go, docs/robustness.md). unsafe.Sizeof is a compile-time constant;
// int is 64 bits on wasm as on amd64, so the native value equals the module's.
const (
	// KVBlockBytes is one KV block's state in a rank's pool, allocated only for the blocks
	// the pool identifies (at most MaxStateBlocks per rank).
	KVBlockBytes = int64(unsafe.Sizeof(kvBlock{}))
	// OutcomeBytes is one request's outcome row, kept for the whole run.
	OutcomeBytes = int64(unsafe.Sizeof(Outcome{}))
	// RequestBytes is one in-flight request's scheduling state.
	RequestBytes = int64(unsafe.Sizeof(Request{}))
	// CapturedHistoryBytes is one captured request's entries in the HistoryLog when it is
	// admitted once and routed once: its head and one node of each list.
	CapturedHistoryBytes = int64(unsafe.Sizeof(historyHead{}) + unsafe.Sizeof(listNode[Admission]{}) + unsafe.Sizeof(listNode[Route]{}))
)
