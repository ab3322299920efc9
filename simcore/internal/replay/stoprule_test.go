package replay

import (
	"testing"

	"aisimulate/simcore/internal/engine"
)

// done is a completed request of a given TTFT, with 11 tokens over 10·tpot after it.
func done(ttft, tpot float64) *engine.Request {
	r := &engine.Request{}
	r.Arrival, r.FirstToken, r.LastToken, r.Tokens = 0, ttft, ttft+10*tpot, 11
	return r
}

// The rule stops at the first window whose means agree with the last one's within the
// tolerance, never before MinWindows windows, and estimates the whole replay's means from
// the windows after the warm-up: warm-up TTFT 100, then 10 → (2·100 + 18·10) / 20 = 19.
func TestStopRuleStopsOnceSettled(t *testing.T) {
	s := &StopRule{Window: 2, MinWindows: 3, Tolerance: 0.01, Total: 20}
	var stoppedAt int
	for i, ttft := range []float64{100, 100, 10, 10, 10, 10, 10, 10} {
		if s.observe(done(ttft, 5)) {
			stoppedAt = i + 1
			break
		}
	}
	if stoppedAt != 6 || !s.Stopped || s.Completed != 6 || s.Settled != 3 {
		t.Fatalf("stopped after %d completions (Stopped %v, Completed %d, Settled %d), want 6 (three windows)", stoppedAt, s.Stopped, s.Completed, s.Settled)
	}
	if s.observe(done(1000, 5)) || s.Completed != 6 {
		t.Error("a stopped rule still counts completions")
	}
	m := s.Means()
	if m.TTFT != 19 || m.TPOT != 5 || m.E2E != 69 {
		t.Errorf("means %+v, want TTFT 19, TPOT 5, E2E 69", m)
	}
}

// Means that keep moving by more than the tolerance never stop the replay; a fixed window
// count stops at exactly that window whatever the means.
func TestStopRuleWaitsForDriftAndHonoursAFixedCount(t *testing.T) {
	s := &StopRule{Window: 2, MinWindows: 3, Tolerance: 0.01, Total: 100}
	ttft := 10.0
	for i := 0; i < 40; i++ {
		if s.observe(done(ttft, 5)) {
			t.Fatalf("stopped after %d completions while the TTFT grows 2 %% a window", i+1)
		}
		if i%2 == 1 {
			ttft *= 1.02
		}
	}
	if m := s.Means(); m.TPOT != 5 {
		t.Errorf("a replay that did not stop: TPOT %v, want the completed requests' 5", m.TPOT)
	}
	f := &StopRule{Window: 2, MinWindows: 3, Tolerance: 0.01, Total: 100, Windows: 5}
	n := 0
	for i := 0; i < 40 && !f.Stopped; i++ {
		f.observe(done(float64(10+i), 5))
		n++
	}
	if n != 10 || f.Settled != 5 {
		t.Errorf("fixed count of 5 windows: stopped after %d completions, %d windows, want 10 and 5", n, f.Settled)
	}
}

// A warm-up longer than the windows (a large closed loop: one wave, then windows capped
// below it) is counted as the first window: warm-up of 4 at TTFT 100, then windows of 2 at
// 10 stop after 4 + 2 + 2 = 8 completions, and the estimate is (4·100 + 4·10 + 12·10) / 20
// = 28 (E2E 28 + 10·5 = 78).
func TestStopRuleWarmupLongerThanWindows(t *testing.T) {
	s := &StopRule{Window: 2, Warmup: 4, MinWindows: 3, Tolerance: 0.01, Total: 20}
	n := 0
	for _, ttft := range []float64{100, 100, 100, 100, 10, 10, 10, 10, 10, 10} {
		n++
		if s.observe(done(ttft, 5)) {
			break
		}
	}
	if n != 8 || !s.Stopped || s.Completed != 8 || s.Settled != 3 {
		t.Fatalf("stopped after %d completions (Stopped %v, Completed %d, Settled %d), want 8 (warm-up of 4, two windows of 2)", n, s.Stopped, s.Completed, s.Settled)
	}
	if m := s.Means(); m.TTFT != 28 || m.TPOT != 5 || m.E2E != 78 {
		t.Errorf("means %+v, want TTFT 28, TPOT 5, E2E 78", m)
	}
	f := &StopRule{Window: 2, Warmup: 4, MinWindows: 3, Tolerance: 0.01, Total: 100, Windows: 4}
	n = 0
	for i := 0; i < 40 && !f.Stopped; i++ {
		f.observe(done(float64(10+i), 5))
		n++
	}
	if n != 10 || f.Settled != 4 {
		t.Errorf("fixed count of 4 windows after a warm-up of 4: stopped after %d completions, %d windows, want 10 and 4", n, f.Settled)
	}
}
