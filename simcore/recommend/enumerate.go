package recommend

import (
	"fmt"
	"math"
)

// Enumerate lists every point of a space without continuous parameters, inactive
// parameters left NaN, in lexicographic order of the parameter values (the exhaustive
// search of the benchmark). It refuses continuous ranges and spaces above limit points.
func (s *Space) Enumerate(limit int) ([]Point, error) {
	for _, p := range s.Params {
		if p.Continuous {
			return nil, fmt.Errorf("%s is a continuous range; an exhaustive search needs stepped ranges or choices", p.Name)
		}
	}
	var out []Point
	pt := make(Point, len(s.Params))
	var walk func(i int) error
	walk = func(i int) error {
		if i == len(s.Params) {
			if len(out) >= limit {
				return fmt.Errorf("the space has more than %d points", limit)
			}
			out = append(out, append(Point(nil), pt...))
			return nil
		}
		pt[i] = math.NaN()
		if !s.active(i, pt) {
			return walk(i + 1)
		}
		for v := range s.Params[i].Values {
			pt[i] = float64(v)
			if err := walk(i + 1); err != nil {
				return err
			}
		}
		return nil
	}
	return out, walk(0)
}

// Size is the number of points of the space (what Enumerate would list), +Inf when a
// parameter is a continuous range. Every parameter depends on at most one earlier
// categorical parameter, so the count is a product over the independent parameters of
// Σ over their values of the product of the counts of the parameters that value activates.
func (s *Space) Size() float64 {
	children := make([][]int, len(s.Params))
	var roots []int
	for i, p := range s.Params {
		if p.Continuous {
			return math.Inf(1)
		}
		if p.when < 0 {
			roots = append(roots, i)
		} else {
			children[p.when] = append(children[p.when], i)
		}
	}
	var count func(i int) float64
	count = func(i int) float64 {
		total := 0.0
		for v := range s.Params[i].Values {
			n := 1.0
			for _, c := range children[i] {
				if s.Params[c].whenOK[v] {
					n *= count(c)
				}
			}
			total += n
		}
		return total
	}
	size := 1.0
	for _, r := range roots {
		size *= count(r)
	}
	return size
}
