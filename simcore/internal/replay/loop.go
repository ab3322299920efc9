package replay

import (
	"cmp"
	"math"
	"slices"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/internal/router"
	"aisimulate/simcore/internal/traffic"
)

// Result is what the loop hands to the report.
type Result struct {
	// Outcomes of every request registered with the collector, by ordinal.
	Outcomes OutcomeLog
	// Strings is the table that Outcome.SessionRef/RequestRef/PlayRef index (1-based).
	Strings []string
	// Histories of the requests when per-request capture is on (nil otherwise).
	Histories *engine.HistoryLog
	// Gaps are the isolated token gaps of completed requests (consecutive-pass gaps are
	// counted per worker pass, see engine.Worker.GapCounts).
	Gaps []float64
	// Workers are every worker ever created, per pool.
	AggWorkers, PrefillWorkers, DecodeWorkers []*engine.Worker
	// Pressure counts preemption/retraction events.
	Pressure int
	// EndMs is the last processed timestamp.
	EndMs float64
	// WorkerSeconds per pool when a planner changed counts; nil = use replicas × duration.
	PrefillWorkerSeconds, DecodeWorkerSeconds *float64
	// PlannerSection is the planner section of prediction.json (docs/semantics/outputs.md
	// §5), built during the run; nil when the planner is disabled.
	PlannerSection map[string]any
	// Trajectories are the plays of an agentic graph run; nil for other sources.
	Trajectories *Trajectories
	// Steps is the event-loop steps the run took, fast-forwarded passes included: the work
	// a candidate's budget counts (docs/recommend.md, "Timeouts").
	Steps int64
}

type poolState struct {
	plan    *PoolPlan
	pool    engine.Pool
	workers []*engine.Worker // all, by id
	states  []uint8          // lifecycle state by worker id
	active  []*engine.Worker // routable, ascending id
	router  *router.Router
}

type sessionState struct {
	s    traffic.Session
	next int   // next turn index to release
	ref  int32 // interned session id
}

type cluster struct {
	plan   *Plan
	now    float64
	events eventHeap // every event but pass completions
	passes eventHeap // pass completions (kept apart so the next other event is the horizon)
	// fastForward: steady-only workers may run passes ahead up to the next other event
	// (open-loop single-turn aggregated runs, where a pass end never creates a release).
	fastForward bool
	agg         *poolState
	pre         *poolState
	dec         *poolState
	pools       []*poolState

	reqs      []*engine.Request // live requests by ordinal − 1 (nil once terminal)
	slab      []engine.Request  // requests are allocated in chunks
	free      []*engine.Request // recycled requests
	outcomes  OutcomeLog
	strs      []string
	histories *engine.HistoryLog
	gaps      []float64
	sessions  []sessionState // active sessions by slot
	freeSlots []int32
	// frontendFree is when the serving frontend finishes the requests queued in it
	// (Plan.FrontendServiceMs).
	frontendFree   float64
	pulled         int
	lastArrival    float64
	activeSess     int
	finishedSess   int
	dynSeq         int64
	staticSeq      int64
	pressure       int
	cutoff         float64
	pastCutoff     bool
	wake           bool
	graph          *graphState
	progressTick   int
	pl             *plannerRun
	plannerPending int
	dirty, spare   []*engine.Worker // workers that may start a pass this step
}

// Run simulates the plan to the end and returns the collected requests.
func Run(p *Plan) *Result {
	c := &cluster{plan: p, cutoff: p.CutoffMs}
	if p.Capture {
		c.histories = &engine.HistoryLog{}
	}
	hashIDs := engine.NewHashIDs() // one numbering for every pool and router of the run
	if p.Disaggregated {
		c.pre = newPool(p.Prefill, engine.PoolPrefill, "router.prefill", hashIDs)
		c.dec = newPool(p.Decode, engine.PoolDecode, "router.decode", hashIDs)
		c.pools = []*poolState{c.pre, c.dec}
	} else {
		c.agg = newPool(p.Agg, engine.PoolAgg, "router.agg", hashIDs)
		c.pools = []*poolState{c.agg}
	}
	c.start()
	if p.Planner != nil {
		c.startPlanner()
	}
	wl := &p.Workload
	// Pass ends can create releases only through completions (closed-loop backfill, next
	// turns, graph dependants); with one worker those are its own wake-ups, which end a
	// fast-forward anyway.
	c.fastForward = !p.Disaggregated && p.Planner == nil && p.CutoffMs == 0 &&
		(wl.OpenLoop && wl.SingleTurn && wl.Graph == nil || p.Agg.Replicas == 1)
	c.loop()
	for _, ps := range c.pools {
		for _, w := range ps.workers {
			w.Settle()
		}
	}
	for _, r := range c.reqs {
		if r != nil {
			c.visible(r)
			*c.outcomes.slot(r.Ordinal) = r.Outcome
		}
	}
	res := &Result{Outcomes: c.outcomes, Strings: c.strs, Histories: c.histories, Gaps: c.gaps, Pressure: c.pressure, EndMs: c.now, Steps: int64(c.progressTick)}
	if c.graph != nil {
		res.Trajectories = c.graph.trajectories()
	}
	if c.pl != nil {
		c.integrate()
		dec := c.pl.ws[len(c.pl.ws)-1]
		res.DecodeWorkerSeconds = &dec
		pre := 0.0
		if len(c.pl.ws) == 2 {
			pre = c.pl.ws[0]
		}
		res.PrefillWorkerSeconds = &pre
		res.PlannerSection = c.plannerSection()
	}
	if c.agg != nil {
		res.AggWorkers = c.agg.workers
	} else {
		res.PrefillWorkers, res.DecodeWorkers = c.pre.workers, c.dec.workers
	}
	return res
}

func newPool(pp *PoolPlan, pool engine.Pool, stream string, hashIDs *engine.HashIDs) *poolState {
	pp.Rank.HashIDs = hashIDs // the router takes it from the workers
	ps := &poolState{plan: pp, pool: pool, router: router.New(pp.Router, rng.New(42, stream))}
	pp.Rank.Pool = pool
	for i := 0; i < pp.Replicas; i++ {
		w := engine.NewWorker(int32(i), &pp.Rank, pp.DP)
		ps.workers = append(ps.workers, w)
		ps.states = append(ps.states, stateActive)
		ps.active = append(ps.active, w)
	}
	ps.router.SetWorkers(ps.active)
	return ps
}

// entry is the pool requests are first routed to.
func (c *cluster) entry() *poolState {
	if c.agg != nil {
		return c.agg
	}
	return c.pre
}

// start schedules the static arrivals.
func (c *cluster) start() {
	wl := &c.plan.Workload
	if wl.Graph != nil {
		c.startGraph()
		return
	}
	if wl.OpenLoop {
		c.pullStatic()
	} else {
		c.wake = true
	}
	c.events.push(event{at: 0, phase: phaseRelease, kind: relWake, tie: -1})
}

// pullStatic pushes the next open-loop session's arrival event (sessions of a sorted
// workload are pulled one at a time; an unsorted tail is pushed all at once).
func (c *cluster) pullStatic() {
	wl := &c.plan.Workload
	s, ok := wl.Next()
	if !ok {
		return
	}
	idx := c.pulled
	c.pulled++
	slot := c.newSession(s)
	c.staticSeq = int64(idx)
	c.events.push(event{at: s.ArrivalMs, phase: phaseRelease, kind: relStatic, tie: int64(idx), a: int32(slot)})
	c.lastArrival = s.ArrivalMs
}

func (c *cluster) nextDynSeq() int64 {
	c.dynSeq++
	return int64(c.plan.Workload.Sessions) + c.dynSeq
}

// ProgressSteps is how many event-loop steps pass between two progress reports.
const ProgressSteps = 4096

// nextEvent is the earliest pending event of either heap.
func (c *cluster) nextEvent() *event {
	if c.events.len() == 0 || c.passes.len() > 0 && c.passes.top().less(c.events.top()) {
		return c.passes.top()
	}
	return c.events.top()
}

// anyWork reports whether some worker is mid-pass or holds requests, or a router queues any.
func (c *cluster) anyWork() bool {
	for _, ps := range c.pools {
		if ps.router.Queued() > 0 {
			return true
		}
		for _, w := range ps.workers {
			if w.Busy || w.HasWork() {
				return true
			}
		}
	}
	return false
}

func (c *cluster) loop() {
	for c.events.len()+c.passes.len() > 0 {
		if c.events.len()+c.passes.len() == c.plannerPending && !c.anyWork() {
			break // planner ticks never keep the run alive on their own (docs/semantics/simulation.md §2.4)
		}
		t := c.nextEvent().at
		if c.cutoff > 0 && t > c.cutoff {
			c.pastCutoff = true
		}
		c.now = t
		for c.events.len()+c.passes.len() > 0 && c.nextEvent().at == t {
			var e event
			if c.passes.len() > 0 && (c.events.len() == 0 || c.passes.top().less(c.events.top())) {
				e = c.passes.pop()
			} else {
				e = c.events.pop()
			}
			c.handle(&e)
		}
		if c.pastCutoff {
			continue
		}
		c.backfill()
		c.startPasses()
		if c.wake {
			c.wake = false
			c.events.push(event{at: c.now, phase: phaseRelease, kind: relWake, tie: c.nextDynSeq()})
		}
		c.step(1)
	}
}

// step counts n units of work (loop steps, fast-forwarded passes) and reports progress every
// ProgressSteps of them, so a caller's work budget also sees fast-forwarded work.
func (c *cluster) step(n int) {
	before := c.progressTick / ProgressSteps
	c.progressTick += n
	if p := c.plan.Progress; p != nil && c.progressTick/ProgressSteps != before && c.plan.Workload.Sessions > 0 {
		p(float64(c.finishedSess) / float64(c.plan.Workload.Sessions))
	}
}

func (c *cluster) handle(e *event) {
	switch e.phase {
	case phasePass:
		c.finishPass(c.worker(e.a, e.b))
	case phaseReady:
		c.workerReady(c.worker(e.a, e.b))
	case phaseStart:
		w := c.worker(e.a, e.b)
		w.Busy = false
		c.markDirty(w)
	case phasePlanner:
		if c.pastCutoff {
			c.plannerPending--
			return
		}
		c.tick()
	case phaseTransfer:
		c.transferDone(c.reqs[e.a-1])
	case phaseRelease:
		if c.pastCutoff {
			return
		}
		switch e.kind {
		case relStatic:
			c.releaseTurn(int(e.a), 0)
			c.pullStatic()
		case relTurn:
			c.releaseTurn(int(e.a), int(e.b))
		case relNode:
			c.releaseNode(int(e.a))
		case relSlot:
			c.activeSess--
		case relFrontend:
			c.route(c.entry(), c.reqs[e.a-1])
		}
	}
}

// backfill starts sessions of a closed loop while slots are free (docs/semantics/simulation.md §12.2).
func (c *cluster) backfill() {
	wl := &c.plan.Workload
	if wl.OpenLoop || wl.Graph != nil {
		return
	}
	for c.activeSess < wl.Concurrency {
		s, ok := wl.Next()
		if !ok {
			return
		}
		c.pulled++
		slot := c.newSession(s)
		c.activeSess++
		c.releaseTurn(slot, 0)
	}
}

// str interns a non-empty authored string and returns its 1-based index (0 for "").
func (c *cluster) str(s string) int32 {
	if s == "" {
		return 0
	}
	c.strs = append(c.strs, s)
	return int32(len(c.strs))
}

// newSession stores a session in a free slot and returns the slot.
func (c *cluster) newSession(s traffic.Session) int {
	if n := len(c.freeSlots); n > 0 {
		slot := int(c.freeSlots[n-1])
		c.freeSlots = c.freeSlots[:n-1]
		c.sessions[slot] = sessionState{s: s, ref: c.str(s.ID)}
		return slot
	}
	c.sessions = append(c.sessions, sessionState{s: s, ref: c.str(s.ID)})
	return len(c.sessions) - 1
}

// newRequest registers a released request with the collector.
func (c *cluster) newRequest(t *traffic.Turn) *engine.Request {
	var r *engine.Request
	if n := len(c.free); n > 0 {
		r = c.free[n-1]
		c.free = c.free[:n-1]
	} else {
		if len(c.slab) == 0 {
			c.slab = make([]engine.Request, 1024)
		}
		r = &c.slab[0]
		c.slab = c.slab[1:]
	}
	r.Outcome = engine.Outcome{
		Ordinal:       int32(len(c.reqs) + 1),
		L:             t.InputLength,
		O:             t.OutputLength,
		Arrival:       c.now,
		FirstAdmit:    -1,
		WorkerID:      -1,
		RankID:        -1,
		PrefillWorker: -1,
		PrefillRank:   -1,
		RequestRef:    c.str(t.RequestID),
	}
	r.Prompt, r.OutputTokens = t.Prompt, t.OutputTokens
	r.SharedTokens = t.SharedTokens
	if !t.SharedKnown || c.plan.ShareEverything {
		r.SharedTokens = -1
	}
	if c.plan.Capture {
		r.History = c.histories
	}
	r.Reserve(c.entry().plan.Rank.BlockSize, c.entry().plan.Rank.MaxModelLen)
	c.reqs = append(c.reqs, r)
	return r
}

// releaseTurn releases turn k of session idx at now and routes it.
func (c *cluster) releaseTurn(idx, k int) {
	ss := &c.sessions[idx]
	if k == 0 && c.plan.Workload.OpenLoop {
		c.activeSess++
	}
	ss.next = k + 1
	c.countRelease(&ss.s.Turns[k])
	r := c.newRequest(&ss.s.Turns[k])
	r.Session, r.Turn = int32(idx), int32(k)
	if ss.ref != 0 {
		r.SessionRef, r.HasTurn = ss.ref, true
	}
	if s := c.plan.FrontendServiceMs; s > 0 {
		// The frontend serves one request at a time, first come first served (docs/calibration.md,
		// "Frontend queue"): r leaves it S after the later of its release and the previous
		// request's departure.
		c.frontendFree = max(c.frontendFree, c.now) + s
		c.events.push(event{at: c.frontendFree, phase: phaseRelease, kind: relFrontend, tie: c.nextDynSeq(), a: r.Ordinal})
		return
	}
	c.route(c.entry(), r)
}

// countRelease adds a released request to the planner's traffic window.
func (c *cluster) countRelease(t *traffic.Turn) {
	if c.pl != nil {
		c.pl.winNum++
		c.pl.winISL += int64(t.InputLength)
		c.pl.winOSL += int64(t.OutputLength)
	}
}

// route places r in pool ps (or leaves it queued in the router).
func (c *cluster) route(ps *poolState, r *engine.Request) {
	p, ok := ps.router.Place(r, c.now)
	if r.History != nil {
		rt := engine.Route{Pool: uint8(ps.pool), Queued: !ok, EnteredAt: c.now, Worker: -1, Rank: -1}
		if ok {
			fillRoute(&rt, p, ps)
		}
		r.History.AddRoute(r.Ordinal, rt)
	}
	if ok {
		c.placed(ps, r, p)
	}
}

func fillRoute(rt *engine.Route, p router.Placement, ps *poolState) {
	rt.Worker, rt.Rank = p.Worker.ID, p.Rank
	rt.Scheduler = p.Worker.ID*int32(ps.plan.DP) + p.Rank
	if p.Overlap >= 0 {
		rt.HasOverlap = true
		rt.Overlap, rt.BestOverlap = p.Overlap, p.BestOverlap
		rt.BlockSize = ps.plan.Router.BlockSize
	}
}

// placed enqueues r on the chosen rank.
func (c *cluster) placed(ps *poolState, r *engine.Request, p router.Placement) {
	rank := p.Worker.Ranks[p.Rank]
	if ps.pool != engine.PoolPrefill {
		r.WorkerID, r.RankID = p.Worker.ID, p.Rank
	} else {
		r.PrefillWorker, r.PrefillRank = p.Worker.ID, p.Rank
	}
	if p.Overlap >= 0 {
		tok := p.Overlap * ps.plan.Router.BlockSize
		if tok > r.L {
			tok = r.L
		}
		if ps.pool == engine.PoolDecode {
			r.DecodeOverlapTokens = tok
		} else {
			r.PrefillOverlapTokens = tok
		}
		r.HasRouteOverlap = true
	}
	if ps.pool == engine.PoolDecode {
		rank.Materialize(r)
	} else {
		rank.Enqueue(r)
	}
	c.markDirty(p.Worker)
}

// startPasses starts a pass on every idle worker with work (docs/semantics/simulation.md §2.3 step 7).
func (c *cluster) startPasses() {
	// Only workers marked dirty (a pass ended, work was placed, a hand-off arrived) can start
	// a pass; they are visited in pool order then worker id, as if every worker were checked.
	// Workers marked while visiting are visited in this step if they come later in that order.
	lastKey := int64(-1)
	for len(c.dirty) > 0 {
		batch := c.dirty
		c.dirty = c.spare[:0]
		slices.SortFunc(batch, func(a, b *engine.Worker) int { return cmp.Compare(workerKey(a), workerKey(b)) })
		var later []*engine.Worker
		for _, w := range batch {
			if workerKey(w) <= lastKey {
				later = append(later, w) // earlier in the order: next step
				continue
			}
			lastKey = workerKey(w)
			w.Dirty = false
			c.tryStart(w)
		}
		c.spare = batch[:0]
		if len(c.dirty) == 0 {
			c.dirty = append(c.dirty, later...)
			return
		}
		c.dirty = append(c.dirty, later...)
		if allNotAfter(c.dirty, lastKey) {
			return
		}
	}
}

func allNotAfter(ws []*engine.Worker, key int64) bool {
	for _, w := range ws {
		if workerKey(w) > key {
			return false
		}
	}
	return true
}

func workerKey(w *engine.Worker) int64 { return int64(w.Pool)<<32 | int64(w.ID) }

// markDirty records that w may be able to start a pass at this step.
func (c *cluster) markDirty(w *engine.Worker) {
	if !w.Dirty {
		w.Dirty = true
		c.dirty = append(c.dirty, w)
	}
}

// tryStart starts a pass on w if it is idle, routable or draining, and has work.
func (c *cluster) tryStart(w *engine.Worker) {
	ps := c.poolOf(w)
	if w.Busy || !w.HasWork() || ps.states[w.ID] == stateStarting || ps.states[w.ID] == stateRemoved {
		return
	}
	if c.fastForward && ps.router.Queued() == 0 {
		horizon := math.Inf(1)
		if c.events.len() > 0 {
			horizon = c.events.top().at
		}
		passesBefore := w.Passes
		start := w.FastForward(c.now, horizon, ProgressSteps, func(rank int, evs []engine.KVEvent) {
			if ps.plan.Router.UseEvents {
				ps.router.Events(w, int32(rank), evs)
			}
		})
		if start > c.now {
			c.step(int(w.Passes - passesBefore))
			// The next regular pass is formed at its own start time, in global order.
			w.Busy, w.PassEnd = true, start
			c.passes.push(event{at: start, phase: phaseStart, tie: int64(ps.pool)<<32 | int64(w.ID), a: int32(ps.pool), b: w.ID})
			return
		}
	}
	end := w.StartPass(c.now)
	c.processNotes(ps, w)
	if !w.FormedWork() {
		w.Busy = false
		return
	}
	c.passes.push(event{at: end, phase: phasePass, tie: int64(ps.pool)<<32 | int64(w.ID), a: int32(ps.pool), b: w.ID})
}

// worker returns worker id of the pool numbered pool (engine.Pool).
func (c *cluster) worker(pool, id int32) *engine.Worker {
	switch engine.Pool(pool) {
	case engine.PoolPrefill:
		return c.pre.workers[id]
	case engine.PoolDecode:
		return c.dec.workers[id]
	}
	return c.agg.workers[id]
}

func (c *cluster) poolOf(w *engine.Worker) *poolState {
	switch w.Pool {
	case engine.PoolPrefill:
		return c.pre
	case engine.PoolDecode:
		return c.dec
	}
	return c.agg
}

// finishPass processes a pass completion (docs/semantics/simulation.md §2.3 step 1).
func (c *cluster) finishPass(w *engine.Worker) {
	ps := c.poolOf(w)
	w.FinishPass()
	c.markDirty(w)
	if ps.pool == engine.PoolDecode && (ps.plan.Rank.DestinationFirst() || ps.plan.Rank.SlotFirst()) {
		defer c.retryDestinations(w)
	}
	if ps.plan.Router.UseEvents {
		for i, k := range w.Ranks {
			if len(k.KV.Events) > 0 {
				ps.router.Events(w, int32(i), k.KV.Events)
				k.KV.Events = k.KV.Events[:0]
			}
		}
	} else {
		for _, k := range w.Ranks {
			k.KV.Events = k.KV.Events[:0]
		}
	}
	c.processNotes(ps, w)
	if c.pl != nil {
		c.maybeRemove(ps, w)
	}
}

// drainRouter places queued requests of a pool's router that can now be placed.
func (c *cluster) drainRouter(ps *poolState) {
	ps.router.Drain(c.now, func(r *engine.Request, p router.Placement) {
		if r.History != nil {
			rt := r.History.LastRoute(r.Ordinal)
			rt.ReleasedAt = c.now
			fillRoute(rt, p, ps)
		}
		c.placed(ps, r, p)
	})
}

// processNotes applies a worker's outbox in order.
func (c *cluster) processNotes(ps *poolState, w *engine.Worker) {
	if len(w.Out) == 0 {
		return
	}
	drain := false
	for _, n := range w.Out {
		r := n.R

		switch n.Kind {
		case engine.NotePrefillDone:
			ps.router.PrefillDone(r, w, n.Rank, c.now)
			drain = true
		case engine.NoteCompleted, engine.NoteRejected:
			ps.router.Free(r, w, n.Rank, c.now)
			drain = true
			c.terminal(r)
			if n.Kind == engine.NoteRejected {
				c.wake = true
			}
		case engine.NoteHandoff:
			ps.router.Free(r, w, n.Rank, c.now)
			drain = true
			c.handoff(r, w, n.Rank)
		case engine.NotePreempted:
			if r.History != nil {
				r.History.AddPressure(r.Ordinal, c.pressure)
			}
			c.pressure++
		}
	}
	w.Out = w.Out[:0]
	if drain && ps.router.Queued() > 0 {
		c.drainRouter(ps)
	}
}

// terminal handles a request that reached a terminal state: ITL flush, next turn or
// session end.
func (c *cluster) terminal(r *engine.Request) {
	f := c.visible(r)
	if r.Status == engine.Completed {
		c.gaps = append(c.gaps, r.FlushGaps()...)
		if st := c.plan.Stop; st != nil && st.observe(r) {
			// Settled: start nothing more; what is in flight stays pending.
			c.pastCutoff = true
		}
	} else {
		r.FlushGaps()
	}
	if c.graph != nil {
		c.nodeTerminal(r)
		c.retire(r)
		return
	}
	ss := &c.sessions[r.Session]
	if r.Status == engine.Completed && ss.next < len(ss.s.Turns) {
		t := &ss.s.Turns[ss.next]
		c.events.push(event{at: r.Terminal + t.DelayMs, phase: phaseRelease, kind: relTurn, tie: c.nextDynSeq(), a: r.Session, b: int32(ss.next)})
		c.retire(r)
		return
	}
	// Remaining turns of a failed session are canceled (docs/semantics/simulation.md §12.3).
	for k := ss.next; k < len(ss.s.Turns); k++ {
		x := c.newRequest(&ss.s.Turns[k])
		x.Session, x.Turn = r.Session, int32(k)
		x.SessionRef, x.HasTurn = r.SessionRef, r.HasTurn
		x.Status, x.Terminal = engine.Canceled, c.now
		c.retire(x)
	}
	*ss = sessionState{}
	c.freeSlots = append(c.freeSlots, r.Session)
	if f > 0 {
		// The closed loop's client frees its slot at the visible completion (docs/semantics/simulation.md §5.3).
		c.events.push(event{at: r.Terminal, phase: phaseRelease, kind: relSlot, tie: c.nextDynSeq()})
	} else {
		c.activeSess--
	}
	c.finishedSess++
	c.retire(r)
}

// visible moves a terminal request's token times and completion from engine stamps to the
// times the client sees them: stamp + the timing model's frontend latency for its input
// length (docs/semantics/simulation.md §5.3). It returns that latency (0: nothing moves). Only what is
// recorded about the request moves; no scheduler has seen or will see these times.
func (c *cluster) visible(r *engine.Request) float64 {
	ps := c.agg
	if c.dec != nil {
		ps = c.dec
	}
	f := ps.plan.Rank.Timing.FrontendMs(r.L)
	if f <= 0 || r.Tokens < 1 {
		return 0
	}
	r.FirstToken += f
	r.LastToken += f
	if r.Tokens >= 2 {
		r.SecondToken += f
	}
	if r.Status == engine.Completed {
		r.Terminal += f
	}
	return f
}

// retire stores a terminal request's outcome and recycles it.
func (c *cluster) retire(r *engine.Request) {
	*c.outcomes.slot(r.Ordinal) = r.Outcome
	c.reqs[r.Ordinal-1] = nil
	r.Recycle()
	c.free = append(c.free, r)
}

// handoff moves a finished prefill to the decode pool (docs/semantics/simulation.md §11.2).
func (c *cluster) handoff(r *engine.Request, w *engine.Worker, rank int32) {
	r.SourceHeld = c.now
	p, ok := c.dec.router.Place(r, c.now)
	if r.History != nil {
		rt := engine.Route{Pool: uint8(engine.PoolDecode), Queued: !ok, EnteredAt: c.now, Worker: -1, Rank: -1}
		if ok {
			fillRoute(&rt, p, c.dec)
		}
		r.History.AddRoute(r.Ordinal, rt)
	}
	if !ok {
		// The decode router never queues (it tracks no prefill load).
		return
	}
	r.WorkerID, r.RankID = p.Worker.ID, p.Rank
	if p.Overlap >= 0 {
		r.DecodeOverlapTokens = min(p.Overlap*c.dec.plan.Router.BlockSize, r.L)
	}
	tr := &c.plan.Transfer
	// d_ms = handoff_ms + bandwidth term (docs/semantics/simulation.md §11.4).
	d := tr.HandoffMs
	if tr.BandwidthGBs > 0 {
		tokens := r.L
		if !tr.FullPrompt {
			bs := c.dec.plan.Rank.BlockSize
			m := p.Worker.Ranks[p.Rank].KV.Match(r.PromptHashIDs(bs, c.dec.plan.Rank.HashIDs)) * bs
			tokens = r.L - min(r.L, m)
		}
		d = tr.HandoffMs + ((float64(int64(tokens)*tr.BytesPerToken) / (tr.BandwidthGBs * 1e9)) * 1000)
	}
	r.DecodeTarget = p.Worker
	r.SourceWorker, r.SourceRank = w, rank
	r.TransferMs = d
	dst := p.Worker.Ranks[p.Rank]
	if dst.Config().DestinationFirst() {
		// Destination-first (docs/semantics/simulation.md §11.3): the decode rank reserves the request's
		// blocks before the transfer starts; if it cannot, the transfer waits in FIFO order
		// and is retried after each decode pass of that worker.
		if !dst.ReserveDestination(r) {
			return
		}
		r.DestReserved = c.now
	} else if dst.Config().SlotFirst() && !dst.ReserveDestination(r) {
		// TensorRT-LLM (§11.3): the transfer waits for a slot of the decode rank's batch,
		// in FIFO order, retried after each decode pass of that worker.
		return
	}
	c.events.push(event{at: c.now + d, phase: phaseTransfer, tie: int64(r.Ordinal), a: r.Ordinal})
}

// retryDestinations starts the transfers whose destination reservation now succeeds.
func (c *cluster) retryDestinations(w *engine.Worker) {
	for _, k := range w.Ranks {
		for _, r := range k.RetryDestinations() {
			if k.Config().DestinationFirst() {
				r.DestReserved = c.now
			}
			c.events.push(event{at: c.now + r.TransferMs, phase: phaseTransfer, tie: int64(r.Ordinal), a: r.Ordinal})
		}
	}
}

// transferDone makes the first token visible and materialises the request on its decode rank.
func (c *cluster) transferDone(r *engine.Request) {
	r.SourceWorker.Ranks[r.SourceRank].ReleaseSource(r)
	r.SourceReleased = c.now
	// The freed blocks may admit a prefill that waits for room (docs/semantics/simulation.md §2.3 step 7).
	c.markDirty(r.SourceWorker)
	if c.pl != nil {
		c.maybeRemove(c.pre, r.SourceWorker)
	}
	r.EmitExternal(c.now)
	if r.O <= 1 {
		// Done with its first token: it never reaches the decode rank, whose destination
		// reservation (SGLang) is given back.
		r.DecodeTarget.Ranks[r.RankID].ReleaseDestination(r)
		c.retryDestinations(r.DecodeTarget)
		r.Status, r.Terminal = engine.Completed, c.now
		c.dec.router.Free(r, r.DecodeTarget, r.RankID, c.now)
		c.terminal(r)
		return
	}
	r.DestActivated = c.now
	if r.DestReserved == 0 {
		r.DestReserved = c.now
	}
	r.PrepareDecode()
	r.DecodeTarget.Ranks[r.RankID].Materialize(r)
	c.markDirty(r.DecodeTarget)
}

// OutcomeLog stores outcomes by ordinal in fixed chunks that never move.
type OutcomeLog struct {
	chunks [][]engine.Outcome
	n      int
}

const outcomeChunk = 4096

// Len is the number of outcomes (the highest ordinal stored).
func (l *OutcomeLog) Len() int { return l.n }

// At returns the outcome of ordinal i+1.
func (l *OutcomeLog) At(i int) *engine.Outcome {
	return &l.chunks[i/outcomeChunk][i%outcomeChunk]
}

func (l *OutcomeLog) slot(ordinal int32) *engine.Outcome {
	i := int(ordinal) - 1
	for len(l.chunks) <= i/outcomeChunk {
		l.chunks = append(l.chunks, make([]engine.Outcome, outcomeChunk))
	}
	if i+1 > l.n {
		l.n = i + 1
	}
	return l.At(i)
}
