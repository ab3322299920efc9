// Package planner decides worker counts for the Dynamo-style planner (docs/semantics/simulation.md §13):
// wall-time regressions fitted on forward-pass metrics, load predictors, throughput (SLA)
// scaling, load scaling and the GPU budget. It is a pure library: the event loop
// (simcore/replay) schedules the ticks, gathers the observations and applies the decisions.
package planner

import (
	"math"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// Component names of the planner roles.
const (
	ComponentAgg     = "agg"
	ComponentPrefill = "prefill"
	ComponentDecode  = "decode"
)

// BenchmarkGranularity is G, the grid size of the bootstrap profile (docs/semantics/simulation.md §13.4).
const BenchmarkGranularity = 8

// Default SLA bounds used by load scaling with target sla when evaluation.sla lacks them
// (the PlannerConfig defaults of Dynamo: ttft 500 ms, itl 50 ms).
const (
	DefaultTTFTMs = 500.0
	DefaultITLMs  = 50.0
)

// Settings is everything fixed for a run.
type Settings struct {
	Config        spec.Planner // effective planner config (defaults applied)
	Disaggregated bool         // mode "disagg" vs "agg"
	SLA           *spec.SLA    // evaluation.sla (nil if absent)
	Roles         []Role       // agg: one role (Component "agg"); disagg: "prefill" then "decode"
}

// Role is one planner-managed pool and the per-rank capabilities of its workers.
type Role struct {
	Component        string      // "agg" | "prefill" | "decode"
	Timing           perf.Timing // for the bootstrap profile (docs/semantics/simulation.md §13.4)
	MaxBatchedTokens int
	MaxSequences     int
	MaxKVTokens      int64 // num_gpu_blocks × block_size per rank
	ContextLength    int   // 0 = unlimited
	GPUsPerWorker    int   // tensor × attention_data
	MinWorkers       int   // effective minimum (min_workers, or prefill_/decode_min_workers)
}

// Observation is what the loop observed at a tick (docs/semantics/simulation.md §13.2).
type Observation struct {
	AtMs float64
	// Traffic window of requests released in (T − 1000·I_t, T]; filled whenever throughput
	// logic runs at this tick: count, Σ input_length, Σ requested_output_length, Σ
	// first-admission reuse and Σ L over requests first admitted in the window (HasHit false
	// if none).
	NumReq       int
	SumISL       int64
	SumOSL       int64
	SumHitTokens int64
	SumHitL      int64
	HasHit       bool
	Pools        []PoolObs // one per role, same order as Settings.Roles
}

// PoolObs is one role's pool at a tick.
type PoolObs struct {
	Active, Starting, Draining []int32 // worker ids, ascending
	// Latest FPM sample per active (worker, rank), sorted by (worker_id, dp_rank); an
	// all-zero sample for a rank with none.
	Latest []FPMObs
	// New samples since the previous tick, in (completion time, worker, rank) order.
	// Samples with WallS == 0 only update the moving averages.
	NewSamples []FPMObs
}

// FPMObs is one FPM sample of a (worker, rank).
type FPMObs struct {
	WorkerID, DPRank int32
	engine.FPM
}

// Decision is the outcome of a tick.
type Decision struct {
	// Targets are the worker counts (active + starting) per role, nil = unchanged; already
	// clamped by the GPU budget and minimums (docs/semantics/simulation.md §13.6).
	Targets []*int
	// Tick is the tick record of docs/semantics/outputs.md §5 except "effects",
	// "runtime_decision.next_tick_ms" and "topology", which the loop fills.
	Tick map[string]any
}

// Planner holds the planner's state across ticks.
type Planner struct {
	s          Settings
	intervalMs float64
	ordinal    int
	ttftSLA    float64
	itlSLA     float64
	hasSLA     bool // both SLA bounds given

	numReq, isl, osl, hit *Predictor
	hasHit                bool

	roles []*roleState
}

// roleState is the per-role model state.
type roleState struct {
	Role
	reg       *Regression
	avgISL    movingAvg // prefill: sum_prefill_tokens / num_prefill_requests
	avgDecLen movingAvg // decode/agg: sum_decode_kv / num_decode
	avgNumDec movingAvg // decode: num_decode_requests
	avgPrefil movingAvg // agg: sum_prefill_tokens
	bootstrap int
	lower     int // throughput lower bound (0 = none)
}

// New builds a planner and, when throughput scaling is enabled, installs the bootstrap
// profile in its regressions.
func New(s Settings) *Planner {
	c := s.Config
	p := &Planner{s: s, ttftSLA: DefaultTTFTMs, itlSLA: DefaultITLMs}
	if s.SLA != nil && s.SLA.TTFTMs != nil && s.SLA.ITLMs != nil {
		p.ttftSLA, p.itlSLA, p.hasSLA = *s.SLA.TTFTMs, *s.SLA.ITLMs, true
	} else if s.SLA != nil {
		if s.SLA.TTFTMs != nil {
			p.ttftSLA = *s.SLA.TTFTMs
		}
		if s.SLA.ITLMs != nil {
			p.itlSLA = *s.SLA.ITLMs
		}
	}
	g := 0
	if c.EnableThroughputScaling {
		g = c.ThroughputAdjustmentIntervalSeconds
	}
	if c.EnableLoadScaling {
		g = gcd(g, c.LoadAdjustmentIntervalSeconds)
	}
	p.intervalMs = float64(1000 * g)
	p.numReq = NewPredictor(c.LoadPredictor, c)
	p.isl = NewPredictor(c.LoadPredictor, c)
	p.osl = NewPredictor(c.LoadPredictor, c)
	p.hit = NewPredictor(PredictorConstant, c)
	for _, r := range s.Roles {
		rs := &roleState{Role: r}
		w := c.MaxNumFPMSamples
		rs.avgISL.window, rs.avgDecLen.window, rs.avgNumDec.window, rs.avgPrefil.window = w, w, w, w
		switch r.Component {
		case ComponentPrefill:
			rs.reg = NewRegression(1, w, c.FPMSampleBucketSize, c.LoadMinObservations, false)
		case ComponentDecode:
			rs.reg = NewRegression(2, w, c.FPMSampleBucketSize, c.LoadMinObservations, true)
		default:
			rs.reg = NewRegression(2, w, c.FPMSampleBucketSize, c.LoadMinObservations, false)
		}
		if c.EnableThroughputScaling {
			rs.bootstrap = Bootstrap(r, rs.reg.Add)
		}
		p.roles = append(p.roles, rs)
	}
	return p
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// IntervalMs is the tick period 1000·gcd(enabled intervals) (docs/semantics/simulation.md §13.1).
func (p *Planner) IntervalMs() float64 { return p.intervalMs }

// RunsThroughput reports whether throughput logic runs at a tick at atMs (the loop fills the
// traffic window of the observation then).
func (p *Planner) RunsThroughput(atMs float64) bool {
	c := p.s.Config
	return c.EnableThroughputScaling && divides(atMs, c.ThroughputAdjustmentIntervalSeconds)
}

// RunsLoad reports whether load logic runs at a tick at atMs.
func (p *Planner) RunsLoad(atMs float64) bool {
	c := p.s.Config
	return c.EnableLoadScaling && divides(atMs, c.LoadAdjustmentIntervalSeconds)
}

func divides(atMs float64, seconds int) bool {
	if seconds <= 0 {
		return false
	}
	return int64(math.Round(atMs))%int64(1000*seconds) == 0
}

// Bootstrap synthesizes the benchmark samples of a role from its timing model at granularity
// G = 8 (docs/semantics/simulation.md §13.4), passes each to add as (x0, x1, wall seconds) and returns their
// number. Prefill: x0 = tokens_k. Decode: (b_i, b_i·c_j). Agg: every pair (tokens_k,
// b_i·c_j), k outermost, with wall = prefill + decode.
func Bootstrap(r Role, add func(x0, x1, y float64)) int {
	if r.Timing == nil {
		return 0
	}
	const g = BenchmarkGranularity
	round := func(n int64) int64 { return (n + g/2) / g } // round(n/G), n ≥ 0, halves up
	var tokens []int
	for k := 1; k <= g; k++ {
		tokens = append(tokens, int(round(int64(k)*int64(r.MaxBatchedTokens))))
	}
	n := 0
	if r.Component == ComponentPrefill {
		for _, t := range tokens {
			add(float64(t), 0, r.Timing.PrefillMs(1, t, 0)/1000)
			n++
		}
		return n
	}
	type dec struct {
		b  int
		kv int64
		ms float64
	}
	var ds []dec
	maxKV := r.MaxKVTokens
	for i := 1; i <= g; i++ {
		b := max(1, int(round(int64(i)*int64(r.MaxSequences))))
		cl := maxKV
		if r.ContextLength > 0 {
			cl = int64(r.ContextLength)
		}
		c := min(cl, maxKV/int64(b))
		for j := 1; j <= g; j++ {
			cj := max(1, round(int64(j)*c))
			kv := int64(b) * cj
			ds = append(ds, dec{b, kv, r.Timing.DecodeMs(b, kv, int(cj), maxKV)})
		}
	}
	if r.Component == ComponentDecode {
		for _, d := range ds {
			add(float64(d.b), float64(d.kv), d.ms/1000)
			n++
		}
		return n
	}
	for _, t := range tokens {
		pm := r.Timing.PrefillMs(1, t, 0)
		for _, d := range ds {
			add(float64(t), float64(d.kv), (pm+d.ms)/1000)
			n++
		}
	}
	return n
}

// movingAvg is a windowed mean that skips leading zeros.
type movingAvg struct {
	window  int
	started bool
	vals    []float64
}

func (m *movingAvg) add(v float64) {
	if !m.started {
		if v == 0 {
			return
		}
		m.started = true
	}
	m.vals = append(m.vals, v)
	if m.window > 0 && len(m.vals) > m.window {
		m.vals = m.vals[len(m.vals)-m.window:]
	}
}

func (m *movingAvg) mean() float64 {
	if len(m.vals) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range m.vals {
		s += v
	}
	return s / float64(len(m.vals))
}

// ingest feeds a sample into the moving averages and, when non-idle, the regression.
func (rs *roleState) ingest(f engine.FPM) {
	switch rs.Component {
	case ComponentPrefill:
		if f.NumPrefillRequests > 0 {
			rs.avgISL.add(float64(f.SumPrefillTokens) / float64(f.NumPrefillRequests))
		}
		if f.WallS != 0 {
			rs.reg.Add(float64(f.SumPrefillTokens), 0, f.WallS)
		}
	case ComponentDecode:
		if f.NumDecodeRequests > 0 {
			rs.avgDecLen.add(float64(f.SumDecodeKVTokens) / float64(f.NumDecodeRequests))
		}
		rs.avgNumDec.add(float64(f.NumDecodeRequests))
		if f.WallS != 0 {
			rs.reg.Add(float64(f.NumDecodeRequests), float64(f.SumDecodeKVTokens), f.WallS)
		}
	default:
		if f.NumPrefillRequests > 0 {
			rs.avgISL.add(float64(f.SumPrefillTokens) / float64(f.NumPrefillRequests))
		}
		if f.NumDecodeRequests > 0 {
			rs.avgDecLen.add(float64(f.SumDecodeKVTokens) / float64(f.NumDecodeRequests))
		}
		rs.avgPrefil.add(float64(f.SumPrefillTokens))
		if f.WallS != 0 {
			rs.reg.Add(float64(f.SumPrefillTokens), float64(f.SumDecodeKVTokens), f.WallS)
		}
	}
}

// chunks calls f on the ⌈total/mbt⌉ pieces (≤ mbt each) of total and sums the results.
func chunks(total float64, mbt int, f func(float64) float64) float64 {
	if !(total > 0) {
		return 0
	}
	if mbt <= 0 {
		return f(total)
	}
	m := float64(mbt)
	n := int(math.Ceil(total / m))
	s := 0.0
	for i := 0; i < n-1; i++ {
		s += f(m)
	}
	return s + f(total-float64(float64(n-1)*m))
}

// ttft is the prefill estimator ttft(q) in seconds (docs/semantics/simulation.md §13.4).
func (rs *roleState) ttft(q float64) float64 {
	return chunks(q+rs.avgISL.mean(), rs.MaxBatchedTokens, func(c float64) float64 { return rs.reg.Predict(c, 0) })
}

// aggTTFT is the aggregated estimator: (q + avg_isl)·(1 − hit) chunked, each chunk at kv.
func (rs *roleState) aggTTFT(q, kv, hit float64) float64 {
	total := float64((q + rs.avgISL.mean()) * (1 - hit))
	return chunks(total, rs.MaxBatchedTokens, func(c float64) float64 { return rs.reg.Predict(c, kv) })
}

// itl is the decode (or agg) inter-token estimator in seconds.
func (rs *roleState) itl(s, q float64) float64 {
	kv := s + q + rs.avgDecLen.mean()
	if rs.Component == ComponentDecode {
		return rs.reg.Predict(rs.avgNumDec.mean()+1, kv)
	}
	return rs.reg.Predict(rs.avgPrefil.mean(), kv)
}

// Samples is the number of samples retained by a role's regression (for tests and reports).
func (p *Planner) Samples(role int) int { return p.roles[role].reg.Len() }

// Regression exposes a role's wall-time model.
func (p *Planner) Regression(role int) *Regression { return p.roles[role].reg }

// MinWorkers is the effective minimum of a component: prefill_min_workers /
// decode_min_workers when set (disaggregated roles), else min_workers.
func MinWorkers(c spec.Planner, component string) int {
	switch {
	case component == ComponentPrefill && c.PrefillMinWorkers != nil:
		return *c.PrefillMinWorkers
	case component == ComponentDecode && c.DecodeMinWorkers != nil:
		return *c.DecodeMinWorkers
	}
	return c.MinWorkers
}
