// Package traffic turns the traffic section (synthetic sources and recorded traces) into a
// workload: sessions of turns with prompts, output lengths and release rules.
package traffic

// Segment is a run of Count copies of one 32-bit token id. Prompts are held as segments so a
// 512-token trace block costs one element instead of 512. A segment with a Stride instead
// holds Count tokens in blocks of Stride tokens whose k-th block repeats Token+k, so a
// synthetic prompt of distinct blocks costs one element however long it is.
type Segment struct {
	Token  uint32
	Stride uint32
	Count  int
}

// Runs calls fn for every run of one repeated token in s, in order.
func (s Segment) Runs(fn func(token uint32, count int)) {
	if s.Stride == 0 {
		fn(s.Token, s.Count)
		return
	}
	for k, left := uint32(0), s.Count; left > 0; k++ {
		n := min(left, int(s.Stride))
		fn(s.Token+k, n)
		left -= n
	}
}

// Turn is one request of a session as the workload authored it.
type Turn struct {
	InputLength  int
	OutputLength int
	// Prompt covers exactly InputLength tokens.
	Prompt []Segment
	// DelayMs is, for turns after the first, the think time between the previous turn's
	// terminal time and this turn's release (already divided by the trace speedup).
	DelayMs float64
	// RequestID is the authored request id, "" when the source has none.
	RequestID string
	// SharedTokens, when SharedKnown, is how many leading prompt tokens may be shared with
	// another request's prompt (prefix groups, common trace prefixes); blocks past it can
	// only ever be reused by this request itself, which lets the engine skip hashing and
	// indexing them. Unknown (the zero value) means everything may be shared.
	SharedTokens int
	SharedKnown  bool
	// OutputTokens, when non-nil, are the token ids the request generates (a multi-turn
	// source whose next prompt repeats them sets this so prefix reuse across turns is exact);
	// nil means the default rule of docs/semantics/simulation.md §4.1.
	OutputTokens []Segment
}

// Session is a sequence of turns released one after another.
type Session struct {
	// ID is the session id written to records; "" writes null (plain synthetic requests).
	ID string
	// ArrivalMs is the first turn's release time for open-loop loads (normalised so the
	// earliest first turn is 0 and divided by the speedup). Ignored by concurrency loads.
	ArrivalMs float64
	Turns     []Turn
}

// Workload is the whole traffic in workload order. Sessions are produced lazily by Next so a
// synthetic run of millions of requests never materialises them all.
type Workload struct {
	// Sessions is the number of sessions Next will yield.
	Sessions int
	// Requests is the number of turns of all sessions of a trace workload (0 for synthetic
	// workloads, whose count is their stop rule's, and for graphs, whose count is their nodes').
	Requests int
	// Next returns the next session in workload order; ok is false after the last.
	Next func() (s Session, ok bool)
	// OpenLoop is true when sessions are released at ArrivalMs (rate and trace-timestamp
	// loads); false for a closed loop of Concurrency sessions in flight.
	OpenLoop    bool
	Concurrency int
	// SingleTurn is true when every session has exactly one turn (no release ever follows
	// a completion).
	SingleTurn bool
	// Graph is non-nil for agentic dependency-graph sources (agentic_mooncake, agentic
	// dynamo traces); then Sessions/Next are unused.
	Graph *Graph
	// Sizes bound what the requests can hold, for the memory estimate (simcore/budget.go).
	Sizes Sizes
}

// Sizes are totals over every request of a workload that bound the KV block state a run
// identifies (docs/robustness.md, "Memory").
type Sizes struct {
	// ShareableTokens sums the tokens of every request that prefix caching may register under
	// a hash: its SharedTokens when known, else its whole sequence (input and output).
	// ShareableRequests counts the requests with any, so ShareableTokens/bs +
	// ShareableRequests bounds their blocks at block size bs (each request rounds up once).
	ShareableTokens   float64
	ShareableRequests float64
	// MaxSequenceTokens is the longest input plus output of one request.
	MaxSequenceTokens int
}

// add counts one turn.
func (z *Sizes) add(t *Turn) {
	n := t.SharedTokens
	if !t.SharedKnown {
		n = t.InputLength + t.OutputLength
	}
	if n > 0 {
		z.ShareableTokens += float64(n)
		z.ShareableRequests++
	}
	z.MaxSequenceTokens = max(z.MaxSequenceTokens, t.InputLength+t.OutputLength)
}

// Graph is an agentic dependency graph (docs/semantics/simulation.md §12.4).
type Graph struct {
	Nodes []Node
	// Lanes limits concurrently active plays; 0 = unlimited.
	Lanes int
}

// Node is one request of an agentic graph.
type Node struct {
	Turn
	PlayID      string
	SessionID   string
	TurnIndex   int
	NotBeforeMs float64
	Deps        []Dep
}

// Dep makes a node wait for a parent: its dispatch (OnCompletion false) or its completion.
type Dep struct {
	Parent       int // index into Graph.Nodes
	OnCompletion bool
	DelayMs      float64
}
