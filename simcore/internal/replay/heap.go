package replay

// Event phases (docs/semantics/simulation.md §2.2): lower phases run first at equal times.
const (
	phasePass     = 1
	phaseReady    = 2
	phaseTransfer = 3
	phaseRelease  = 4
	phasePlanner  = 6
	// phaseStart starts a fast-forwarded worker's next regular pass at its true start time,
	// after everything else due then (docs/semantics/simulation.md §2.3 step 7).
	phaseStart = 7
)

// Release kinds.
const (
	relStatic    = iota // next open-loop session arrival
	relTurn             // a later turn of a session
	relNode             // an agentic graph node
	relWake             // re-run backfill and pass starts at this time
	relAllStatic        // one session of a pre-sorted static arrival list
	relSlot             // a closed-loop session's slot frees at its visible completion
	relFrontend         // a request leaves the serving frontend's queue and is routed
)

// event is pointer-free so heap moves need no GC write barriers: workers are named by pool
// and id (a, b) and requests by ordinal (a).
type event struct {
	at    float64
	tie   int64
	phase uint8
	kind  uint8
	a, b  int32 // session slot/turn, node index, pool/worker id, or request ordinal
}

func (e *event) less(o *event) bool {
	if e.at != o.at {
		return e.at < o.at
	}
	if e.phase != o.phase {
		return e.phase < o.phase
	}
	return e.tie < o.tie
}

// eventHeap is a binary min-heap of events by (at, phase, tie).
type eventHeap struct{ items []event }

func (h *eventHeap) len() int { return len(h.items) }

func (h *eventHeap) top() *event { return &h.items[0] }

// push and pop move a hole instead of swapping: the event being placed is written once,
// where it lands, and each event it passes moves once (the same comparisons and the same
// final order as swapping, with half the stores of these 32-byte events).
func (h *eventHeap) push(e event) {
	h.items = append(h.items, e)
	it := h.items
	i := len(it) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(&it[p]) {
			break
		}
		it[i] = it[p]
		i = p
	}
	it[i] = e
}

func (h *eventHeap) pop() event {
	it := h.items
	top := it[0]
	n := len(it) - 1
	x := it[n]
	it = it[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && it[r].less(&it[l]) {
			m = r
		}
		if !it[m].less(&x) {
			break
		}
		it[i] = it[m]
		i = m
	}
	if n > 0 {
		it[i] = x
	}
	h.items = it
	return top
}
