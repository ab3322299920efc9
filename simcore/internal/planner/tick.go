package planner

import (
	"math"
)

// Throughput (docs/semantics/simulation.md §13.5) and load (docs/semantics/simulation.md §13.6) reason codes.
const (
	ReasonDisabled         = "disabled"
	ReasonNoTrafficData    = "no_traffic_data"
	ReasonPredictFailed    = "predict_failed"
	ReasonModelNotReady    = "model_not_ready"
	ReasonPartnerNotReady  = "partner_not_ready"
	ReasonSetLowerBound    = "set_lower_bound"
	ReasonScale            = "scale"
	ReasonInProgress       = "scaling_in_progress"
	ReasonNoFPMData        = "no_fpm_data"
	ReasonInsufficientData = "insufficient_data"
	ReasonScaleUp          = "scale_up"
	ReasonScaleDown        = "scale_down"
	ReasonCapped           = "scale_down_capped_by_throughput"
	ReasonNoChange         = "no_change"
	ReasonRefused          = "scale_down_refused_consolidation"
)

// maxReplicas bounds a demand-derived replica count before the GPU budget applies.
const maxReplicas = 1 << 30

// tickState collects one tick's outcome.
type tickState struct {
	diag    map[string]any
	desired []int  // per role; valid iff has[i]
	has     []bool // a decision (before the budget) exists for the role
}

// Tick runs the planner at a tick time with its observations and returns the decision.
func (p *Planner) Tick(obs Observation) Decision {
	runT, runL := p.RunsThroughput(obs.AtMs), p.RunsLoad(obs.AtMs)
	for i, rs := range p.roles {
		if i < len(obs.Pools) {
			for _, f := range obs.Pools[i].NewSamples {
				rs.ingest(f.FPM)
			}
		}
	}
	ts := &tickState{diag: map[string]any{}, desired: make([]int, len(p.roles)), has: make([]bool, len(p.roles))}
	for _, k := range []string{"engine_rps_decode", "engine_rps_prefill", "estimated_itl_ms", "estimated_ttft_ms",
		"load_reason", "load_reason_decode", "load_reason_prefill", "predicted_isl", "predicted_kv_hit_rate",
		"predicted_num_req", "predicted_osl", "throughput_lower_bound_decode", "throughput_lower_bound_prefill",
		"throughput_reason", "throughput_reason_decode", "throughput_reason_prefill"} {
		ts.diag[k] = nil
	}
	var traffic any
	if runT {
		traffic = p.throughput(obs, ts)
	}
	if runL {
		p.load(obs, ts)
	}
	dec := Decision{Targets: make([]*int, len(p.roles))}
	p.applyBudget(obs, ts, dec.Targets)

	rd := map[string]any{"target_" + ComponentDecode: nil, "target_" + ComponentPrefill: nil}
	for i, rs := range p.roles {
		if dec.Targets[i] != nil {
			rd["target_"+p.side(rs.Component)] = *dec.Targets[i]
		}
	}
	var fpms []any
	wc := map[string]any{ComponentDecode: 0, ComponentPrefill: 0}
	for i, rs := range p.roles {
		if i >= len(obs.Pools) {
			continue
		}
		wc[p.side(rs.Component)] = len(obs.Pools[i].Active)
	}
	if runL {
		// Sorted by (pool, worker_id, dp_rank): pools in name order, each already sorted.
		order := make([]int, 0, len(p.roles))
		for i := range p.roles {
			order = append(order, i)
		}
		for a := 1; a < len(order); a++ {
			for b := a; b > 0 && p.roles[order[b]].Component < p.roles[order[b-1]].Component; b-- {
				order[b], order[b-1] = order[b-1], order[b]
			}
		}
		for _, i := range order {
			if i >= len(obs.Pools) {
				continue
			}
			for _, f := range obs.Pools[i].Latest {
				fpms = append(fpms, fpmJSON(p.roles[i].Component, f))
			}
		}
	}
	if fpms == nil {
		fpms = []any{}
	}
	dec.Tick = map[string]any{
		"at_ms":       obs.AtMs,
		"diagnostics": ts.diag,
		"input": map[string]any{
			"fpm_observations": fpms,
			"now_s":            obs.AtMs / 1000,
			"traffic":          traffic,
			"worker_counts":    wc,
		},
		"ordinal":          p.ordinal,
		"runtime_decision": rd,
		"scheduled_tick":   true,
	}
	p.ordinal++
	return dec
}

// side maps a component to its reporting side (the aggregated pool is reported as decode).
func (p *Planner) side(component string) string {
	if component == ComponentPrefill {
		return ComponentPrefill
	}
	return ComponentDecode
}

func fpmJSON(pool string, f FPMObs) map[string]any {
	return map[string]any{
		"dp_rank": int(f.DPRank),
		"pool":    pool,
		"queued": map[string]any{
			"sum_decode_kv_tokens": f.QueuedDecodeKV,
			"sum_prefill_tokens":   f.QueuedPrefillTokens,
		},
		"scheduled": map[string]any{
			"num_decode_requests":  f.NumDecodeRequests,
			"num_prefill_requests": f.NumPrefillRequests,
			"sum_decode_kv_tokens": f.SumDecodeKVTokens,
			"sum_prefill_tokens":   f.SumPrefillTokens,
		},
		"wall_time_s": f.WallS,
		"worker_id":   int(f.WorkerID),
	}
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// ceilCount is ⌈v⌉ as a replica count, bounded to [0, maxReplicas].
func ceilCount(v float64) int {
	if !(v > 0) {
		return 0
	}
	c := math.Ceil(v)
	if c > maxReplicas {
		return maxReplicas
	}
	return int(c)
}

// throughput runs the throughput logic and returns the traffic record of the tick input.
func (p *Planner) throughput(obs Observation, ts *tickState) any {
	c := p.s.Config
	dur := float64(c.ThroughputAdjustmentIntervalSeconds)
	isl, osl := 0.0, 0.0
	if obs.NumReq > 0 {
		isl = float64(obs.SumISL) / float64(obs.NumReq)
		osl = float64(obs.SumOSL) / float64(obs.NumReq)
	}
	var hitObs any
	p.numReq.Add(float64(obs.NumReq))
	p.isl.Add(isl)
	p.osl.Add(osl)
	if obs.HasHit && obs.SumHitL > 0 {
		h := float64(obs.SumHitTokens) / float64(obs.SumHitL)
		hitObs = h
		p.hit.Add(h)
		p.hasHit = true
	}
	traffic := map[string]any{"duration_s": dur, "isl": isl, "kv_hit_rate": hitObs, "num_req": obs.NumReq, "osl": osl}

	setReason := func(r string) {
		ts.diag["throughput_reason"] = r
		for _, rs := range p.roles {
			ts.diag["throughput_reason_"+p.side(rs.Component)] = r
		}
	}
	if !(dur > 0) {
		setReason(ReasonNoTrafficData)
		return traffic
	}
	nr, pi, po := p.numReq.Predict(), p.isl.Predict(), p.osl.Predict()
	if !finite(nr) || !finite(pi) || !finite(po) {
		setReason(ReasonPredictFailed)
		return traffic
	}
	ts.diag["predicted_num_req"], ts.diag["predicted_isl"], ts.diag["predicted_osl"] = nr, pi, po
	hit := 0.0
	if p.hasHit {
		h := p.hit.Predict()
		ts.diag["predicted_kv_hit_rate"] = h
		hit = math.Max(0, math.Min(1, h))
	}
	demand := nr / dur

	counts := make([]int, len(p.roles))
	ready := make([]bool, len(p.roles))
	for i, rs := range p.roles {
		var n int
		var rps, ms float64
		var ok bool
		switch rs.Component {
		case ComponentPrefill:
			n, rps, ms, ok = p.prefillReplicas(rs, demand, pi, hit)
			if ok {
				ts.diag["estimated_ttft_ms"] = ms
			}
		case ComponentDecode:
			n, rps, ms, ok = p.decodeReplicas(rs, demand, pi, po)
			if ok {
				ts.diag["estimated_itl_ms"] = ms
			}
		default:
			var ttftMs float64
			n, rps, ms, ttftMs, ok = p.aggReplicas(rs, demand, pi, po, hit)
			if ok {
				ts.diag["estimated_itl_ms"] = ms
				ts.diag["estimated_ttft_ms"] = ttftMs
			}
		}
		if ok {
			ts.diag["engine_rps_"+p.side(rs.Component)] = rps
		}
		counts[i], ready[i] = n, ok
	}
	allReady := true
	for _, ok := range ready {
		allReady = allReady && ok
	}
	if !allReady {
		ts.diag["throughput_reason"] = ReasonModelNotReady
		for i, rs := range p.roles {
			r := ReasonModelNotReady
			if ready[i] {
				r = ReasonPartnerNotReady
			}
			ts.diag["throughput_reason_"+p.side(rs.Component)] = r
		}
		return traffic
	}
	if c.EnableLoadScaling {
		setReason(ReasonSetLowerBound)
		for i, rs := range p.roles {
			rs.lower = counts[i]
			ts.diag["throughput_lower_bound_"+p.side(rs.Component)] = counts[i]
		}
		return traffic
	}
	setReason(ReasonScale)
	for i := range p.roles {
		ts.desired[i], ts.has[i] = counts[i], true
	}
	return traffic
}

// prefillReplicas sizes the prefill pool (docs/semantics/simulation.md §13.5): replicas, engine rps, ttft ms, ready.
func (p *Planner) prefillReplicas(rs *roleState, demand, isl, hit float64) (int, float64, float64, bool) {
	if !rs.reg.Ready() {
		return 0, 0, 0, false
	}
	eff := float64(isl * (1 - hit))
	mbt := float64(rs.MaxBatchedTokens)
	var wt float64
	if rs.MaxBatchedTokens > 0 && eff > mbt {
		n := math.Ceil(eff / mbt)
		wt = float64((n-1)*rs.reg.Predict(mbt, 0)) + rs.reg.Predict(eff-float64((n-1)*mbt), 0)
	} else {
		wt = rs.reg.Predict(eff, 0)
	}
	rps := 1 / wt
	if !(rps > 0) || !finite(rps) {
		return 0, 0, 0, false
	}
	ttftMs := 1000 * wt
	floor := 1
	if ttftMs > p.ttftSLA {
		floor = ceilCount(ttftMs / p.ttftSLA)
	}
	return max(ceilCount(demand/rps), floor, rs.MinWorkers), rps, ttftMs, true
}

// decodeReplicas sizes the decode pool (docs/semantics/simulation.md §13.5): replicas, engine rps, itl ms, ready.
func (p *Planner) decodeReplicas(rs *roleState, demand, isl, osl float64) (int, float64, float64, bool) {
	if !rs.reg.Ready() {
		return 0, 0, 0, false
	}
	osl = math.Max(osl, 1)
	ctx := isl + osl/2
	kvCap := 256
	if rs.MaxKVTokens > 0 {
		kvCap = max(1, ceilCount(math.Floor(float64(rs.MaxKVTokens)/ctx)))
	}
	maxBatch := kvCap
	if rs.MaxSequences > 0 {
		maxBatch = min(kvCap, rs.MaxSequences)
	}
	maxBatch = max(1, maxBatch)
	pred := func(bs int) float64 { return rs.reg.Predict(float64(bs), float64(float64(bs)*ctx)) }
	var rps, itlMs float64
	if w1 := pred(1); 1000*w1 > p.itlSLA {
		rps, itlMs = 1/float64(osl*w1), 1000*w1
	} else {
		lo, hi := 1, maxBatch
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if 1000*pred(mid) <= p.itlSLA {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		w := pred(lo)
		rps, itlMs = float64(lo)/float64(osl*w), 1000*w
	}
	if !(rps > 0) || !finite(rps) {
		return 0, 0, 0, false
	}
	return max(ceilCount(demand/rps), rs.MinWorkers), rps, itlMs, true
}

// aggReplicas sizes the aggregated pool (docs/semantics/simulation.md §13.5): replicas, engine rps, itl ms, ttft ms, ready.
func (p *Planner) aggReplicas(rs *roleState, demand, isl, osl, hit float64) (int, float64, float64, float64, bool) {
	if !rs.reg.Ready() {
		return 0, 0, 0, 0, false
	}
	osl = math.Max(osl, 1)
	eff := float64(isl * (1 - hit))
	ctx := isl + osl/2
	kvCap := 1024
	if rs.MaxKVTokens > 0 {
		kvCap = max(1, ceilCount(math.Floor(float64(rs.MaxKVTokens)/ctx)))
	}
	mbt := rs.MaxBatchedTokens
	hard := min(kvCap, mbt-1)
	if rs.MaxSequences > 0 {
		hard = min(hard, rs.MaxSequences)
	}
	fits := func(x int) bool { return isl/float64(mbt-x) <= osl }
	maxBS := 1
	if lo, hi := 1, max(1, hard); fits(1) {
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if fits(mid) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		maxBS = lo
	}
	var rps, itlMs, ttftMs float64
	for bs := 1; bs <= maxBS; bs++ {
		kv := float64(float64(bs) * ctx)
		pp := math.Min(float64(float64(bs)*eff)/math.Max(1, osl), float64(mbt))
		wt := rs.reg.Predict(pp, kv)
		tt := rs.aggTTFT(math.Floor(pp), math.Floor(kv), 0)
		if !(1000*wt <= p.itlSLA && 1000*tt <= p.ttftSLA) {
			if bs == 1 {
				rps, itlMs, ttftMs = 1/float64(osl*wt), 1000*wt, 1000*tt
			}
			break
		}
		rps, itlMs, ttftMs = float64(bs)/float64(osl*wt), 1000*wt, 1000*tt
	}
	if !(rps > 0) || !finite(rps) {
		return 0, 0, 0, 0, false
	}
	return max(ceilCount(demand/rps), rs.MinWorkers), rps, itlMs, ttftMs, true
}

// load runs the load logic of every role.
func (p *Planner) load(obs Observation, ts *tickState) {
	var reasons []string
	for i, rs := range p.roles {
		var po PoolObs
		if i < len(obs.Pools) {
			po = obs.Pools[i]
		}
		reason, desired, ok := p.loadRole(rs, po, ts)
		if ok {
			before := desired
			desired = max(desired, rs.lower, rs.MinWorkers)
			if reason == ReasonScaleDown && desired > before {
				reason = ReasonCapped
			}
			ts.desired[i], ts.has[i] = desired, true
		}
		ts.diag["load_reason_"+p.side(rs.Component)] = reason
		reasons = append(reasons, reason)
	}
	ts.diag["load_reason"] = overallLoadReason(reasons)
}

// overallLoadReason summarises the per-role load reasons, by priority.
func overallLoadReason(rs []string) any {
	for _, want := range []string{ReasonScaleUp, ReasonScaleDown, ReasonCapped, ReasonRefused,
		ReasonInProgress, ReasonInsufficientData, ReasonNoFPMData, ReasonNoChange} {
		for _, r := range rs {
			if r == want {
				return r
			}
		}
	}
	if len(rs) > 0 {
		return rs[0]
	}
	return nil
}

// loadRole is one role's load decision before the lower bound: reason, desired count and
// whether a decision was made.
func (p *Planner) loadRole(rs *roleState, po PoolObs, ts *tickState) (string, int, bool) {
	if len(po.Starting) > 0 || len(po.Draining) > 0 {
		return ReasonInProgress, 0, false
	}
	if len(po.Latest) == 0 {
		return ReasonNoFPMData, 0, false
	}
	n := len(po.Active)
	down := max(n-1, rs.MinWorkers)
	var up, dn, refused bool
	if p.s.Config.Target == "sla" {
		if !rs.reg.Ready() {
			return ReasonInsufficientData, 0, false
		}
		up, dn, refused = p.slaChecks(rs, po.Latest, n, ts)
	} else {
		up, dn = thresholdChecks(p.s.Config.Target, rs, po.Latest)
		dn = dn && n > 1
	}
	switch {
	case up:
		return ReasonScaleUp, n + 1, true
	case dn:
		return ReasonScaleDown, down, true
	case refused:
		return ReasonRefused, n, true
	}
	return ReasonNoChange, n, true
}

// slaChecks evaluates the regression-based up and down checks of target sla (docs/semantics/simulation.md §13.6).
func (p *Planner) slaChecks(rs *roleState, es []FPMObs, n int, ts *tickState) (up, down, refused bool) {
	sens := float64(p.s.Config.LoadScalingDownSensitivity) / 100
	cons := 0.0
	if n > 1 {
		cons = float64(n) / float64(n-1)
	}
	hit := 0.0
	if p.hasHit {
		hit = math.Max(0, math.Min(1, p.hit.Predict()))
	}
	maxKV := float64(rs.MaxKVTokens)
	// prefillSide: up/down/refused for a ttft estimator est(q, kv).
	prefillSide := func(est func(q, kv float64) float64, withKV bool) (bool, bool, bool) {
		up := true
		worst := 0.0
		for _, e := range es {
			kv := 0.0
			if withKV {
				kv = float64(e.SumDecodeKVTokens)
			}
			v := 1000 * est(float64(e.QueuedPrefillTokens), kv)
			worst = math.Max(worst, v)
			up = up && v > p.ttftSLA
		}
		if ts.diag["estimated_ttft_ms"] == nil {
			ts.diag["estimated_ttft_ms"] = worst
		}
		if up || n <= 1 {
			return up, false, false
		}
		own := est(0, 0)
		budget := float64((p.ttftSLA - 1000*own) * sens)
		if !(budget > 0) {
			return false, false, false
		}
		for _, e := range es {
			q := math.Floor(float64(float64(e.QueuedPrefillTokens) * cons))
			kv := 0.0
			if withKV {
				kv = math.Floor(float64(float64(e.SumDecodeKVTokens) * cons))
			}
			if !(1000*est(q, kv)-1000*own < budget) {
				return false, false, true
			}
		}
		return false, true, false
	}
	// decodeSide: up/down/refused over per-engine (scheduled, queued) KV.
	decodeSide := func(kvs func(e FPMObs) (float64, float64)) (bool, bool, bool) {
		up := true
		worst := 0.0
		for _, e := range es {
			s, q := kvs(e)
			v := 1000 * rs.itl(s, q)
			worst = math.Max(worst, v)
			up = up && v > p.itlSLA
		}
		if ts.diag["estimated_itl_ms"] == nil {
			ts.diag["estimated_itl_ms"] = worst
		}
		if up || n <= 1 {
			return up, false, false
		}
		for _, e := range es {
			s, q := kvs(e)
			post := math.Floor(float64((s + q) * cons))
			if !(post < maxKV && 1000*rs.itl(post, 0) < float64(p.itlSLA*sens)) {
				return false, false, true
			}
		}
		return false, true, false
	}
	switch rs.Component {
	case ComponentPrefill:
		return prefillSide(func(q, _ float64) float64 { return rs.ttft(q) }, false)
	case ComponentDecode:
		return decodeSide(func(e FPMObs) (float64, float64) {
			return float64(e.SumDecodeKVTokens), float64(e.QueuedDecodeKV)
		})
	}
	pu, pd, pr := prefillSide(func(q, kv float64) float64 { return rs.aggTTFT(q, kv, hit) }, true)
	du, dd, dr := decodeSide(func(e FPMObs) (float64, float64) {
		return float64(e.SumDecodeKVTokens), float64(e.QueuedDecodeKV + e.QueuedPrefillTokens)
	})
	if pu || du {
		return true, false, false
	}
	if pd && dd {
		return false, true, false
	}
	return false, false, n > 1 && (pr || dr)
}

// thresholdChecks evaluates the per-engine thresholds of targets throughput, latency and load
// (docs/semantics/simulation.md §13.6): up if any engine is above, down if all are below.
func thresholdChecks(target string, rs *roleState, es []FPMObs) (up, down bool) {
	down = true
	for _, e := range es {
		var u, d bool
		if rs.Component == ComponentPrefill {
			q := float64(e.QueuedPrefillTokens)
			cl := float64(rs.ContextLength)
			if rs.ContextLength <= 0 {
				cl = float64(rs.MaxKVTokens)
			}
			m := 0.0
			if cl > 0 {
				m = q / cl
			}
			switch target {
			case "latency":
				u, d = m >= 0.1, m <= 0
			case "load":
				u, d = q >= 1, q == 0
			default:
				u, d = m >= 1.0, m < 0.1
			}
		} else {
			kv := float64(e.SumDecodeKVTokens + e.QueuedDecodeKV)
			if rs.Component != ComponentDecode {
				kv += float64(e.QueuedPrefillTokens)
			}
			m := 0.0
			if rs.MaxKVTokens > 0 {
				m = kv / float64(rs.MaxKVTokens)
			}
			switch target {
			case "latency":
				u, d = m > 0.4, m < 0.1
			case "load":
				u, d = m > 0.90, m < 0.70
			default:
				u, d = m > 1.0, m < 0.6
			}
		}
		up = up || u
		down = down && d
	}
	return up, down
}

// applyBudget turns the tick's decisions into clamped targets (nil = unchanged).
func (p *Planner) applyBudget(obs Observation, ts *tickState, out []*int) {
	c := p.s.Config
	current := make([]int, len(p.roles))
	decided := false
	for i := range p.roles {
		if i < len(obs.Pools) {
			current[i] = len(obs.Pools[i].Active) + len(obs.Pools[i].Starting)
		}
		decided = decided || ts.has[i]
	}
	if !decided {
		return
	}
	want := make([]int, len(p.roles))
	for i := range p.roles {
		want[i] = current[i]
		if ts.has[i] {
			want[i] = ts.desired[i]
		}
	}
	if len(p.roles) == 2 {
		pr, dr := p.roles[0], p.roles[1]
		want[0], want[1] = ClampPair(want[0], want[1], pr.GPUsPerWorker, dr.GPUsPerWorker,
			c.MaxNumGPUs, c.MinNumGPUs, pr.MinWorkers, dr.MinWorkers)
	} else {
		for i, rs := range p.roles {
			want[i] = ClampSingle(want[i], rs.GPUsPerWorker, c.MaxNumGPUs, c.MinNumGPUs, rs.MinWorkers)
		}
	}
	for i := range p.roles {
		if want[i] != current[i] {
			v := want[i]
			out[i] = &v
		}
	}
}
