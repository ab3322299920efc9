package recommend

import (
	"fmt"
	"slices"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// ladderGPUs are the GPUs per worker the default ladder tries (docs/recommend.md, "Domains": the default ladder).
var ladderGPUs = []int{1, 2, 4, 8, 16}

// ladderer builds the parallelism parameters of a recommendation.
type ladderer struct {
	rec      *spec.Recommendation
	model    *catalog.Model
	backends []string
	minGPUs  int
	maxGPUs  int
}

func newLadderer(rec *spec.Recommendation, facts Facts) (*ladderer, error) {
	l := &ladderer{rec: rec, minGPUs: rec.Optimization.MinGPUs, maxGPUs: rec.Optimization.MaxGPUs}
	needLadder := false
	for _, ps := range rec.Parallelism {
		needLadder = needLadder || ps.Ladder
	}
	if !needLadder {
		return l, nil
	}
	id, _ := spec.GetPath(rec.Tree, "engine.model")
	sid, _ := id.(string)
	if facts.Model == nil {
		return nil, fmt.Errorf("internal error: no model lookup for the parallelism ladder")
	}
	m, err := facts.Model(sid)
	if err != nil {
		return nil, err
	}
	l.model = m
	for _, dm := range rec.Domains {
		if dm.Path == "engine.backend" {
			for _, c := range dm.Choices {
				l.backends = append(l.backends, c.(string))
			}
		}
	}
	if len(l.backends) == 0 {
		b, _ := spec.GetPath(rec.Tree, "engine.backend")
		sb, _ := b.(string)
		l.backends = []string{sb}
	}
	return l, nil
}

// hardwareOf is the system a role runs on (its override, else engine.hardware).
func (l *ladderer) hardwareOf(role string) (*catalog.Hardware, error) {
	id, ok := spec.GetPath(l.rec.Tree, "engine.workers."+role+".hardware")
	if !ok {
		id, _ = spec.GetPath(l.rec.Tree, "engine.hardware")
	}
	sid, _ := id.(string)
	return catalog.LookupHardware(sid)
}

// shapes lists the worker shapes (replicas 1) of the default ladder for one role: 1, 2, 4,
// 8 and 16 GPUs per worker, pipeline 1; tensor must split the attention heads and the KV
// heads as the memory model requires (perf); MoE models also try attention data
// parallelism (aggregated only: the dynamo runner rejects it disaggregated) and both FFN
// splits with moe_tensor × moe_expert = tensor × attention_data; a shape is kept when the
// weights leave room for KV cache on at least one candidate backend (the memory model,
// perf.Deployment.KVCapacityBlocks, with the backend's default memory fraction); fits says on
// which (aligned with l.backends).
func (l *ladderer) shapes(role string) (shapes []spec.Parallelism, fits [][]bool, err error) {
	hw, err := l.hardwareOf(role)
	if err != nil {
		return nil, nil, err
	}
	m := l.model
	for _, g := range ladderGPUs {
		if g > l.maxGPUs {
			break
		}
		var cands []spec.Parallelism
		attn := [][2]int{{g, 1}} // (tensor, attention_data)
		if m.Experts > 0 && g > 1 && role == spec.RoleAggregated {
			attn = append(attn, [2]int{1, g})
		}
		for _, a := range attn {
			ffn := [][2]int{{1, 1}} // (moe_tensor, moe_expert)
			if m.Experts > 0 {
				ffn = [][2]int{{g, 1}}
				if g > 1 && g <= m.Experts {
					ffn = append(ffn, [2]int{1, g})
				}
			}
			for _, f := range ffn {
				cands = append(cands, spec.Parallelism{Replicas: 1, Tensor: a[0], Pipeline: 1, AttentionData: a[1], MoeTensor: f[0], MoeExpert: f[1]})
			}
		}
		for _, p := range cands {
			if ok, any := l.fitsOn(m, hw, p); any {
				shapes, fits = append(shapes, p), append(fits, ok)
			}
		}
	}
	return shapes, fits, nil
}

// fitsOn reports on which candidate backends (l.backends order) shape p leaves room for KV
// cache, and whether it does on any: a 70B model at TP1 on an H200 fits TensorRT-LLM's
// fraction of free memory but not vLLM's or SGLang's fraction of the total (docs/timing.md).
func (l *ladderer) fitsOn(m *catalog.Model, hw *catalog.Hardware, p spec.Parallelism) (ok []bool, any bool) {
	ok = make([]bool, len(l.backends))
	for i, b := range l.backends {
		dep, err := perf.NewDeployment(m, hw, b, p, perf.Quant{})
		if err == nil {
			_, err = dep.KVCapacityBlocks(perf.MemorySettings{}, spec.DefaultBlockSize(b))
		}
		ok[i] = err == nil
		any = any || ok[i]
	}
	return ok, any
}

func gpusOf(p spec.Parallelism) int { return p.Replicas * p.Tensor * p.Pipeline * p.AttentionData }

// withReplicas lists shapes × replicas 1, 2, … while the role alone stays within the budget,
// each with its shape's fits (replicas do not change what fits on one GPU).
func withReplicas(shapes []spec.Parallelism, fits [][]bool, budget int) ([]spec.Parallelism, [][]bool) {
	var out []spec.Parallelism
	var outFits [][]bool
	for i, s := range shapes {
		for r := 1; r*gpusOf(s) <= budget; r++ {
			p := s
			p.Replicas = r
			out, outFits = append(out, p), append(outFits, fits[i])
		}
	}
	return out, outFits
}

// entries lists a role's preset entries: the ladder with replicas and the backends each fits,
// or the explicit list (fits nil: a list is taken as written).
func (l *ladderer) entries(ps spec.ParallelismSpace, budget int) ([]spec.Parallelism, [][]bool, error) {
	if !ps.Ladder {
		return ps.Presets, nil, nil
	}
	sh, fits, err := l.shapes(ps.Role)
	if err != nil {
		return nil, nil, err
	}
	e, f := withReplicas(sh, fits, budget)
	return e, f, nil
}

// fitsOfEntry is entry i's fits (nil when the entries have none).
func fitsOfEntry(fits [][]bool, i int) []bool {
	if fits == nil {
		return nil
	}
	return fits[i]
}

// bothFit is the backends a prefill and a decode shape both fit (nil: no restriction).
func bothFit(a, b []bool) []bool {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	out := make([]bool, len(a))
	for i := range out {
		out[i] = a[i] && b[i]
	}
	return out
}

// allBackends marks every backend as fitting (an explicit entry taken as written).
func (l *ladderer) allBackends(f []bool) []bool {
	if f != nil {
		return f
	}
	out := make([]bool, len(l.backends))
	for i := range out {
		out[i] = true
	}
	return out
}

// MaxParallelismValues bounds the values of one parallelism parameter: a disaggregated
// prefill × decode pair list grows with the square of the GPU budget (a budget of 1,000 GPUs
// makes about 1.4 million ladder pairs, several gigabytes as trees), and each value is held
// as a configuration tree of about 1.5 KB, so 100,000 values stay near 150 MB
// (docs/robustness.md, "Ceilings").
const MaxParallelismValues = 100_000

// countPairs counts the prefill × decode pairs whose GPUs together lie in [lo, hi], without
// listing them.
func countPairs(pe, de []spec.Parallelism, lo, hi int) int {
	gd := make([]int, len(de))
	for i, b := range de {
		gd[i] = gpusOf(b)
	}
	slices.Sort(gd)
	n := 0
	for _, a := range pe {
		ga := gpusOf(a)
		end, _ := slices.BinarySearch(gd, hi-ga+1)
		start, _ := slices.BinarySearch(gd, lo-ga)
		n += end - start
	}
	return n
}

// tooManyPairs is the error of a prefill × decode pair list of n pairs, over
// MaxParallelismValues: it names the largest max_candidate_gpus whose pairs fit, found by
// bisection (the count only grows with the budget).
func (l *ladderer) tooManyPairs(pre, dec spec.ParallelismSpace, n int) error {
	fits := func(budget int) bool {
		pe, _, err1 := l.entries(pre, budget-1)
		de, _, err2 := l.entries(dec, budget-1)
		return err1 == nil && err2 == nil && countPairs(pe, de, l.minGPUs, budget) <= MaxParallelismValues
	}
	lo, hi := 0, l.maxGPUs // fits(lo) holds (no pair at all), fits(hi) does not
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	what := fmt.Sprintf("the prefill and decode parallelism pairs within %d..%d GPUs number %d, more than the %d one search may hold (docs/robustness.md)",
		max(l.minGPUs, 1), l.maxGPUs, n, MaxParallelismValues)
	path, hint := "optimization.constraints.max_candidate_gpus", "give fewer prefill or decode presets"
	if !pre.Ladder && !dec.Ladder {
		path = "engine.workers.prefill.parallelism"
	}
	if lo >= max(l.minGPUs, 1) {
		hint = fmt.Sprintf("a max_candidate_gpus of at most %d fits", lo)
		if !pre.Ladder && !dec.Ladder {
			hint = "give fewer prefill or decode presets, or " + hint
		}
	}
	return &spec.Error{Path: path, Msg: what + "; " + hint}
}

// parallelismParams builds one parameter per preset role, and one joint parameter for a
// disaggregated pair whose entries fit min/max_candidate_gpus together.
func (l *ladderer) parallelismParams() ([]Param, error) {
	byRole := map[string]spec.ParallelismSpace{}
	for _, ps := range l.rec.Parallelism {
		if ps.Ladder || len(ps.Presets) > 0 {
			byRole[ps.Role] = ps
		}
	}
	var out []Param
	if ps, ok := byRole[spec.RoleAggregated]; ok {
		e, fits, err := l.entries(ps, l.maxGPUs)
		if err != nil {
			return nil, err
		}
		p := Param{Name: "engine.workers.aggregated.parallelism", Paths: []string{"engine.workers.aggregated.parallelism"}, Branch: true}
		for i, x := range e {
			if !ps.Ladder || gpusOf(x) >= l.minGPUs {
				p.Values = append(p.Values, []any{spec.ParallelismTree(x)})
				p.fitsOn = append(p.fitsOn, l.allBackends(fitsOfEntry(fits, i)))
			}
		}
		if len(p.Values) == 0 {
			return nil, &spec.Error{Path: "engine.workers.aggregated.parallelism", Msg: fmt.Sprintf("no parallelism of the default ladder fits %s on the hardware within %d..%d GPUs; raise optimization.constraints.max_candidate_gpus or give preset entries", l.model.ID, l.minGPUs, l.maxGPUs)}
		}
		out = append(out, p)
	}
	pre, hasP := byRole[spec.RolePrefill]
	dec, hasD := byRole[spec.RoleDecode]
	switch {
	case hasP && hasD:
		pe, pf, err := l.entries(pre, l.maxGPUs-1)
		if err != nil {
			return nil, err
		}
		de, df, err := l.entries(dec, l.maxGPUs-1)
		if err != nil {
			return nil, err
		}
		if n := countPairs(pe, de, l.minGPUs, l.maxGPUs); n > MaxParallelismValues {
			return nil, l.tooManyPairs(pre, dec, n)
		}
		pp, dp := "engine.workers.prefill.parallelism", "engine.workers.decode.parallelism"
		p := Param{Name: pp + "+" + dp, Paths: []string{pp, dp}, Branch: true}
		for i, a := range pe {
			for j, b := range de {
				total := gpusOf(a) + gpusOf(b)
				fits := l.allBackends(bothFit(fitsOfEntry(pf, i), fitsOfEntry(df, j)))
				if total <= l.maxGPUs && total >= l.minGPUs && (len(fits) == 0 || slices.Contains(fits, true)) {
					p.Values = append(p.Values, []any{spec.ParallelismTree(a), spec.ParallelismTree(b)})
					p.fitsOn = append(p.fitsOn, fits)
				}
			}
		}
		if len(p.Values) == 0 {
			return nil, &spec.Error{Path: "engine.workers.prefill.parallelism", Msg: fmt.Sprintf("no prefill+decode parallelism pair fits within %d..%d GPUs; raise optimization.constraints.max_candidate_gpus or change the presets", l.minGPUs, l.maxGPUs)}
		}
		out = append(out, p)
	case hasP || hasD:
		ps := pre
		if hasD {
			ps = dec
		}
		e, fits, err := l.entries(ps, l.maxGPUs)
		if err != nil {
			return nil, err
		}
		path := "engine.workers." + ps.Role + ".parallelism"
		p := Param{Name: path, Paths: []string{path}, Branch: true}
		for i, x := range e {
			p.Values = append(p.Values, []any{spec.ParallelismTree(x)})
			p.fitsOn = append(p.fitsOn, l.allBackends(fitsOfEntry(fits, i)))
		}
		if len(p.Values) == 0 {
			return nil, &spec.Error{Path: path, Msg: "no parallelism of the default ladder fits the model on the hardware; raise optimization.constraints.max_candidate_gpus"}
		}
		out = append(out, p)
	}
	return out, nil
}
