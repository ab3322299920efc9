// Package recommend is the search of `aisimulate recommend` (docs/recommend.md): the search
// space built from a validated recommendation (spec.Recommendation) and the model and
// hardware facts, the seeded optimisers that propose candidates in rounds and observe their
// results in proposal order, scoring and ranking, and the encoding of the result files. It
// evaluates nothing itself: a target hands each proposed configuration to simcore.Predict
// (in-process, in another module instance, in a Web Worker or on a remote edge worker) and
// gives the summaries back, so the result never depends on who evaluated what, or when.
package recommend

import (
	"fmt"
	"math"

	"aisimulate/simcore/canon"
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// Param is one dimension of the search space: a categorical parameter whose values each
// write one tree value per path (a joint prefill+decode parallelism writes two), or a
// continuous numeric range written to one path.
type Param struct {
	// Name is the dotted path, or "<path>+<path>" for a joint parameter.
	Name  string
	Paths []string
	// Values are the categorical values, each aligned with Paths.
	Values [][]any
	// Continuous ranges: Min, Max, log scale, integer materialisation.
	Continuous bool
	Min, Max   float64
	Log, Int   bool
	// ordinal is true for categorical values that are single numbers in ascending order
	// (stepped ranges, numeric choices): the optimiser treats neighbours as similar.
	ordinal bool
	// Branch marks a preset (a parallelism ladder or list, a planner sub-item): every value
	// gets at least one trial when the budget allows.
	Branch bool
	// Labels name the values of a planner sub-item (conditions refer to them) and Shows
	// are how recommendation.json's candidate config shows them; nil for other parameters.
	Labels []string
	Shows  []any
	// when is the index of the categorical parameter this one depends on (-1: always
	// active) and whenOK says which of its values activate this one.
	when   int
	whenOK []bool
	// fitsOn is, per value, which values of the engine.backend parameter (index onBackend)
	// it can run with: a default-ladder shape whose weights leave no KV cache room on a
	// backend is never proposed with it (nil: every value runs with every backend).
	fitsOn    [][]bool
	onBackend int
}

// Space is the search space of one recommendation.
type Space struct {
	Rec    *spec.Recommendation
	Params []Param
}

// Point is one position in the space: per parameter the index of a categorical value or the
// continuous value; NaN where the parameter is inactive.
type Point []float64

// Facts are the model and hardware lookups the default parallelism ladder needs.
type Facts struct {
	// Model resolves engine.model (a catalog id or a local model directory).
	Model func(id string) (*catalog.Model, error)
}

// NewSpace builds the search space: the recommendation's domains in order, with the
// parallelism of each mode's roles inserted after engine.backend (a joint prefill+decode
// parameter when both disaggregated roles are presets, so the pair fits the GPU budget).
func NewSpace(rec *spec.Recommendation, facts Facts) (*Space, error) {
	s := &Space{Rec: rec}
	lad, err := newLadderer(rec, facts)
	if err != nil {
		return nil, err
	}
	for _, dm := range rec.Domains {
		p := Param{Name: dm.Path, Paths: []string{dm.Path}, when: -1}
		if dm.Kind == spec.DomainChoices {
			for _, c := range dm.Choices {
				p.Values = append(p.Values, []any{c})
			}
			p.ordinal = ascendingNumbers(dm.Choices)
		} else {
			p.Continuous, p.Min, p.Max, p.Log, p.Int = true, dm.Min, dm.Max, dm.Scale == spec.ScaleLog, dm.Int
		}
		if !s.resolveWhen(&p, dm.When) {
			continue
		}
		s.Params = append(s.Params, p)
	}
	s.addPlannerParams()
	par, err := lad.parallelismParams()
	if err != nil {
		return nil, err
	}
	// Insert the parallelism parameters right after mode and backend.
	at := 0
	for i, p := range s.Params {
		if p.Name == "engine.mode" || p.Name == "engine.backend" {
			at = i + 1
		}
	}
	for i := range par {
		mode := spec.ModeAggregated
		if par[i].Paths[0] != "engine.workers.aggregated.parallelism" {
			mode = spec.ModeDisaggregated
		}
		if !s.resolveWhenAt(&par[i], &spec.Condition{Path: "engine.mode", Values: []string{mode}}, at) {
			par[i].Values = nil
		}
	}
	rest := append([]Param(nil), s.Params[at:]...)
	s.Params = s.Params[:at]
	for _, p := range par {
		if p.Values != nil {
			s.Params = append(s.Params, p)
		}
	}
	shift := len(s.Params) - at
	for _, p := range rest {
		if p.when >= at {
			p.when += shift
		}
		s.Params = append(s.Params, p)
	}
	s.tieToBackend()
	return s, nil
}

// tieToBackend points the parallelism parameters' per-backend fits at the engine.backend
// parameter, or drops them when the backend is concrete (the ladder then holds only shapes
// that fit it) or every value fits every backend.
func (s *Space) tieToBackend() {
	b := -1
	for i, p := range s.Params {
		if p.Name == "engine.backend" && !p.Continuous {
			b = i
		}
	}
	for i := range s.Params {
		p := &s.Params[i]
		p.onBackend = b
		all := true
		for _, row := range p.fitsOn {
			for _, ok := range row {
				all = all && ok
			}
		}
		if b < 0 || all {
			p.fitsOn = nil
		}
	}
}

// runnable are the values of parameter i that can run with the point's backend (nil: all).
func (s *Space) runnable(i int, pt Point) []bool {
	p := &s.Params[i]
	if p.fitsOn == nil || math.IsNaN(pt[p.onBackend]) {
		return nil
	}
	b := int(pt[p.onBackend])
	ok := make([]bool, len(p.Values))
	any := false
	for v := range ok {
		ok[v] = p.fitsOn[v][b]
		any = any || ok[v]
	}
	if !any {
		return nil // no shape fits this backend: the candidates report it
	}
	return ok
}

// resolveWhen ties a condition to the parameter deciding it, or evaluates it on the concrete
// tree; false means the parameter can never be active.
func (s *Space) resolveWhen(p *Param, c *spec.Condition) bool {
	return s.resolveWhenAt(p, c, len(s.Params))
}

func (s *Space) resolveWhenAt(p *Param, c *spec.Condition, before int) bool {
	p.when = -1
	if c == nil {
		return true
	}
	for i := 0; i < before; i++ {
		q := s.Params[i]
		if q.Name == c.Path && !q.Continuous {
			p.when = i
			p.whenOK = make([]bool, len(q.Values))
			any := false
			for j, v := range q.Values {
				str, _ := v[0].(string)
				if q.Labels != nil {
					str = q.Labels[j]
				}
				for _, w := range c.Values {
					if str == w {
						p.whenOK[j] = true
						any = true
					}
				}
			}
			return any
		}
	}
	return spec.When(c, s.Rec.Tree)
}

// active reports whether parameter i is active at a (partially built) point.
func (s *Space) active(i int, pt Point) bool {
	p := &s.Params[i]
	if p.when < 0 {
		return true
	}
	v := pt[p.when]
	return !math.IsNaN(v) && p.whenOK[int(v)]
}

// Assignments lists the paths and tree values a point writes.
func (s *Space) Assignments(pt Point) (paths []string, values []any) {
	for i, p := range s.Params {
		if !math.IsNaN(pt[i]) {
			ps, vs := p.assignment(pt[i])
			paths, values = append(paths, ps...), append(values, vs...)
		}
	}
	return paths, values
}

// assignment is what the parameter writes at position x: its paths and their tree values.
func (p Param) assignment(x float64) ([]string, []any) {
	if p.Continuous {
		return p.Paths[:1], []any{spec.NumberValue(materialise(p, x), p.Int)}
	}
	return p.Paths, p.Values[int(x)]
}

// materialise rounds a continuous value as the field stores it.
func materialise(p Param, x float64) float64 {
	if p.Int {
		return math.Round(x)
	}
	return x
}

// Concrete is the predict configuration tree of a point and its canonical JSON (the
// de-duplication key and the ranking tie-break).
func (s *Space) Concrete(pt Point) (map[string]any, string, error) {
	paths, values := s.Assignments(pt)
	tree := s.Rec.Candidate(paths, values)
	key, err := canon.Compact(spec.PlainTree(tree))
	if err != nil {
		return nil, "", fmt.Errorf("internal error: candidate configuration: %v", err)
	}
	return tree, string(key), nil
}

// ConfigOf is the search-space point as a mapping from parameter path to value (active
// parameters only), as recommendation.json's candidate `config` shows it.
func (s *Space) ConfigOf(pt Point) map[string]any {
	out := map[string]any{}
	for i, p := range s.Params {
		switch {
		case math.IsNaN(pt[i]):
		case p.Shows != nil:
			out[p.Name] = spec.PlainTree(p.Shows[int(pt[i])])
		default:
			paths, values := p.assignment(pt[i])
			for j, path := range paths {
				out[path] = spec.PlainTree(values[j])
			}
		}
	}
	return out
}

// ascendingNumbers reports whether values are numbers in strictly ascending order.
func ascendingNumbers(values []any) bool {
	prev := math.Inf(-1)
	for _, v := range values {
		x := spec.DomainValueFloat(v)
		if math.IsNaN(x) || x <= prev {
			return false
		}
		prev = x
	}
	return len(values) > 1
}
