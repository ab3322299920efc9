package replay

import "aisimulate/simcore/internal/engine"

// StopRule ends a closed-loop replay once its running means have settled, for a caller that
// needs only the means of the whole run (calibration's replays, docs/calibration.md, "The
// fit"). Completions are grouped in completion order into a warm-up window of Warmup
// requests, then windows of Window requests; once MinWindows windows (the warm-up counted)
// are complete and the last two windows' mean TTFT and mean TPOT each
// differ by at most Tolerance of the later one, the replay stops: no pass starts after
// that, and the requests still in flight stay pending. It depends only on simulated state
// (completion order and times), so the same plan stops at the same request on every
// target.
type StopRule struct {
	// Window is the completions per window after the warm-up.
	Window int
	// Warmup is the completions in the first window (a closed loop's concurrency: one wave,
	// when every client sends at once); 0 makes it Window.
	Warmup int
	// MinWindows is the fewest complete windows before the rule may stop (the first is the
	// loop's warm-up, when every client sends at once).
	MinWindows int
	// Tolerance is the relative difference of two windows' means that counts as settled.
	Tolerance float64
	// Total is the number of requests the whole replay completes (its stop.requests).
	Total int
	// Windows, when above 0, stops after exactly that many windows instead of testing the
	// means, so replays of one workload under other parameters stop at the same point and
	// their means move smoothly with the parameters.
	Windows int

	// Stopped reports whether the rule stopped the replay; Completed counts the requests it
	// saw complete before that, and Settled the complete windows.
	Stopped   bool
	Completed int
	Settled   int

	// TTFT, TPOT and E2E: sums over every completion, over this window and over the windows
	// after the first (the settled state); the last window's means.
	sum, win, steady, last   [3]float64
	tpotN, winTPOTN, windows int
	winN, steadyN, steadyTN  int
}

// RuleMeans are the means a StopRule estimates for the whole replay.
type RuleMeans struct{ TTFT, TPOT, E2E float64 }

// Means estimates the whole replay's mean TTFT, TPOT and E2E: the completed requests' sums
// plus the Total − Completed requests the replay did not run, each at the settled means (the
// mean over the windows after the first, the warm-up): (Σ done + (Total − done) · settled
// mean) / Total. Without a stop they are the completed requests' means.
func (s *StopRule) Means() RuleMeans {
	rest := 0.0
	if s.Stopped {
		rest = float64(max(s.Total-s.Completed, 0))
	}
	mean := func(k, n, sn int) float64 {
		if float64(n)+rest == 0 {
			return 0
		}
		settled := 0.0
		if sn > 0 {
			settled = s.steady[k] / float64(sn)
		}
		return (s.sum[k] + rest*settled) / (float64(n) + rest)
	}
	return RuleMeans{TTFT: mean(0, s.Completed, s.steadyN), TPOT: mean(1, s.tpotN, s.steadyTN), E2E: mean(2, s.Completed, s.steadyN)}
}

// observe counts a completed request and reports whether the replay has settled.
func (s *StopRule) observe(r *engine.Request) bool {
	if s.Stopped || r.Tokens < 1 {
		return false
	}
	ttft, e2e := max(r.FirstToken-r.Arrival, 0), max(r.LastToken-r.Arrival, 0)
	s.Completed++
	s.sum[0] += ttft
	s.sum[2] += e2e
	s.win[0] += ttft
	s.win[2] += e2e
	if r.Tokens >= 2 {
		tpot := max(r.LastToken-r.FirstToken, 0) / float64(r.Tokens-1)
		s.tpotN++
		s.winTPOTN++
		s.sum[1] += tpot
		s.win[1] += tpot
	}
	s.winN++
	size := s.Window
	if s.windows == 0 && s.Warmup > 0 {
		size = s.Warmup
	}
	if s.winN < max(size, 1) {
		return false
	}
	cur := [3]float64{s.win[0] / float64(s.winN), 0, s.win[2] / float64(s.winN)}
	if s.winTPOTN > 0 {
		cur[1] = s.win[1] / float64(s.winTPOTN)
	}
	s.windows++
	s.Settled = s.windows
	if s.windows > 1 {
		for k := range s.steady {
			s.steady[k] += s.win[k]
		}
		s.steadyN += s.winN
		s.steadyTN += s.winTPOTN
	}
	settled := s.windows >= max(s.MinWindows, 2) && within(cur[0], s.last[0], s.Tolerance) && within(cur[1], s.last[1], s.Tolerance)
	if s.Windows > 0 {
		settled = s.windows >= s.Windows
	}
	s.last, s.win, s.winN, s.winTPOTN = cur, [3]float64{}, 0, 0
	s.Stopped = settled
	return settled
}

// within reports whether a and b differ by at most tol of a.
func within(a, b, tol float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= tol*a
}
