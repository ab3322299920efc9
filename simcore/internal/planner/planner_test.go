package planner

import (
	"regexp"
	"testing"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

func f64(v float64) *float64 { return &v }

func slaOf(ttft, itl float64) *spec.SLA { return &spec.SLA{TTFTMs: f64(ttft), ITLMs: f64(itl)} }

func role(component string, tm perf.Timing) Role {
	return Role{Component: component, Timing: tm, MaxBatchedTokens: 8192, MaxSequences: 256,
		MaxKVTokens: 100000, ContextLength: 32768, GPUsPerWorker: 1, MinWorkers: 1}
}

func loadOnly(target string) spec.Planner {
	c := spec.DefaultPlanner()
	c.Policy, c.Target = spec.PlannerEnabled, target
	c.EnableThroughputScaling, c.EnableLoadScaling = false, true
	return c
}

func ids(n int) []int32 {
	var out []int32
	for i := 0; i < n; i++ {
		out = append(out, int32(i))
	}
	return out
}

// pool is a pool of n active single-rank workers whose latest samples are the given ones
// (one per worker; missing ones are all-zero).
func pool(n int, latest ...engine.FPM) PoolObs {
	po := PoolObs{Active: ids(n)}
	for i := 0; i < n; i++ {
		var f engine.FPM
		if i < len(latest) {
			f = latest[i]
		}
		po.Latest = append(po.Latest, FPMObs{WorkerID: int32(i), FPM: f})
	}
	return po
}

func reasonOf(d Decision, key string) any { return d.Tick["diagnostics"].(map[string]any)[key] }

func target(d Decision, i int) int {
	if d.Targets[i] == nil {
		return -1
	}
	return *d.Targets[i]
}

func TestLoadThresholdTargets(t *testing.T) {
	// Decode pool, max_kv 100000. Metric (sched + queued) / max_kv.
	busy := engine.FPM{SumDecodeKVTokens: 60000, QueuedDecodeKV: 50000} // 1.1
	cases := []struct {
		target string
		pool   PoolObs
		reason string
		want   int // target, −1 = unchanged
	}{
		{"throughput", pool(2, busy), ReasonScaleUp, 3},
		{"throughput", pool(3), ReasonScaleDown, 2},
		{"throughput", pool(1), ReasonNoChange, -1},
		{"throughput", pool(2, engine.FPM{SumDecodeKVTokens: 70000}), ReasonNoChange, -1}, // 0.7: neither
		{"latency", pool(2, engine.FPM{SumDecodeKVTokens: 41000}), ReasonScaleUp, 3},      // 0.41 > 0.4
		{"latency", pool(2, engine.FPM{SumDecodeKVTokens: 9000}), ReasonScaleDown, 1},     // all < 0.1
		{"load", pool(2, engine.FPM{SumDecodeKVTokens: 91000}), ReasonScaleUp, 3},         // > 0.9
		{"load", pool(2, engine.FPM{SumDecodeKVTokens: 69000}), ReasonScaleDown, 1},       // < 0.7
	}
	for _, c := range cases {
		p := New(Settings{Config: loadOnly(c.target), Disaggregated: true,
			Roles: []Role{role(ComponentPrefill, nil), role(ComponentDecode, nil)}})
		d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{pool(1), c.pool}})
		if got := reasonOf(d, "load_reason_decode"); got != c.reason {
			t.Errorf("%s %+v: decode reason %v, want %s", c.target, c.pool.Latest, got, c.reason)
		}
		if got := target(d, 1); got != c.want {
			t.Errorf("%s %+v: decode target %d, want %d", c.target, c.pool.Latest, got, c.want)
		}
	}
}

func TestLoadThresholdPrefillAndAgg(t *testing.T) {
	// Prefill metric queued_prefill / context_length (32768).
	cases := []struct {
		target string
		q      int64
		reason string
	}{
		{"throughput", 32768, ReasonScaleUp}, // ≥ 1.0
		{"throughput", 3000, ReasonScaleDown},
		{"latency", 3277, ReasonScaleUp}, // ≥ 0.1
		{"latency", 1, ReasonNoChange},   // neither ≥ 0.1 nor ≤ 0
		{"load", 1, ReasonScaleUp},       // ≥ 1 token
		{"load", 0, ReasonScaleDown},
	}
	for _, c := range cases {
		p := New(Settings{Config: loadOnly(c.target), Disaggregated: true,
			Roles: []Role{role(ComponentPrefill, nil), role(ComponentDecode, nil)}})
		d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{
			pool(2, engine.FPM{QueuedPrefillTokens: c.q}, engine.FPM{QueuedPrefillTokens: c.q}), pool(1)}})
		if got := reasonOf(d, "load_reason_prefill"); got != c.reason {
			t.Errorf("%s q=%d: prefill reason %v, want %s", c.target, c.q, got, c.reason)
		}
	}
	// Agg metric adds queued prefill: 50000 + 30000 + 30000 = 1.1 of max_kv > 1.0 on one
	// engine ⇒ up although the other is idle.
	p := New(Settings{Config: loadOnly("throughput"), Roles: []Role{role(ComponentAgg, nil)}})
	d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{pool(2,
		engine.FPM{}, engine.FPM{SumDecodeKVTokens: 50000, QueuedDecodeKV: 30000, QueuedPrefillTokens: 30000})}})
	if reasonOf(d, "load_reason_decode") != ReasonScaleUp || reasonOf(d, "load_reason") != ReasonScaleUp ||
		reasonOf(d, "load_reason_prefill") != nil || target(d, 0) != 3 {
		t.Errorf("agg: %v / target %d", d.Tick["diagnostics"], target(d, 0))
	}
	wc := d.Tick["input"].(map[string]any)["worker_counts"].(map[string]any)
	if wc["decode"] != 2 || wc["prefill"] != 0 {
		t.Errorf("agg worker_counts = %v", wc)
	}
}

func TestLoadInProgressAndNoData(t *testing.T) {
	p := New(Settings{Config: loadOnly("throughput"), Roles: []Role{role(ComponentAgg, nil)}})
	po := pool(2, engine.FPM{SumDecodeKVTokens: 200000})
	po.Starting = []int32{2}
	d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{po}})
	if reasonOf(d, "load_reason_decode") != ReasonInProgress || d.Targets[0] != nil {
		t.Errorf("starting worker: %v", reasonOf(d, "load_reason_decode"))
	}
	po = pool(2)
	po.Draining = []int32{1}
	if d := p.Tick(Observation{AtMs: 10000, Pools: []PoolObs{po}}); reasonOf(d, "load_reason_decode") != ReasonInProgress {
		t.Errorf("draining worker: %v", reasonOf(d, "load_reason_decode"))
	}
	if d := p.Tick(Observation{AtMs: 15000, Pools: []PoolObs{{}}}); reasonOf(d, "load_reason_decode") != ReasonNoFPMData {
		t.Errorf("no ranks: %v", reasonOf(d, "load_reason_decode"))
	}
	if d := p.Tick(Observation{AtMs: 20000, Pools: []PoolObs{pool(1)}}); d.Tick["ordinal"] != 3 {
		t.Errorf("ordinal = %v, want 3", d.Tick["ordinal"])
	}
}

// prefillSamples feeds wall = 0.01 + 1e-5·tokens at tokens 1000..5000 (one request each), so
// avg_isl = 3000 and ttft(q) = 0.04 + 1e-5·q seconds (one chunk below mbt 8192).
func prefillSamples() []FPMObs {
	var out []FPMObs
	for k := int64(1); k <= 5; k++ {
		out = append(out, FPMObs{FPM: engine.FPM{WallS: 0.01 + 1e-5*float64(1000*k), NumPrefillRequests: 1, SumPrefillTokens: 1000 * k}})
	}
	return out
}

func TestLoadSLAPrefill(t *testing.T) {
	// ttft_sla 100 ms: up iff 40 + 0.01·q > 100 ⟺ q > 6000 on every engine.
	// Down with N = 2 (cons 2, sensitivity 0.8): T_own = 40 ms, budget 48 ms,
	// needs 0.01·⌊2q⌋ < 48 ⟺ q < 2400.
	cases := []struct {
		q      []int64
		reason string
		want   int
	}{
		{[]int64{7000, 7000}, ReasonScaleUp, 3},
		{[]int64{7000, 0}, ReasonRefused, -1}, // not every engine above; 14000 fails consolidation
		{[]int64{0, 0}, ReasonScaleDown, 1},
		{[]int64{2000, 2300}, ReasonScaleDown, 1},
		{[]int64{2000, 3000}, ReasonRefused, -1},
	}
	for _, c := range cases {
		cfg := loadOnly(spec.TargetSLA)
		p := New(Settings{Config: cfg, Disaggregated: true, SLA: slaOf(100, 50),
			Roles: []Role{role(ComponentPrefill, nil), role(ComponentDecode, nil)}})
		if d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{pool(2), pool(1)}}); reasonOf(d, "load_reason_prefill") != ReasonInsufficientData {
			t.Fatalf("no samples yet: %v", reasonOf(d, "load_reason_prefill"))
		}
		pp := pool(2, engine.FPM{QueuedPrefillTokens: c.q[0]}, engine.FPM{QueuedPrefillTokens: c.q[1]})
		pp.NewSamples = prefillSamples()
		d := p.Tick(Observation{AtMs: 10000, Pools: []PoolObs{pp, pool(1)}})
		if got := reasonOf(d, "load_reason_prefill"); got != c.reason {
			t.Errorf("q=%v: reason %v, want %s", c.q, got, c.reason)
		}
		if got := target(d, 0); got != c.want {
			t.Errorf("q=%v: target %d, want %d", c.q, got, c.want)
		}
	}
}

// decodeSamples feeds wall = 0.002 + 0.001·n + 1e-7·kv.
func decodeSamples() []FPMObs {
	var out []FPMObs
	for _, x := range [][2]int64{{1, 1000}, {2, 5000}, {4, 3000}, {8, 20000}, {3, 9000}} {
		out = append(out, FPMObs{FPM: engine.FPM{WallS: 0.002 + 0.001*float64(x[0]) + 1e-7*float64(x[1]), NumDecodeRequests: int(x[0]), SumDecodeKVTokens: x[1]}})
	}
	return out
}

func TestLoadSLADecode(t *testing.T) {
	// avg_num_decode = 18/5 = 3.6, avg_decode_len = mean(1000, 2500, 750, 2500, 3000) = 1950.
	// itl(s, q) = 0.002 + 0.0046 + 1e-7·(s + q + 1950) s = 6.795 ms + 1e-4·(s + q) ms.
	// itl_sla 10 ms: up iff s + q > 32050. Down (N = 2, sens 0.8): 2(s+q) < max_kv and
	// 6.795 + 2e-4(s+q) < 8 ⟺ s + q < 6025.
	cases := []struct {
		s, q   int64
		reason string
	}{
		{30000, 3000, ReasonScaleUp},
		{3000, 3000, ReasonScaleDown},
		{3000, 4000, ReasonRefused},
	}
	for _, c := range cases {
		p := New(Settings{Config: loadOnly(spec.TargetSLA), Disaggregated: true, SLA: slaOf(100, 10),
			Roles: []Role{role(ComponentPrefill, nil), role(ComponentDecode, nil)}})
		e := engine.FPM{SumDecodeKVTokens: c.s, QueuedDecodeKV: c.q}
		dp := pool(2, e, e)
		dp.NewSamples = decodeSamples()
		d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{pool(1), dp}})
		if got := reasonOf(d, "load_reason_decode"); got != c.reason {
			t.Errorf("s=%d q=%d: reason %v, want %s (est %v)", c.s, c.q, got, c.reason, reasonOf(d, "estimated_itl_ms"))
		}
	}
}

// fixedRoles is a disaggregated pair priced by perf.Fixed{50, 10}: the bootstrap samples are
// constant, so the fits are pred_prefill ≡ 0.05 s and pred_decode ≡ 0.01 s.
func fixedSettings(maxGPUs int, load bool) Settings {
	c := spec.DefaultPlanner()
	c.Policy, c.Target, c.LoadPredictor = spec.PlannerEnabled, spec.TargetSLA, PredictorConstant
	c.MaxNumGPUs = maxGPUs
	c.EnableLoadScaling = load
	tm := perf.Fixed{Prefill: 50, Decode: 10}
	return Settings{Config: c, Disaggregated: true, SLA: slaOf(500, 50),
		Roles: []Role{role(ComponentPrefill, tm), role(ComponentDecode, tm)}}
}

func TestThroughputDisagg(t *testing.T) {
	// 16200 requests in 180 s: demand 90 rps; isl 2000, osl 100.
	// Prefill: wt = 0.05 s ⇒ engine 20 rps, ttft 50 ms ≤ 500 ⇒ P = ⌈90/20⌉ = 5.
	// Decode: ctx = 2050, kv_cap = ⌊100000/2050⌋ = 48 ≤ max_seqs; 10 ms ≤ 50 at every bs ⇒
	// bs = 48, engine = 48/(100·0.01) = 48 rps ⇒ D = ⌈90/48⌉ = 2.
	obs := Observation{AtMs: 180000, NumReq: 16200, SumISL: 16200 * 2000, SumOSL: 16200 * 100,
		Pools: []PoolObs{pool(1), pool(1)}}
	p := New(fixedSettings(8, false))
	d := p.Tick(obs)
	if got := [2]int{target(d, 0), target(d, 1)}; got != [2]int{5, 2} {
		t.Errorf("targets %v, want [5 2]", got)
	}
	dg := d.Tick["diagnostics"].(map[string]any)
	if dg["throughput_reason"] != ReasonScale || dg["throughput_reason_prefill"] != ReasonScale || dg["predicted_num_req"] != 16200.0 {
		t.Errorf("diagnostics %v", dg)
	}
	if r := dg["engine_rps_decode"].(float64); !near(r, 48) {
		t.Errorf("engine_rps_decode %v, want 48", r)
	}
	tr := d.Tick["input"].(map[string]any)["traffic"].(map[string]any)
	if tr["isl"] != 2000.0 || tr["osl"] != 100.0 || tr["num_req"] != 16200 || tr["duration_s"] != 180.0 || tr["kv_hit_rate"] != nil {
		t.Errorf("traffic %v", tr)
	}
	// max_num_gpus 6: 5 + 2 = 7 > 6 ⇒ p' = min(⌊(6−1)/1⌋, ⌊5·6/7⌋ = 4) = 4, d' = 6 − 4 = 2.
	d = New(fixedSettings(6, false)).Tick(obs)
	if got := [2]int{target(d, 0), target(d, 1)}; got != [2]int{4, 2} {
		t.Errorf("budget 6: targets %v, want [4 2]", got)
	}
	// Half the prompt cached: eff_isl 1000, still one chunk ⇒ same P; hit rate reported.
	obs.HasHit, obs.SumHitTokens, obs.SumHitL = true, 1000, 2000
	d = New(fixedSettings(8, false)).Tick(obs)
	if dg := d.Tick["diagnostics"].(map[string]any); dg["predicted_kv_hit_rate"] != 0.5 {
		t.Errorf("hit rate %v", dg["predicted_kv_hit_rate"])
	}
	// Hybrid: the counts become lower bounds; the load logic of the same tick (180000 is a
	// multiple of 5000) finds nothing to do (N = 1, idle) and lifts no_change to the bounds.
	p = New(fixedSettings(8, true))
	d = p.Tick(obs)
	dg = d.Tick["diagnostics"].(map[string]any)
	if target(d, 0) != 5 || target(d, 1) != 2 || dg["throughput_reason"] != ReasonSetLowerBound || dg["load_reason"] != ReasonNoChange ||
		dg["throughput_lower_bound_prefill"] != 5 || dg["throughput_lower_bound_decode"] != 2 {
		t.Errorf("hybrid: %v", dg)
	}
}

func TestThroughputITLViolated(t *testing.T) {
	// 16110 requests: 89.5 rps. itl_sla 5 ms < 10 ms at bs = 1 ⇒ engine = 1/(100·0.01) =
	// 1 rps ⇒ D = ⌈89.5/1⌉ = 90, kept by the unlimited budget; prefill ⌈89.5/20⌉ = 5.
	s := fixedSettings(-1, false)
	s.SLA = slaOf(500, 5)
	d := New(s).Tick(Observation{AtMs: 180000, NumReq: 16110, SumISL: 16110 * 2000, SumOSL: 16110 * 100,
		Pools: []PoolObs{pool(1), pool(1)}})
	if got := [2]int{target(d, 0), target(d, 1)}; got != [2]int{5, 90} {
		t.Errorf("targets %v, want [5 90]", got)
	}
	// ttft_sla 20 ms < 50 ms ⇒ floor = ⌈50/20⌉ = 3 but demand needs 5.
	// With 1800 requests (10 rps): ⌈10/20⌉ = 1 < floor 3 ⇒ P = 3.
	s.SLA = slaOf(20, 50)
	d = New(s).Tick(Observation{AtMs: 180000, NumReq: 1800, SumISL: 1800 * 2000, SumOSL: 1800 * 100,
		Pools: []PoolObs{pool(1), pool(1)}})
	if got := target(d, 0); got != 3 {
		t.Errorf("prefill with ttft floor: %d, want 3", got)
	}
}

func TestThroughputAgg(t *testing.T) {
	// Agg regression ≡ 0.06 s (prefill 50 + decode 10 ms). isl 2000, osl 100, ctx 2050,
	// kv_cap 48, hard = min(48, 256, 8191) = 48, 2000/(8192 − 48) ≤ 100 ⇒ max_bs 48.
	// Each bs: wt 60 ms ≤ itl 100, ttft = 60 ms ≤ 500 ⇒ bs 48, engine = 48/(100·0.06) = 8 rps.
	// 5265 requests in 180 s = 29.25 rps ⇒ A = ⌈29.25/8⌉ = 4.
	c := spec.DefaultPlanner()
	c.Policy, c.Target, c.LoadPredictor, c.MaxNumGPUs = spec.PlannerEnabled, spec.TargetSLA, PredictorConstant, -1
	tm := perf.Fixed{Prefill: 50, Decode: 10}
	obs := Observation{AtMs: 180000, NumReq: 5265, SumISL: 5265 * 2000, SumOSL: 5265 * 100, Pools: []PoolObs{pool(1)}}
	d := New(Settings{Config: c, SLA: slaOf(500, 100), Roles: []Role{role(ComponentAgg, tm)}}).Tick(obs)
	if got := target(d, 0); got != 4 {
		t.Errorf("agg target %d, want 4", got)
	}
	dg := d.Tick["diagnostics"].(map[string]any)
	if r := dg["engine_rps_decode"].(float64); !near(r, 8) || dg["engine_rps_prefill"] != nil || dg["throughput_reason_prefill"] != nil {
		t.Errorf("agg diagnostics %v", dg)
	}
	// itl 50 ms < 60 at bs = 1 ⇒ engine = 1/(100·0.06) = 1/6 rps ⇒ ⌈29.25·6⌉ = ⌈175.5⌉ = 176.
	d = New(Settings{Config: c, SLA: slaOf(500, 50), Roles: []Role{role(ComponentAgg, tm)}}).Tick(obs)
	if got := target(d, 0); got != 176 {
		t.Errorf("agg target with violated itl %d, want 176", got)
	}
}

func TestThroughputModelNotReady(t *testing.T) {
	// Throughput enabled but no timing: no bootstrap, no samples ⇒ model_not_ready on both.
	s := fixedSettings(8, false)
	s.Roles[0].Timing = nil
	d := New(s).Tick(Observation{AtMs: 180000, NumReq: 10, SumISL: 100, SumOSL: 100, Pools: []PoolObs{pool(1), pool(1)}})
	dg := d.Tick["diagnostics"].(map[string]any)
	if dg["throughput_reason_prefill"] != ReasonModelNotReady || dg["throughput_reason_decode"] != ReasonPartnerNotReady ||
		dg["throughput_reason"] != ReasonModelNotReady || d.Targets[0] != nil || d.Targets[1] != nil {
		t.Errorf("not ready: %v", dg)
	}
}

func TestLowerBoundCapsScaleDown(t *testing.T) {
	// Hybrid: throughput sets decode ≥ 2 (see TestThroughputDisagg); an idle decode pool of 2
	// wants 1 ⇒ lifted back to 2: scale_down_capped_by_throughput, no target.
	p := New(fixedSettings(8, true))
	p.s.Config.Target = "throughput" // threshold rules for the load side
	obs := Observation{AtMs: 180000, NumReq: 16200, SumISL: 16200 * 2000, SumOSL: 16200 * 100,
		Pools: []PoolObs{pool(5), pool(2)}}
	d := p.Tick(obs)
	if reasonOf(d, "load_reason_decode") != ReasonCapped || d.Targets[1] != nil {
		t.Errorf("decode: %v target %d", reasonOf(d, "load_reason_decode"), target(d, 1))
	}
	if reasonOf(d, "load_reason_prefill") != ReasonCapped || reasonOf(d, "load_reason") != ReasonCapped {
		t.Errorf("prefill: %v", reasonOf(d, "load_reason_prefill"))
	}
	// Next load tick (not a throughput tick): no traffic record, bound still applied.
	d = p.Tick(Observation{AtMs: 185000, Pools: []PoolObs{pool(5), pool(2)}})
	if d.Tick["input"].(map[string]any)["traffic"] != nil || reasonOf(d, "throughput_reason") != nil ||
		reasonOf(d, "load_reason_decode") != ReasonCapped {
		t.Errorf("load-only tick: %v", d.Tick)
	}
}

func TestBootstrapCounts(t *testing.T) {
	tm := perf.Polynomial{}
	cases := []struct {
		s    Settings
		want map[string]any
		keep []int
	}{
		{fixedSettings(8, false), map[string]any{"agg": 0, "decode": 64, "prefill": 8}, []int{8, 64}},
		{Settings{Config: fixedSettings(8, false).Config, SLA: slaOf(500, 50), Roles: []Role{role(ComponentAgg, tm)}},
			map[string]any{"agg": 512, "decode": 0, "prefill": 0}, []int{64}},
	}
	for _, c := range cases {
		p := New(c.s)
		b := p.Metadata()["bootstrap"].(map[string]any)
		if b["status"] != "installed" {
			t.Errorf("status %v", b["status"])
		}
		got := b["samples"].(map[string]any)
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("samples[%s] = %v, want %v", k, got[k], v)
			}
		}
		for i, n := range c.keep {
			if p.Samples(i) != n {
				t.Errorf("role %d retains %d samples, want %d", i, p.Samples(i), n)
			}
		}
	}
	// Load scaling only: nothing synthesized.
	p := New(Settings{Config: loadOnly("throughput"), Roles: []Role{role(ComponentAgg, tm)}})
	b := p.Metadata()["bootstrap"].(map[string]any)
	if b["status"] != "not_attempted" || b["samples"].(map[string]any)["agg"] != 0 || p.Samples(0) != 0 {
		t.Errorf("load-only bootstrap %v", b)
	}
}

func TestBootstrapGrid(t *testing.T) {
	// mbt 80 ⇒ tokens_k = 10k; max_seqs 4 ⇒ b_i = round(i/2) = 1,1,2,2,3,3,4,4 (halves up);
	// max_kv 64, context 48: C = min(48, ⌊64/b⌋).
	r := Role{Component: ComponentDecode, Timing: perf.Fixed{Prefill: 1, Decode: 2}, MaxBatchedTokens: 80,
		MaxSequences: 4, MaxKVTokens: 64, ContextLength: 48}
	var got [][2]float64
	Bootstrap(r, func(x0, x1, y float64) {
		if y != 0.002 {
			t.Fatalf("wall %v, want 0.002", y)
		}
		got = append(got, [2]float64{x0, x1})
	})
	// i = 1 (b 1, C 48): c_j = round(6j) = 6..48; i = 8 (b 4, C 16): c_j = round(2j).
	if got[0] != [2]float64{1, 6} || got[7] != [2]float64{1, 48} || got[63] != [2]float64{4, 64} || got[56] != [2]float64{4, 8} {
		t.Errorf("grid corners %v %v %v %v", got[0], got[7], got[56], got[63])
	}
	var toks []float64
	r.Component = ComponentPrefill
	Bootstrap(r, func(x0, _, y float64) { toks = append(toks, x0) })
	if len(toks) != 8 || toks[0] != 10 || toks[7] != 80 {
		t.Errorf("prefill tokens %v", toks)
	}
}

func TestIntervalMs(t *testing.T) {
	c := spec.DefaultPlanner()
	cases := []struct {
		thr, load bool
		it, il    int
		want      float64
	}{
		{true, false, 180, 5, 180000},
		{false, true, 180, 5, 5000},
		{true, true, 180, 5, 5000},
		{true, true, 180, 7, 1000},
		{true, true, 60, 40, 20000},
	}
	for _, k := range cases {
		c.EnableThroughputScaling, c.EnableLoadScaling = k.thr, k.load
		c.ThroughputAdjustmentIntervalSeconds, c.LoadAdjustmentIntervalSeconds = k.it, k.il
		if got := New(Settings{Config: c}).IntervalMs(); got != k.want {
			t.Errorf("%+v: IntervalMs = %v", k, got)
		}
	}
}

func TestMetadata(t *testing.T) {
	s := fixedSettings(8, true)
	p := New(s)
	m := p.Metadata()
	dg := m["planner_config_digest"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(dg) || New(s).Metadata()["planner_config_digest"] != dg {
		t.Fatalf("digest %q not stable 64 hex", dg)
	}
	pp := m["plugin_pipeline"].(map[string]any)
	if len(pp["predict"].([]any)) != 1 || len(pp["propose"].([]any)) != 2 || m["mode"] != "disagg" {
		t.Errorf("pipeline %v mode %v", pp, m["mode"])
	}
	if _, err := canon.Pretty(m); err != nil {
		t.Fatal(err)
	}
	b, _ := canon.Compact(p.IdentityConfig())
	want := `{"decode_min_workers":null,"enable_load_scaling":true,"enable_throughput_scaling":true,` +
		`"fpm_sample_bucket_size":16,"itl_ms":50.0,"kalman_min_points":5,"kalman_q_level":1.0,` +
		`"kalman_q_trend":0.1,"kalman_r":10.0,"load_adjustment_interval_seconds":5,` +
		`"load_min_observations":5,"load_predictor":"constant","load_predictor_log1p":false,` +
		`"load_scaling_down_sensitivity":80,"max_num_fpm_samples":64,"max_num_gpus":8,` +
		`"min_num_gpus":null,"min_workers":1,"mode":"disagg","policy":"enabled",` +
		`"prefill_min_workers":null,"prophet_window_size":50,"target":"sla",` +
		`"throughput_adjustment_interval_seconds":180,"ttft_ms":500.0}`
	if string(b) != want {
		t.Errorf("identity config\n got %s\nwant %s", b, want)
	}
	s.Config.KalmanR = 5
	if New(s).Metadata()["planner_config_digest"] == dg {
		t.Error("digest ignores kalman_r")
	}
}

func TestTickRecordEncodes(t *testing.T) {
	p := New(fixedSettings(8, true))
	po := pool(1, engine.FPM{WallS: 0.01, NumDecodeRequests: 1, SumDecodeKVTokens: 10})
	d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{pool(1), po}})
	b, err := canon.Compact(d.Tick)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Tick["diagnostics"].(map[string]any)) != 16 {
		t.Errorf("diagnostics keys %d", len(d.Tick["diagnostics"].(map[string]any)))
	}
	// Decode observations sort before prefill ones.
	want := `"fpm_observations":[{"dp_rank":0,"pool":"decode","queued":{"sum_decode_kv_tokens":0,"sum_prefill_tokens":0},` +
		`"scheduled":{"num_decode_requests":1,"num_prefill_requests":0,"sum_decode_kv_tokens":10,"sum_prefill_tokens":0},` +
		`"wall_time_s":0.01,"worker_id":0},{"dp_rank":0,"pool":"prefill"`
	if !regexp.MustCompile(regexp.QuoteMeta(want)).Match(b) {
		t.Errorf("tick %s", b)
	}
}

func TestThroughputDecodeBinarySearch(t *testing.T) {
	// Decode fitted from samples (no bootstrap: nil timing): wall = 0.002 + 0.001·n + 1e-7·kv.
	// isl 1000, osl 200 ⇒ ctx 1100, kv_cap ⌊100000/1100⌋ = 90, max_batch 90.
	// pred(bs, 1100·bs) = 0.002 + 0.00111·bs ≤ 0.05 ⟺ bs ≤ 43.2 ⇒ bs 43,
	// engine = 43/(200·0.04973) = 4.3233 rps; 1800 requests / 180 s = 10 rps ⇒ D = ⌈2.31⌉ = 3.
	// Prefill ≡ 0.05 s (Fixed bootstrap) ⇒ ⌈10/20⌉ = 1 (unchanged).
	s := fixedSettings(8, false)
	s.Roles[1].Timing = nil
	dp := pool(1)
	dp.NewSamples = decodeSamples()
	d := New(s).Tick(Observation{AtMs: 180000, NumReq: 1800, SumISL: 1800 * 1000, SumOSL: 1800 * 200,
		Pools: []PoolObs{pool(1), dp}})
	if d.Targets[0] != nil || target(d, 1) != 3 {
		t.Errorf("targets %d %d, want unchanged, 3", target(d, 0), target(d, 1))
	}
	dg := d.Tick["diagnostics"].(map[string]any)
	if r := dg["engine_rps_decode"].(float64); !near(r, 43/(200*(0.002+0.00111*43))) {
		t.Errorf("engine_rps_decode %v", r)
	}
	if ms := dg["estimated_itl_ms"].(float64); !near(ms, 1000*(0.002+0.00111*43)) {
		t.Errorf("estimated_itl_ms %v", ms)
	}
}

// aggSamples: wall = 0.01 + 1e-5·prefill + 1e-7·kv, one prefill and one decode request each,
// so avg_isl = avg_prefill_tokens = 3000 and avg_decode_len = 400:
// agg_ttft(q, kv) = 0.04 + 1e-5·q + 1e-7·kv, agg itl(s, q) = 0.04004 + 1e-7·(s + q).
func aggSamples() []FPMObs {
	var out []FPMObs
	for i, kv := range []int64{100, 500, 200, 800, 400} {
		pt := int64(1000 * (i + 1))
		out = append(out, FPMObs{FPM: engine.FPM{WallS: 0.01 + 1e-5*float64(pt) + 1e-7*float64(kv),
			NumPrefillRequests: 1, SumPrefillTokens: pt, NumDecodeRequests: 1, SumDecodeKVTokens: kv}})
	}
	return out
}

func TestLoadSLAAgg(t *testing.T) {
	// ttft 100 ms, itl 60 ms, sensitivity 0.8 (budgets 48 ms), N = 2.
	cases := []struct {
		name   string
		e      engine.FPM
		reason string
		want   int
	}{
		// prefill side: 40 + 0.01·7000 = 110 > 100 on both ⇒ up.
		{"prefill up", engine.FPM{QueuedPrefillTokens: 7000}, ReasonScaleUp, 3},
		// idle: prefill 0 < 48, decode post 0, 40.04 < 48 ⇒ both down.
		{"idle", engine.FPM{}, ReasonScaleDown, 1},
		// s = 30000: post 60000, 40.04 + 6 = 46.04 < 48; prefill 40 + 6 − 40 < 48 ⇒ down.
		{"consolidates", engine.FPM{SumDecodeKVTokens: 30000}, ReasonScaleDown, 1},
		// s = 40000: post 80000, 48.04 ≥ 48 ⇒ decode refuses.
		{"decode refuses", engine.FPM{SumDecodeKVTokens: 40000}, ReasonRefused, -1},
		// combined 150000 + 60000 = 210000: 40.04 + 21 > 60 ⇒ decode side up; prefill 55 < 100.
		{"decode up", engine.FPM{SumDecodeKVTokens: 150000, QueuedDecodeKV: 60000}, ReasonScaleUp, 3},
	}
	for _, c := range cases {
		p := New(Settings{Config: loadOnly(spec.TargetSLA), SLA: slaOf(100, 60), Roles: []Role{role(ComponentAgg, nil)}})
		po := pool(2, c.e, c.e)
		po.NewSamples = aggSamples()
		d := p.Tick(Observation{AtMs: 5000, Pools: []PoolObs{po}})
		if got := reasonOf(d, "load_reason_decode"); got != c.reason {
			t.Errorf("%s: reason %v, want %s (ttft %v itl %v)", c.name, got, c.reason,
				reasonOf(d, "estimated_ttft_ms"), reasonOf(d, "estimated_itl_ms"))
		}
		if got := target(d, 0); got != c.want {
			t.Errorf("%s: target %d, want %d", c.name, got, c.want)
		}
	}
}

func TestPolynomialSmoke(t *testing.T) {
	// The Mocker polynomial curves, both modes, hybrid scaling over a few ticks: every tick
	// record encodes (no non-finite value) and targets stay within the budget.
	for _, disagg := range []bool{false, true} {
		c := spec.DefaultPlanner()
		c.Policy, c.Target, c.EnableLoadScaling, c.MaxNumGPUs = spec.PlannerEnabled, spec.TargetSLA, true, 16
		c.ThroughputAdjustmentIntervalSeconds, c.LoadAdjustmentIntervalSeconds = 10, 5
		r := role(ComponentAgg, perf.Polynomial{})
		r.MaxKVTokens = 500000
		s := Settings{Config: c, SLA: slaOf(300, 30), Roles: []Role{r}}
		if disagg {
			pr, dr := r, r
			pr.Component, dr.Component = ComponentPrefill, ComponentDecode
			s.Disaggregated, s.Roles = true, []Role{pr, dr}
		}
		p := New(s)
		for k := 1; k <= 6; k++ {
			obs := Observation{AtMs: float64(5000 * k), NumReq: 400 * k, SumISL: int64(400*k) * 3000, SumOSL: int64(400*k) * 300,
				HasHit: true, SumHitTokens: 1000, SumHitL: 4000}
			for range s.Roles {
				po := pool(2, engine.FPM{WallS: 0.05, NumDecodeRequests: 40, SumDecodeKVTokens: 90000, QueuedPrefillTokens: 20000})
				po.NewSamples = []FPMObs{{FPM: engine.FPM{WallS: 0.04, NumPrefillRequests: 2, SumPrefillTokens: 5000, NumDecodeRequests: 30, SumDecodeKVTokens: 60000}}}
				obs.Pools = append(obs.Pools, po)
			}
			d := p.Tick(obs)
			if _, err := canon.Compact(d.Tick); err != nil {
				t.Fatalf("disagg=%v tick %d: %v", disagg, k, err)
			}
			total := 0
			for i, tg := range d.Targets {
				n := 2
				if tg != nil {
					n = *tg
				}
				total += n * s.Roles[i].GPUsPerWorker
			}
			if total > 16 {
				t.Errorf("disagg=%v tick %d: %d GPUs over budget", disagg, k, total)
			}
		}
	}
}
