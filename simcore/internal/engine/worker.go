package engine

import (
	"aisimulate/simcore/internal/grow"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// Pool identifies which pool a worker serves.
type Pool uint8

// Pools in tie order (docs/semantics/simulation.md §2.2: agg/prefill = 0, decode = 1).
const (
	PoolAgg Pool = iota
	PoolPrefill
	PoolDecode
)

// String is the pool's name in outputs.
func (p Pool) String() string {
	switch p {
	case PoolPrefill:
		return "prefill"
	case PoolDecode:
		return "decode"
	}
	return "agg"
}

// Policy selects the backend's scheduler.
type Policy uint8

// Scheduler policies of the three backends.
const (
	VLLM Policy = iota
	TRTLLM
	SGLang
)

// PolicyOf returns the scheduler policy of an engine.backend name (validated by spec).
func PolicyOf(backend string) Policy {
	switch backend {
	case spec.BackendSGLang:
		return SGLang
	case spec.BackendTRTLLM:
		return TRTLLM
	}
	return VLLM
}

// RankConfig is the per-rank scheduler configuration (docs/semantics/simulation.md §1).
type RankConfig struct {
	Policy           Policy
	Pool             Pool
	MaxBatchedTokens int
	MaxSequences     int
	BlockSize        int
	NumBlocks        int
	MaxModelLen      int // 0 = unlimited
	PrefixCaching    bool
	WantEvents       bool // publish KV events to a KV router
	// HashIDs numbers block hashes for every pool and router of the run; NewWorker makes
	// one when it is nil (a single pool tested alone).
	HashIDs *HashIDs
	// Exact visits every running request on every pass (no steady decode cohort); results
	// must not change, which tests check.
	Exact  bool
	Timing perf.Timing
	// NextN drafts per decode step and their acceptance probabilities (len NextN), MTP of
	// docs/semantics/simulation.md §5.4; 0 = off. The timing model already prices the drafts.
	NextN       int
	AcceptRates []float64
	// SGLang knobs (docs/semantics/simulation.md §8).
	ChunkedPrefillSize    int
	MaxPrefillTokens      int
	Conservativeness      float64
	PrefillDecodeInterval int
	// RecvInterval is SGLang's scheduler_recv_interval (sglang_recv.go); ≤ 1 polls every round.
	RecvInterval int
}

// NoteKind is what a pass tells the rest of the cluster about a request.
type NoteKind uint8

// Notes emitted by passes, processed by the cluster in order.
const (
	NoteRejected    NoteKind = iota // rejected at pass start
	NotePrefillDone                 // prefill completed on this rank (router bookkeeping)
	NoteCompleted                   // terminal completed at pass end
	NoteHandoff                     // disaggregated prefill finished: hand the request to decode
	NotePreempted                   // preempted or retracted (pressure record)
)

// Note is one entry of a worker's outbox.
type Note struct {
	Kind NoteKind
	R    *Request
	Rank int32
}

// Worker is one logical worker (a replica of a pool) with its attention-DP ranks.
type Worker struct {
	ID    int32
	Pool  Pool
	Ranks []*Rank
	// Busy is true from pass start to pass completion; PassEnd is the running pass's end.
	Busy     bool
	PassEnd  float64
	passBeg  float64
	PassEnds []float64 // end time of every finished pass, by pass index
	runDiff  []int32   // difference array of consecutive-token counts per pass index
	Out      []Note
	// Passes counts finished passes (all ranks together).
	Passes int64
	// LastFPM holds each rank's most recent forward-pass metrics sample.
	LastFPM []FPM
	// Dirty is the loop's mark that the worker may be able to start a pass.
	Dirty bool
	// RecordFPM asks passes to record FPM samples (planner runs only).
	RecordFPM bool
	FPMLog    []FPM
	// blockedRounds is the number of group rounds in which SGLang ranks may not prefill
	// (prefill_decode_interval, sglang.go).
	blockedRounds int
	// recvCount is SGLang's request-poll counter and lastExtend whether the previous group
	// round was an extend (scheduler_recv_interval, sglang_recv.go).
	recvCount  int
	lastExtend bool
}

// FPM is one rank's forward-pass metrics sample (docs/semantics/simulation.md §13.8).
type FPM struct {
	At                  float64
	Rank                int32
	WallS               float64
	NumPrefillRequests  int
	SumPrefillTokens    int64
	NumDecodeRequests   int
	SumDecodeKVTokens   int64
	QueuedPrefillTokens int64
	QueuedDecodeKV      int64
}

// NewWorker builds a worker with dp ranks of the given configuration.
func NewWorker(id int32, cfg *RankConfig, dp int) *Worker {
	if cfg.HashIDs == nil {
		cfg.HashIDs = NewHashIDs()
	}
	w := &Worker{ID: id, Pool: cfg.Pool}
	for i := 0; i < dp; i++ {
		w.Ranks = append(w.Ranks, newRank(cfg, int32(i), w))
	}
	w.LastFPM = make([]FPM, dp)
	return w
}

// HasWork reports whether any rank has a request queued, waiting or running.
func (w *Worker) HasWork() bool {
	for _, k := range w.Ranks {
		if k.hasWork() {
			return true
		}
	}
	return false
}

// Empty reports whether the worker holds no request at all (drain completion).
func (w *Worker) Empty() bool { return !w.Busy && !w.HasWork() }

// FormedWork reports whether the pass just formed scheduled any token or admitted anything.
func (w *Worker) FormedWork() bool {
	for _, k := range w.Ranks {
		if k.formed {
			return true
		}
	}
	return false
}

// StartPass forms a lock-step pass on every rank at now (docs/semantics/simulation.md §9) and returns its
// end time. Rejections found while forming the pass are left in Out.
func (w *Worker) StartPass(now float64) float64 {
	w.pollInbox(false)
	blocked := w.blockedRounds > 0
	end := w.formGroupPass(now)
	if blocked && !w.FormedWork() {
		// Only prefill_decode_interval held the group back: its blocked rounds drain at now.
		w.drainIdleRounds()
		end = w.formGroupPass(now)
	}
	if w.Ranks[0].cfg.RecvInterval > 1 && !w.FormedWork() && w.pollInbox(true) {
		// Nothing ran while requests were unpolled: the idle group polls at once.
		end = w.formGroupPass(now)
	}
	if w.RecordFPM {
		for _, k := range w.Ranks {
			k.queuedPrefill, k.queuedDecode = k.QueuedTokens()
		}
	}
	w.Busy = true
	w.passBeg = now
	w.PassEnd = end
	return end
}

// formGroupPass forms the lock-step pass of every rank at now and returns its end time.
func (w *Worker) formGroupPass(now float64) float64 {
	end := now
	for _, k := range w.Ranks {
		var p, d float64
		k.formed = false
		if k.hasWork() {
			p, d = k.formPass(now, w)
		} else {
			k.idlePass()
		}
		if e := (now + p) + d; e > end {
			end = e
		}
	}
	w.countIntervalRound()
	w.noteRoundMode()
	return end
}

// FinishPass ends the running pass at its end time: tokens, completions, frees and KV events
// (docs/semantics/simulation.md §6.3). Notes are appended to Out.
func (w *Worker) FinishPass() {
	end := w.PassEnd
	w.PassEnds = append(grow.Room(w.PassEnds, 1), end)
	p := int32(len(w.PassEnds) - 1)
	for _, k := range w.Ranks {
		k.finishPass(end, w, p)
	}
	if w.RecordFPM {
		wall := (end - w.passBeg) / 1000
		for i, k := range w.Ranks {
			f := FPM{At: end, Rank: int32(i), WallS: wall,
				NumPrefillRequests: k.passPrefillReqs, SumPrefillTokens: k.passPrefillTokens,
				NumDecodeRequests: k.passDecodeReqs, SumDecodeKVTokens: k.passDecodeKV,
				QueuedPrefillTokens: k.queuedPrefill, QueuedDecodeKV: k.queuedDecode}
			w.LastFPM[i] = f
			w.FPMLog = append(w.FPMLog, f)
		}
	}
	w.Busy = false
	w.Passes++
}

// addRun counts consecutive-pass token gaps at pass indices p0+1..p1.
func (w *Worker) addRun(p0, p1 int32) {
	if int(p1)+2 > len(w.runDiff) {
		w.runDiff = grow.To(w.runDiff, int(p1)+2)
	}
	w.runDiff[p0+1]++
	w.runDiff[p1+1]--
}

// GapCounts is the difference array of the pooled ITL's pass-gap weights: the running sum of
// its first p+1 entries is the number of completed requests whose consecutive tokens spanned
// the gap from pass p−1 to pass p (docs/semantics/outputs.md §4.2), for p ≥ 1.
func (w *Worker) GapCounts() []int32 { return w.runDiff }
