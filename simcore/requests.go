package simcore

import "aisimulate/simcore/spec"

// SyntheticRequests is the number of requests a synthetic configuration (already loaded with
// its --set assignments, spec.LoadConfig) will release: its stop rule resolved against the
// load exactly as the simulation resolves it (traffic.stop.requests, or
// requests_per_load_unit × the load unit, docs/semantics/simulation.md), times the turns per session for a
// synthetic-session source. path is the stop key that sets the count. ok is false for trace
// sources, whose size is the trace's. The configuration has passed validation, which bounds
// the stop count (spec.Traffic.StopCount).
func SyntheticRequests(cfg *spec.Config) (n float64, path string, ok bool) {
	t := cfg.Traffic
	if t.Source.Type == spec.SourceTrace {
		return 0, "", false
	}
	count := t.StopCount()
	st := t.Stop
	switch {
	case st.Requests != nil:
		path = "traffic.stop.requests"
	case st.RequestsPerLoadUnit != nil:
		path = "traffic.stop.requests_per_load_unit"
	case st.Sessions != nil:
		path = "traffic.stop.sessions"
	default:
		path = "traffic.stop.sessions_per_load_unit"
	}
	n = float64(count)
	if t.Source.Type == spec.SourceSyntheticSession {
		n *= float64(t.Source.Session.Turns)
	}
	return n, path, true
}
