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
