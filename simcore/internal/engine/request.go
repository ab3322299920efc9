// Package engine is one serving worker: its ranks' schedulers (vLLM, TensorRT-LLM and SGLang
// policies) and KV block pools, and the per-request state and collector timestamps they
// maintain (docs/semantics/simulation.md §3–§9).
package engine

import (
	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/internal/xmath"
)

// Status is a request's lifecycle state as the collector sees it.
type Status uint8

// Request statuses; the last four are terminal.
const (
	Pending Status = iota // released, not terminal yet
	Completed
	Rejected
	Canceled
	Failed
)

// String is the terminal_status text of a record.
func (s Status) String() string {
	switch s {
	case Completed:
		return "completed"
	case Rejected:
		return "rejected"
	case Canceled:
		return "canceled"
	case Failed:
		return "failed"
	}
	return "pending"
}

// Request is one model call: its workload identity, its scheduling state on the rank that
// currently holds it, and what the collector recorded about it.
type Request struct {
	Outcome
	Prompt       []traffic.Segment
	OutputTokens []traffic.Segment
	Session      int32 // workload session slot, -1 for graph nodes
	// tableLimit is the entries either block table may ever need (Reserve); an int32 beside
	// Session, so the request state does not grow.
	tableLimit int32
	// SharedTokens bounds the prefix another request may share (traffic.Turn.SharedTokens);
	// −1 = everything may be shared.
	SharedTokens int
	// Own unique cached blocks left by a preemption, for re-admission on the same pool.
	ownPool *KVPool
	ownIDs  []int32
	ownGens []uint32

	// hashIDs are the hash ids (numbered by hashIDsOf) of the sequence hashes of the
	// request's leading full shareable blocks at block size hashBS, computed as far as needed.
	hashIDs   []int32
	hashBS    int
	hashIDsOf *HashIDs
	cursor    tokenCursor

	// Scheduling state on the current rank. The request holds len(blocks) identified blocks
	// (pinned hits and cached copies it registered, by id) followed by anon anonymous ones
	// (see KVPool).
	blocks     []int32
	anon       int
	hitBlocks  int // leading cached blocks credited at admission, pinned on first schedule
	pinned     bool
	registered int // leading blocks already cached (hits or registered)
	computed   int
	generated  int
	prefilling bool
	scheduled  int // tokens scheduled in the current pass
	before     int // computed before this pass's tokens (prefill accounting)
	inRunning  bool
	noRoom     bool // TRT-LLM: the prompt leaves no room for one output token
	admSeq     int64
	// Steady decode state (steady.go): progress is implied by the worker's pass index.
	steady          bool
	steadyBasePass  int64 // first pass index the request decodes in while steady
	steadyWakePass  int64 // pass index at which it must be processed again
	steadyComputed  int   // computed at steadyBasePass
	steadyGenerated int   // generated at steadyBasePass
	steadyTokens    int   // Tokens at steadyBasePass

	// ITL bookkeeping: consecutive-pass runs on a worker plus isolated gaps.
	runWorker *Worker
	runStart  int32
	runLast   int32
	runs      []itlRun
	gaps      []float64
	History   *HistoryLog // the run's capture histories; nil when per-request capture is off
	// MTP draws (mtp.go): the request's own stream, seeded at its first decode burst.
	mtpStream rng.Stream
	mtpSeeded bool
	// promptDone marks a request whose prompt completed in the current pass: its token is a
	// single one, not an MTP burst (mtp.go).
	promptDone bool
	// Disaggregated hand-off.
	TransferMs   float64 // KV transfer delay once the transfer starts
	destBlocks   int     // SGLang: blocks reserved (anonymous) on the decode rank before the transfer
	slotHeld     bool    // TensorRT-LLM: holds a slot of its decode rank while its KV is in transfer
	destGrowth   int     // SGLang: output tokens the decode reservation booked for r (handoffGrowth)
	SourceWorker *Worker
	SourceRank   int32
	DecodeTarget *Worker
	// Router bookkeeping (owned by the router of the pool the request is placed in): the
	// prefill tokens booked on its rank's active-prefill load, whether they are still booked,
	// and whether its blocks are booked on the rank's active decode blocks.
	RoutedPrefillTokens      int64
	RoutedPrefillBooked      bool
	RoutedDecodeBlocksBooked bool
}

// Outcome is what the collector keeps about a request once it is terminal: plain values
// only, so millions of them cost the garbage collector nothing to scan.
type Outcome struct {
	Ordinal int32
	L       int // input length
	O       int // requested output length (after TRT-LLM clipping)
	Arrival float64
	Turn    int32
	HasTurn bool
	// Authored identity as 1-based indices into the run's string table (0 = absent/null).
	SessionRef, RequestRef, PlayRef int32

	Status      Status
	Terminal    float64
	FirstAdmit  float64 // -1 until admitted
	FirstToken  float64
	SecondToken float64
	LastToken   float64
	Tokens      int
	Reuse       int // max reused_input_tokens over admissions in the counted pool
	FirstReuse  int
	Admissions  int // admissions in the counted pool
	Preemptions int
	WorkerID    int32 // worker holding it (aggregated / decode), -1 if never placed
	RankID      int32
	// Disaggregated hand-off timeline.
	PrefillWorker, PrefillRank int32
	SourceHeld                 float64
	SourceReleased             float64
	DestReserved               float64
	DestActivated              float64
	DecodeAdmit                float64
	DecodeReused               int
	DecodeAdmitted             bool
	// Router overlap reported at placement.
	PrefillOverlapTokens int
	DecodeOverlapTokens  int
	HasRouteOverlap      bool
}

// itlRun is a stretch of tokens emitted in consecutive passes [p0, p1] of one worker.
type itlRun struct {
	w      *Worker
	p0, p1 int32
}

// History holds the per-request details only records need (captured runs only), as
// HistoryLog.Load reads them back.
type History struct {
	Admissions []Admission
	Routes     []Route
	Pressure   []int
}

// Admission is one admission of the request on a rank.
type Admission struct {
	At     float64
	Pool   uint8
	Reused int
}

// Route is one placement of the request by a router.
type Route struct {
	Pool         uint8
	Worker, Rank int32
	Scheduler    int32
	Queued       bool
	EnteredAt    float64
	ReleasedAt   float64
	Overlap      int // selected overlap blocks, -1 for round robin
	BestOverlap  int
	BlockSize    int
	HasOverlap   bool
}

// held is the number of blocks the request holds on its rank.
func (r *Request) held() int { return len(r.blocks) + r.anon }

// Known is the number of tokens whose KV must exist before the next token is sampled.
func (r *Request) Known() int { return r.L + r.generated }

// Generated is the number of output tokens emitted so far.
func (r *Request) Generated() int { return r.generated }

// Shareable is the number of leading blocks at block size bs that another request may share;
// blocks past it are hashed and indexed by nobody.
func (r *Request) Shareable(bs int) int {
	if r.SharedTokens <= 0 {
		if r.SharedTokens < 0 {
			return 1 << 30
		}
		return 0 // the common unique prompt, without a division
	}
	return xmath.FloorDiv(r.SharedTokens, bs)
}

// PromptHashIDs returns the hash ids (numbered by in) of the sequence hashes of the request's
// full, shareable prompt blocks at block size bs (the unique remainder can never match
// another request's).
func (r *Request) PromptHashIDs(bs int, in *HashIDs) []int32 {
	r.extendHashIDs(r.L, bs, in)
	return r.hashIDs[:min(xmath.FloorDiv(r.L, bs), r.Shareable(bs))]
}

// remainingOut is min(O − generated, maxModelLen − known) (docs/semantics/simulation.md §3); maxModelLen 0 = unlimited.
func (r *Request) remainingOut(maxModelLen int) int {
	rem := r.O - r.generated
	if maxModelLen > 0 {
		if c := maxModelLen - r.Known(); c < rem {
			rem = c
		}
	}
	return rem
}

// extendRun records token t of r on worker w's pass index p when it is a decode token that
// continues r's run of consecutive passes on w (neither its first nor its second token, and
// r emitted on pass p − 1 of w): the common decode step, small enough to be inlined where a
// pass visits every running request. It reports false, changing nothing, otherwise.
func (r *Request) extendRun(t float64, w *Worker, p int32) bool {
	if r.Tokens < 2 || r.runWorker != w || r.runLast != p-1 || w == nil {
		return false
	}
	r.runLast = p
	r.LastToken = t
	r.Tokens++
	r.generated++
	return true
}

// emit records one token at time t on worker w's pass index p.
func (r *Request) emit(t float64, w *Worker, p int32) {
	if r.extendRun(t, w, p) {
		return
	}
	switch r.Tokens {
	case 0:
		r.FirstToken = t
	case 1:
		r.SecondToken = t
	}
	if r.Tokens > 0 {
		if r.runWorker == w && r.runLast == p-1 && w != nil {
			r.runLast = p
		} else {
			r.closeRun()
			r.gaps = append(r.gaps, t-r.LastToken)
			r.runWorker, r.runStart, r.runLast = w, p, p
		}
	} else {
		r.runWorker, r.runStart, r.runLast = w, p, p
	}
	r.LastToken = t
	r.Tokens++
	r.generated++
}

// EmitExternal records a token produced outside a worker pass (the disaggregated first token
// that becomes visible when the KV transfer completes).
func (r *Request) EmitExternal(t float64) { r.emit(t, nil, 0) }

func (r *Request) closeRun() {
	if r.runWorker != nil && r.runLast > r.runStart {
		r.runs = append(r.runs, itlRun{w: r.runWorker, p0: r.runStart, p1: r.runLast})
	}
	r.runWorker = nil
}

// FlushGaps adds a completed request's token gaps to the pooled ITL samples: runs go into
// their workers' per-pass counters, isolated gaps are returned.
func (r *Request) FlushGaps() []float64 {
	r.closeRun()
	for _, run := range r.runs {
		run.w.addRun(run.p0, run.p1)
	}
	r.runs = r.runs[:0]
	g := r.gaps
	r.gaps = r.gaps[:0]
	return g
}

// Reserve sizes the request's hash id and block tables at block size bs. A sequence never
// holds more than maxModelLen tokens (0: no limit): a longer prompt is rejected before it
// computes a block, and the output stops at the context (remainingOut), so neither table
// ever needs more than tableLimit = ⌊tokens/bs⌋ + 2 entries. The hash ids only cover the
// shareable blocks (extendHashIDs), and the identified blocks are the shareable hits and
// registered copies (Rank.registerFull) except after a preemption (growBlocks), so both
// tables are sized for min(tableLimit, Shareable(bs)) entries: a unique prompt (the
// measured-runs rows' synthetic workloads) takes none, where a table sized for the whole
// sequence would be allocated and cleared on every admission of every replay
// (docs/performance.md, "Calibration through the CLI").
func (r *Request) Reserve(bs, maxModelLen int) {
	tokens := r.L + r.O
	if maxModelLen > 0 {
		tokens = min(tokens, maxModelLen)
	}
	limit := xmath.FloorDiv(tokens, bs) + 2
	r.tableLimit = int32(limit)
	n := min(limit, r.Shareable(bs))
	if cap(r.hashIDs) < n {
		r.hashIDs = make([]int32, 0, n)
	}
	if cap(r.blocks) < n {
		r.blocks = make([]int32, 0, n)
	}
}

// growBlocks makes room in the block table for n identified blocks, which only unique
// blocks past the shareable ones need (a preempted request's own blocks, Rank.releaseBlocks
// and their re-admission): the table then takes its whole tableLimit at once, as much as
// the memory estimate counts for it (docs/robustness.md), and never grows again.
func (r *Request) growBlocks(n int) {
	if n <= cap(r.blocks) {
		return
	}
	ys := make([]int32, len(r.blocks), max(n, int(r.tableLimit)))
	copy(ys, r.blocks)
	r.blocks = ys
}

// PrepareDecode resets rank state before a hand-off is materialised on a decode rank.
func (r *Request) PrepareDecode() {
	r.computed, r.prefilling, r.scheduled, r.promptDone = 0, false, 0, false
	r.pinned, r.hitBlocks, r.registered = false, 0, 0
	r.blocks, r.anon = r.blocks[:0], 0
	if r.destBlocks > 0 {
		r.anon, r.destBlocks = r.destBlocks, 0
		r.pinned = true
	}
}

// Recycle clears r for reuse by another request, keeping its buffers' capacity.
func (r *Request) Recycle() {
	hashIDs, blocks, runs, gaps := r.hashIDs[:0], r.blocks[:0], r.runs[:0], r.gaps[:0]
	ownIDs, ownGens := r.ownIDs[:0], r.ownGens[:0]
	*r = Request{hashIDs: hashIDs, blocks: blocks, runs: runs, gaps: gaps, ownIDs: ownIDs, ownGens: ownGens}
}
