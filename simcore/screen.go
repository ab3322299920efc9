package simcore

import (
	"fmt"
	"io/fs"
	"math"
	"strings"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/recommend"
	"aisimulate/simcore/report"
	"aisimulate/simcore/spec"
)

// screenSLAExponent sharpens the screen's goodput estimate: a mean over an SLA bound keeps
// (bound / mean)^4 of the throughput (docs/recommend.md, "screened").
const screenSLAExponent = 4

// maxScreenConcurrency bounds the in-flight requests the screen assumes for a rate load, and
// the closed-loop clients per rank it replays: perf.SimAgg replays ten times its clients'
// requests, so its time grows with them, and a point with more clients per rank gets no price
// rather than a screen that outlasts any work budget (docs/robustness.md, "Ceilings").
const maxScreenConcurrency = 4096

// screenable reports whether the surrogate can price the recommendation's workload: synthetic
// requests under a concurrency or rate load, with the default timing model wherever a role
// names its timing (docs/recommend.md, "screened").
func screenable(rec *spec.Recommendation) bool {
	src, _ := spec.GetPath(rec.Tree, "traffic.source.type")
	load, _ := spec.GetPath(rec.Tree, "traffic.load.type")
	if src != nil && src != spec.SourceSynthetic {
		return false
	}
	switch load {
	case nil, spec.LoadConcurrency, spec.LoadPoisson, spec.LoadConstantRate:
	default:
		return false
	}
	for _, role := range []string{spec.RoleAggregated, spec.RolePrefill, spec.RoleDecode} {
		if t, ok := spec.GetPath(rec.Tree, spec.WorkerPath(role, "timing.type")); ok && t != spec.TimingDefault {
			return false
		}
	}
	return true
}

// screenRole is one role of a point as the surrogate needs it, lowered once per role key.
type screenRole struct {
	ok       bool
	timing   *perf.Default
	kvTokens int64 // per rank, capped at max_sequences footprints
	budget   int   // prompt tokens per pass
	par      spec.Parallelism
	hw       string // the role's system
	cfg      *spec.Config
}

// screener prices the points of one space, remembering each role's lowering and each
// aggregated replay.
type screener struct {
	rec    *spec.Recommendation
	space  *recommend.Space
	files  fs.FS
	model  *catalog.Model
	roles  map[string]*screenRole
	replay map[string][2]float64
}

// screen prices every point of space with the steady-state surrogate (perf.SimAgg for an
// aggregated worker's ranks, perf.SimDisagg for a prefill+decode pair) and scores the
// estimated summary as the search scores a simulated one (recommend.ScoreSummary). Router
// and planner knobs are not priced: points that differ only there share a price.
func screen(rec *spec.Recommendation, space *recommend.Space, files fs.FS) ([]recommend.Priced, error) {
	pts, err := space.Enumerate(recommend.ScreenLimit)
	if err != nil {
		return nil, err
	}
	sc := &screener{rec: rec, space: space, files: files, roles: map[string]*screenRole{}, replay: map[string][2]float64{}}
	out := make([]recommend.Priced, len(pts))
	for i, pt := range pts {
		out[i] = sc.price(pt)
	}
	return out, nil
}

// price is one point's screen score (NaN when the surrogate cannot price it).
func (sc *screener) price(pt recommend.Point) recommend.Priced {
	nan := recommend.Priced{Point: pt, Score: math.NaN()}
	paths, values := sc.space.Assignments(pt)
	mode, _ := spec.GetPath(sc.rec.Tree, "engine.mode")
	for i, p := range paths {
		if p == "engine.mode" {
			mode = values[i]
		}
	}
	modeName, _ := mode.(string)
	if modeName == "" {
		modeName = spec.ModeAggregated
	}
	var roles []*screenRole
	var keys []string
	var tree map[string]any
	for _, role := range spec.RolesOf(modeName) {
		key := roleKey(role, paths, values)
		r, ok := sc.roles[key]
		if !ok {
			if tree == nil {
				var err error
				if tree, _, err = sc.space.Concrete(pt); err != nil {
					return nan
				}
			}
			r = sc.lowerRole(tree, role)
			sc.roles[key] = r
		}
		if !r.ok {
			return nan
		}
		roles, keys = append(roles, r), append(keys, key)
	}
	cfg := roles[0].cfg
	tr := cfg.Traffic
	isl, osl := tr.Source.InputTokens, tr.Source.OutputTokens
	gpus := 0
	for _, r := range roles {
		gpus += r.par.Replicas * r.par.Tensor * r.par.Pipeline * r.par.AttentionData
	}
	if op := sc.rec.Optimization; gpus > op.MaxGPUs || gpus < op.MinGPUs {
		return nan // infeasible without simulation: never proposed
	}
	// closed is mean TTFT and TPOT under conc requests in flight.
	closed := func(conc int) (float64, float64) {
		if len(roles) == 2 {
			p, d := roles[0], roles[1]
			return perf.SimDisagg(p.timing, d.timing, cfg.Engine.Backend, conc, isl, osl,
				perf.SurrogateRole{Workers: p.par.Replicas, Par: p.par}, perf.SurrogateRole{Workers: d.par.Replicas, Par: d.par},
				d.kvTokens, handoffMs(&cfg.Engine))
		}
		r := roles[0]
		ranks := max(r.par.Replicas*r.par.AttentionData, 1)
		perRank := (conc + ranks - 1) / ranks
		if perRank > maxScreenConcurrency {
			return math.NaN(), math.NaN() // not priced (maxScreenConcurrency)
		}
		k := fmt.Sprint(keys[0], "|", perRank)
		if v, ok := sc.replay[k]; ok {
			return v[0], v[1]
		}
		res := perf.SimAgg(r.timing, cfg.Engine.Backend, perRank, isl, osl, r.kvTokens, r.budget)
		g := r.timing.Effective()
		v := [2]float64{res.TTFT.Eval(g), res.TPOT.Eval(g)}
		sc.replay[k] = v
		return v[0], v[1]
	}
	conc, rate := tr.Load.Concurrency, math.Inf(1)
	if tr.Load.Type != spec.LoadConcurrency {
		// A rate load: the in-flight requests of Little's law, rate × E2E, found by iteration,
		// at most what the serving ranks hold at once (beyond it requests only queue).
		rate = *tr.Load.RequestsPerSecond
		last := roles[len(roles)-1]
		held := max(last.par.Replicas*last.par.AttentionData, 1) * perf.MaxInFlight(cfg.Engine.Backend, last.kvTokens, isl, osl)
		conc = 1
		for range 8 {
			ttft, tpot := closed(conc)
			conc = min(max(int(math.Ceil(rate*(ttft+float64(osl-1)*tpot)/1000)), 1), held, maxScreenConcurrency)
		}
	}
	ttft, tpot := closed(conc)
	e2e := ttft + float64(osl-1)*tpot
	if !(e2e > 0) {
		return nan
	}
	rps := math.Min(float64(conc)*1000/e2e, rate)
	good := 1.0
	if s := sc.rec.SLA; s != nil {
		for _, b := range []struct {
			bound *float64
			mean  float64
		}{{s.TTFTMs, ttft}, {s.ITLMs, tpot}, {s.E2EMs, e2e}} {
			if b.bound != nil && b.mean > *b.bound {
				good *= math.Pow(*b.bound/b.mean, screenSLAExponent)
			}
		}
	}
	n := float64(tr.StopCount())
	duration := n / rps * 1000
	summary := map[string]any{
		report.KeyOutputThroughputTokS:                       rps * float64(osl),
		report.KeyRequestThroughputRPS:                       rps,
		report.KeyGoodputOutputThroughputTokS:                good * rps * float64(osl),
		report.KeyGoodputRequestThroughputRPS:                good * rps,
		report.KeyGPUHours:                                   float64(gpus) * duration / 3.6e6,
		report.KeyDurationMs:                                 duration,
		report.KeyNumTTFTSamples:                             n,
		report.TTFT.Key(report.Mean):                         ttft,
		report.TPOT.Key(report.Mean):                         tpot,
		report.E2ELatency.Key(report.Mean):                   e2e,
		report.OutputTokenThroughputPerUser.Key(report.Mean): float64(osl) * 1000 / e2e,
	}
	// The roles' worker-seconds and GPUs per worker, which the cost reads.
	hw := recommend.RoleHardware{Decode: roles[len(roles)-1].hw}
	last := roles[len(roles)-1]
	summary[report.KeyDecodeWorkerSeconds] = float64(last.par.Replicas) * duration / 1000
	summary[report.KeyDecodeGPUsPerWorker] = last.par.Tensor * last.par.AttentionData
	summary[report.KeyTotalOutputTokens] = n * float64(osl)
	if len(roles) == 2 {
		hw.Prefill = roles[0].hw
		summary[report.KeyPrefillWorkerSeconds] = float64(roles[0].par.Replicas) * duration / 1000
		summary[report.KeyPrefillGPUsPerWorker] = roles[0].par.Tensor * roles[0].par.AttentionData
	}
	same := fmt.Sprintf("%s|%s|%x|%x", modeName, strings.Join(parallelisms(roles), "+"), math.Float64bits(ttft), math.Float64bits(tpot))
	return recommend.Priced{Point: pt, Score: recommend.ScoreSummary(sc.rec, summary, gpus, hw), Same: same}
}

// parallelisms names each role's backend and shape for Priced.Same.
func parallelisms(roles []*screenRole) []string {
	var out []string
	for _, r := range roles {
		out = append(out, fmt.Sprintf("%s %+v", r.cfg.Engine.Backend, r.par))
	}
	return out
}

// roleKey is what a role's lowering depends on among a point's assignments: every path that
// is not another role's, a router's or a planner's.
func roleKey(role string, paths []string, values []any) string {
	var b strings.Builder
	for i, p := range paths {
		if strings.HasPrefix(p, "router.") || strings.HasPrefix(p, "planner.") {
			continue
		}
		if rest, ok := strings.CutPrefix(p, "engine.workers."); ok && !strings.HasPrefix(rest, role+".") {
			continue
		}
		fmt.Fprint(&b, p, "=", values[i], ";")
	}
	return b.String()
}

// lowerRole lowers one role of a concrete configuration as predict would (lowerPool) and
// keeps what the surrogate needs; a role predict would refuse, or one without the default
// timing model, cannot be priced.
func (sc *screener) lowerRole(tree map[string]any, role string) *screenRole {
	cfg, err := spec.ConfigOfTree(tree)
	if err != nil {
		return &screenRole{}
	}
	if sc.model == nil {
		if sc.model, err = catalog.LookupModel(cfg.Engine.Model, sc.files); err != nil {
			return &screenRole{}
		}
	}
	w, pool := cfg.Engine.Aggregated, engine.PoolAgg
	switch role {
	case spec.RolePrefill:
		w, pool = cfg.Engine.Prefill, engine.PoolPrefill
	case spec.RoleDecode:
		w, pool = cfg.Engine.Decode, engine.PoolDecode
	}
	pp, err := lowerPool(cfg, sc.model, w, role, pool, perf.Correction{}, 1)
	if err != nil {
		return &screenRole{}
	}
	d, ok := pp.Rank.Timing.(*perf.Default)
	if !ok {
		return &screenRole{}
	}
	isl, osl := cfg.Traffic.Source.InputTokens, cfg.Traffic.Source.OutputTokens
	kv := surrogateKVTokens(pp, cfg.Engine.Backend, isl, osl)
	budget := pp.Rank.MaxBatchedTokens
	if cfg.Engine.Backend == spec.BackendSGLang && pp.DP > 1 {
		budget /= pp.DP // SGLang shares a worker's budget among its attention-DP ranks
	}
	hw := w.Hardware
	if hw == "" {
		hw = cfg.Engine.Hardware
	}
	return &screenRole{ok: true, timing: d, kvTokens: kv, budget: budget, par: w.Parallelism, hw: hw, cfg: cfg}
}
