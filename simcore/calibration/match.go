package calibration

import (
	"fmt"
	"strconv"

	"aisimulate/simcore/spec"
)

// Match is the profile entry applied to one role of a prediction and how well it fits
// (docs/calibration.md, "Using a profile").
type Match struct {
	// Entry is the index of the entry in its profile; Profile the profile's index among the
	// --calibration files.
	Profile, Entry int
	// Mismatched names the scope fields where the prediction's deployment differs from the
	// entry's ("" none: inside the scope).
	Mismatched []string
	// Outside names the validity-domain ranges the prediction's workload leaves, and
	// OutsideLog is how far (OutsideLog).
	Outside    []string
	OutsideLog float64
}

// InScope reports whether the deployment is the entry's.
func (m *Match) InScope() bool { return len(m.Mismatched) == 0 }

// MismatchesAny reports whether the deployment differs from the entry in any of the named
// scope fields.
func (m *Match) MismatchesAny(fields []string) bool {
	for _, f := range fields {
		for _, g := range m.Mismatched {
			if f == g {
				return true
			}
		}
	}
	return false
}

// scopeFields are the scope fields compared, in the order ties are broken: an entry that
// matches the model, the GPU and the backend is preferred to one that matches only the
// parallelism.
var scopeFields = []struct {
	name   string
	weight int
	get    func(s spec.ProfileScope, role string) string
}{
	{"model", 128, func(s spec.ProfileScope, _ string) string { return s.Model }},
	{"hardware", 64, func(s spec.ProfileScope, _ string) string { return s.Hardware }},
	{"backend", 32, func(s spec.ProfileScope, _ string) string { return s.Backend }},
	{"mode", 16, func(s spec.ProfileScope, _ string) string { return s.Mode }},
	{"lengths", 8, func(s spec.ProfileScope, _ string) string { return s.Lengths.String() }},
	{"quantization", 4, func(s spec.ProfileScope, _ string) string { return fmt.Sprint(s.Quantization) }},
	{"parallelism", 2, func(s spec.ProfileScope, role string) string { return fmt.Sprint(s.Roles[role]) }},
	{"backend_version", 1, func(s spec.ProfileScope, _ string) string { return s.BackendVersion }},
}

// Best is the entry of the profiles whose scope matches the role of the deployment best:
// the most important fields first (model, GPU, backend, mode, the workload's length draw,
// quantisation, the role's parallelism, backend version), the first such entry on a tie. A profile always applies —
// outside its scope too, with Mismatched saying where.
func Best(profiles []*spec.Profile, deployment spec.ProfileScope, role string) Match {
	best, bestScore := Match{}, -1
	for pi, p := range profiles {
		for ei, e := range p.Entries {
			score := 0
			var mismatched []string
			for _, f := range scopeFields {
				if f.get(e.Scope, role) == f.get(deployment, role) {
					score += f.weight
				} else {
					mismatched = append(mismatched, f.name)
				}
			}
			if score > bestScore {
				best, bestScore = Match{Profile: pi, Entry: ei, Mismatched: mismatched}, score
			}
		}
	}
	return best
}

// Workload is what the validity domain is checked against: a closed loop's concurrency or
// an open loop's rate, and the mean ISL and OSL.
type Workload struct {
	Concurrency, RequestRate, ISL, OSL float64
}

// OutsideDomain names the ranges of d the workload leaves, with the value and the range.
func OutsideDomain(d spec.ProfileDomain, w Workload) []string {
	var out []string
	check := func(name string, v float64, r [2]float64) {
		if v < r[0] || v > r[1] {
			out = append(out, fmt.Sprintf("%s %s outside [%s, %s]", name, num(v), num(r[0]), num(r[1])))
		}
	}
	switch {
	case w.Concurrency > 0 && d.Concurrency[1] > 0:
		check("concurrency", w.Concurrency, d.Concurrency)
	case w.RequestRate > 0 && d.RequestRate[1] > 0:
		check("request_rate", w.RequestRate, d.RequestRate)
	default:
		out = append(out, "load kind not measured")
	}
	check("isl", w.ISL, d.ISL)
	check("osl", w.OSL, d.OSL)
	return out
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
