package spec

import "testing"

// SyntheticRequests resolves the stop rule against the load and multiplies sessions by their
// turns; a trace source has no synthetic count.
func TestSyntheticRequests(t *testing.T) {
	cases := []struct {
		yaml string
		sets []string
		n    float64
		path string
		ok   bool
	}{
		{seedYAML, nil, 100, "traffic.stop.requests", true},
		// 2.5 × concurrency 8 = 20 requests.
		{seedYAML, []string{"traffic.stop={requests_per_load_unit: 2.5}"}, 20, "traffic.stop.requests_per_load_unit", true},
		// 5 sessions × 3 turns.
		{sessionYAML, nil, 15, "traffic.stop.sessions", true},
		// round_half_even(0.5 × concurrency) sessions, at least 1, × 3 turns.
		{sessionYAML, []string{"traffic.stop={sessions_per_load_unit: 0.5}", "traffic.load.concurrency=6"}, 9, "traffic.stop.sessions_per_load_unit", true},
		{traceYAML, nil, 0, "", false},
	}
	for _, c := range cases {
		n, path, ok := mustLoad(t, c.yaml, c.sets...).Traffic.SyntheticRequests()
		if n != c.n || path != c.path || ok != c.ok {
			t.Errorf("%q %v: (%g, %q, %v), want (%g, %q, %v)", c.yaml, c.sets, n, path, ok, c.n, c.path, c.ok)
		}
	}
}
