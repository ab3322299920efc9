package replay

import (
	"slices"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/planner"
)

// Worker lifecycle states (docs/semantics/simulation.md §1, §13.6).
const (
	stateActive uint8 = iota
	stateStarting
	stateDraining
	stateRemoved
)

// plannerRun drives the planner from the loop: ticks, observations, applying targets,
// lifecycle operations and the integral of provisioned workers.
type plannerRun struct {
	p        *planner.Planner
	pools    []*poolState // in role order
	k        int64        // ticks scheduled so far
	ticks    []any
	scaling  []any
	ops      []any
	tickOps  []any
	lastT    float64
	ws       []float64 // worker-seconds per role
	winNum   int
	winISL   int64
	winOSL   int64
	admits   []admitMark
	inTick   bool
	ticksRun int
}

// admitMark remembers a rank's first-admission counters at the previous throughput tick.
type admitMark struct{ n, reuse, l int64 }

func (c *cluster) startPlanner() {
	pp := c.plan.Planner
	pr := &plannerRun{p: planner.New(pp.Settings)}
	if c.agg != nil {
		pr.pools = []*poolState{c.agg}
	} else {
		pr.pools = []*poolState{c.pre, c.dec}
	}
	pr.ws = make([]float64, len(pr.pools))
	for _, ps := range pr.pools {
		for _, w := range ps.workers {
			w.RecordFPM = true
		}
	}
	c.pl = pr
	c.scheduleTick()
}

func (c *cluster) scheduleTick() {
	pr := c.pl
	pr.k++
	c.events.push(event{at: float64(pr.k) * pr.p.IntervalMs(), phase: phasePlanner})
	c.plannerPending++
}

// provisioned is the number of starting + active + draining workers of a pool.
func provisioned(ps *poolState) int {
	n := 0
	for _, s := range ps.states {
		if s != stateRemoved {
			n++
		}
	}
	return n
}

// integrate advances the worker-seconds integral to now.
func (c *cluster) integrate() {
	pr := c.pl
	if pr == nil {
		return
	}
	dt := c.now - pr.lastT
	if dt > 0 {
		for i, ps := range pr.pools {
			pr.ws[i] += float64(provisioned(ps)) * dt / 1000
		}
	}
	pr.lastT = c.now
}

func (c *cluster) op(ps *poolState, w int32, kind string) {
	o := map[string]any{"at_ms": c.now, "operation": kind, "pool": ps.pool.String(), "worker_id": int(w)}
	c.pl.ops = append(c.pl.ops, o)
	if c.pl.inTick {
		c.pl.tickOps = append(c.pl.tickOps, o)
	}
}

// tick runs the planner at now (docs/semantics/simulation.md §13).
func (c *cluster) tick() {
	pr := c.pl
	c.plannerPending--
	c.backfill()
	c.integrate()
	obs := planner.Observation{AtMs: c.now}
	if pr.p.RunsThroughput(c.now) {
		obs.NumReq, obs.SumISL, obs.SumOSL = pr.winNum, pr.winISL, pr.winOSL
		pr.winNum, pr.winISL, pr.winOSL = 0, 0, 0
		ranks := 0
		for _, w := range pr.pools[0].workers {
			ranks += len(w.Ranks)
		}
		for len(pr.admits) < ranks {
			pr.admits = append(pr.admits, admitMark{})
		}
		i := 0
		var n int64
		for _, w := range pr.pools[0].workers {
			for _, k := range w.Ranks {
				m := &pr.admits[i]
				n += k.FirstAdmits - m.n
				obs.SumHitTokens += k.FirstAdmitReuse - m.reuse
				obs.SumHitL += k.FirstAdmitL - m.l
				*m = admitMark{k.FirstAdmits, k.FirstAdmitReuse, k.FirstAdmitL}
				i++
			}
		}
		obs.HasHit = n > 0
	}
	topology := map[string]any{"prefill": emptyTopology(), "decode": emptyTopology()}
	for _, ps := range pr.pools {
		po := planner.PoolObs{Active: []int32{}, Starting: []int32{}, Draining: []int32{}}
		var samples []planner.FPMObs
		for _, w := range ps.workers {
			switch ps.states[w.ID] {
			case stateActive:
				po.Active = append(po.Active, w.ID)
				for r := range w.Ranks {
					po.Latest = append(po.Latest, planner.FPMObs{WorkerID: w.ID, DPRank: int32(r), FPM: w.LastFPM[r]})
				}
				for _, f := range w.FPMLog {
					samples = append(samples, planner.FPMObs{WorkerID: w.ID, DPRank: f.Rank, FPM: f})
				}
			case stateStarting:
				po.Starting = append(po.Starting, w.ID)
			case stateDraining:
				po.Draining = append(po.Draining, w.ID)
			}
			w.FPMLog = w.FPMLog[:0]
		}
		slices.SortStableFunc(samples, func(a, b planner.FPMObs) int {
			switch {
			case a.At != b.At:
				if a.At < b.At {
					return -1
				}
				return 1
			case a.WorkerID != b.WorkerID:
				return int(a.WorkerID - b.WorkerID)
			}
			return int(a.DPRank - b.DPRank)
		})
		po.NewSamples = samples
		obs.Pools = append(obs.Pools, po)
		side := "decode"
		if ps.pool == engine.PoolPrefill {
			side = "prefill"
		}
		topology[side] = topologyJSON(po)
	}
	dec := pr.p.Tick(obs)
	pr.inTick, pr.tickOps = true, []any{}
	for i, t := range dec.Targets {
		if t != nil {
			c.applyTarget(pr.pools[i], *t)
		}
	}
	pr.inTick = false
	rec := dec.Tick
	rec["effects"] = pr.tickOps
	rec["topology"] = topology
	c.scheduleTick()
	if rd, ok := rec["runtime_decision"].(map[string]any); ok {
		rd["next_tick_ms"] = float64(pr.k) * pr.p.IntervalMs()
	}
	pr.ticks = append(pr.ticks, rec)
	pr.ticksRun++
}

func emptyTopology() map[string]any {
	return map[string]any{"active": []any{}, "active_count": 0, "draining": []any{}, "draining_count": 0, "starting": []any{}, "starting_count": 0}
}

func ids(v []int32) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func topologyJSON(po planner.PoolObs) map[string]any {
	return map[string]any{"active": ids(po.Active), "active_count": len(po.Active), "draining": ids(po.Draining),
		"draining_count": len(po.Draining), "starting": ids(po.Starting), "starting_count": len(po.Starting)}
}

// applyTarget moves a pool to target (active + starting) workers (docs/semantics/simulation.md §13.6).
func (c *cluster) applyTarget(ps *poolState, target int) {
	count := 0
	for _, s := range ps.states {
		if s == stateActive || s == stateStarting {
			count++
		}
	}
	if target == count {
		return
	}
	component := ps.pool.String()
	reason := "scale_up"
	if target < count {
		reason = "scale_down"
	}
	c.pl.scaling = append(c.pl.scaling, map[string]any{"at_s": c.now / 1000, "component": component,
		"from_count": count, "to_count": target, "reason": reason})
	for ; count < target; count++ {
		id := int32(len(ps.workers))
		w := engine.NewWorker(id, &ps.plan.Rank, ps.plan.DP)
		w.RecordFPM = true
		ps.workers = append(ps.workers, w)
		ps.states = append(ps.states, stateStarting)
		c.op(ps, id, "add")
		c.events.push(event{at: c.now + ps.plan.StartupMs, phase: phaseReady, tie: int64(ps.pool)<<32 | int64(id), a: int32(ps.pool), b: id})
	}
	// Cancel starting workers, newest first, then drain active ones, highest id first.
	for i := len(ps.workers) - 1; i >= 0 && count > target; i-- {
		if ps.states[i] == stateStarting {
			ps.states[i] = stateRemoved
			c.op(ps, int32(i), "cancel")
			count--
		}
	}
	for i := len(ps.workers) - 1; i >= 0 && count > target; i-- {
		if ps.states[i] == stateActive {
			ps.states[i] = stateDraining
			c.op(ps, int32(i), "drain")
			count--
		}
	}
	c.refreshRoutable(ps)
	for _, w := range ps.workers {
		c.maybeRemove(ps, w)
	}
}

// workerReady makes a starting worker active and routable.
func (c *cluster) workerReady(w *engine.Worker) {
	ps := c.poolOf(w)
	if ps.states[w.ID] != stateStarting {
		return // canceled meanwhile
	}
	c.integrate()
	ps.states[w.ID] = stateActive
	c.op(ps, w.ID, "ready")
	c.refreshRoutable(ps)
	if ps.router.Queued() > 0 {
		c.drainRouter(ps)
	}
}

// refreshRoutable rebuilds the router's candidate list from active workers.
func (c *cluster) refreshRoutable(ps *poolState) {
	ps.active = ps.active[:0]
	for _, w := range ps.workers {
		if ps.states[w.ID] == stateActive {
			ps.active = append(ps.active, w)
		}
	}
	ps.router.SetWorkers(ps.active)
}

// maybeRemove removes a draining worker once it holds no request at all.
func (c *cluster) maybeRemove(ps *poolState, w *engine.Worker) {
	if ps.states == nil || ps.states[w.ID] != stateDraining || !w.Empty() {
		return
	}
	for _, k := range w.Ranks {
		if len(k.Held) > 0 {
			return
		}
	}
	c.integrate()
	ps.states[w.ID] = stateRemoved
	c.op(ps, w.ID, "remove")
	for i, k := range w.Ranks {
		k.KV.Clear()
		if ps.plan.Router.UseEvents {
			ps.router.Events(w, int32(i), k.KV.Events)
		}
		k.KV.Events = k.KV.Events[:0]
	}
}

// plannerSection is prediction.json's planner object (docs/semantics/outputs.md §5).
func (c *cluster) plannerSection() map[string]any {
	pr := c.pl
	ticks := pr.ticks
	if ticks == nil {
		ticks = []any{}
	}
	ops := pr.ops
	if ops == nil {
		ops = []any{}
	}
	slices.SortStableFunc(ops, func(a, b any) int {
		x, y := a.(map[string]any), b.(map[string]any)
		if x["at_ms"].(float64) != y["at_ms"].(float64) {
			if x["at_ms"].(float64) < y["at_ms"].(float64) {
				return -1
			}
			return 1
		}
		if x["pool"] != y["pool"] {
			if poolOrder(x["pool"].(string)) < poolOrder(y["pool"].(string)) {
				return -1
			}
			return 1
		}
		if x["worker_id"] != y["worker_id"] {
			return x["worker_id"].(int) - y["worker_id"].(int)
		}
		return opOrder(x["operation"].(string)) - opOrder(y["operation"].(string))
	})
	scaling := pr.scaling
	if scaling == nil {
		scaling = []any{}
	}
	return map[string]any{
		"html_report_path":     nil,
		"lifecycle_operations": ops,
		"metadata":             pr.p.Metadata(),
		"scaling_events":       scaling,
		"ticks":                ticks,
		"total_ticks":          len(ticks),
	}
}

func poolOrder(p string) int {
	switch p {
	case "prefill":
		return 1
	case "decode":
		return 2
	}
	return 0
}

func opOrder(o string) int {
	return slices.Index([]string{"add", "ready", "cancel", "drain", "remove"}, o)
}
