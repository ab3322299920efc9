package outputs

import (
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/report"
)

// putTrajectories writes the 13 trajectory keys of docs/semantics/outputs.md §4.6 for an agentic graph run:
// a trajectory is a play (replay.Trajectories); it is completed when every request of the
// play completed (the summary's notion of completed, isCompleted), and its E2E latency is the
// latest terminal time of its requests minus the earliest arrival time of its requests.
// Plays some of whose requests were never released (cut off by max_virtual_time_seconds) are
// incomplete.
func putTrajectories(m map[string]any, res *replay.Result) {
	t := res.Trajectories
	plays := len(t.Requests)
	done := make([]int32, plays)
	first := make([]float64, plays)
	last := make([]float64, plays)
	seen := make([]bool, plays)
	for i := 0; i < res.Outcomes.Len() && i < len(t.PlayOf); i++ {
		p := t.PlayOf[i]
		if p < 0 {
			continue
		}
		r := res.Outcomes.At(i)
		if !seen[p] || r.Arrival < first[p] {
			first[p] = r.Arrival
		}
		if !seen[p] || r.Terminal > last[p] {
			last[p] = r.Terminal
		}
		seen[p] = true
		if isCompleted(r) {
			done[p]++
		}
	}
	e2e := NewDist(plays)
	completed := 0
	for p := range plays {
		if done[p] == t.Requests[p] {
			completed++
			e2e.Add(nonNeg(last[p] - first[p]))
		}
	}
	m[report.KeyTotalTrajectories] = plays
	m[report.KeyCompletedTrajectories] = completed
	m[report.KeyIncompleteTrajectories] = plays - completed
	st := e2e.Stats()
	st.put(m, report.TrajectoryE2ELatency)
	m[report.KeyP50TrajectoryE2ELatencyMs] = st.Median
}

// isCompleted tells whether a request counts as completed in the summary: admitted at least
// once and terminal with status completed (docs/semantics/outputs.md §3.2).
func isCompleted(r *engine.Outcome) bool {
	return r.Status == engine.Completed && (r.FirstAdmit >= 0 || r.Admissions > 0)
}
