package traffic

import (
	"math"
	"slices"
	"testing"

	"aisimulate/simcore/spec"
)

func ptr[T any](v T) *T { return &v }

// Poisson arrivals at 8 req/s from traffic.arrivals seed 42 (docs/semantics/simulation.md §2.5).
func TestPoissonArrivalVector(t *testing.T) {
	tr := spec.Traffic{
		Source: spec.Source{Type: spec.SourceSynthetic, InputTokens: 32, OutputTokens: 4},
		Load:   spec.Load{Type: spec.LoadPoisson, RequestsPerSecond: ptr(8.0), Seed: 42},
		Stop:   spec.Stop{Requests: ptr(5)},
	}
	w := Synthetic(tr, 64)
	want := []float64{0.0, 11.789128483800999, 210.2357935141821, 230.89091088947936, 600.6848103506238}
	for i, x := range want {
		s, ok := w.Next()
		if !ok {
			t.Fatalf("session %d missing", i)
		}
		if math.Abs(s.ArrivalMs-x) > 1e-12*math.Max(1, x) {
			t.Errorf("arrival %d = %.17g, want %.17g", i, s.ArrivalMs, x)
		}
	}
	if _, ok := w.Next(); ok {
		t.Error("more than 5 sessions")
	}
}

func TestConstantRateAndStopPerLoadUnit(t *testing.T) {
	tr := spec.Traffic{
		Source: spec.Source{Type: spec.SourceSynthetic, InputTokens: 100, OutputTokens: 4},
		Load:   spec.Load{Type: spec.LoadConstantRate, RequestsPerSecond: ptr(4.0)},
		Stop:   spec.Stop{RequestsPerLoadUnit: ptr(2.5)},
	}
	w := Synthetic(tr, 64)
	if w.Sessions != 10 {
		t.Fatalf("sessions = %d, want 10", w.Sessions)
	}
	for i := 0; i < 10; i++ {
		s, _ := w.Next()
		if s.ArrivalMs != float64(i)*250 {
			t.Errorf("arrival %d = %g", i, s.ArrivalMs)
		}
		// Two blocks of distinct tokens, 64 + 36 tokens (the ids run on across requests).
		want := []run{{uint32(2*i + 1), 64}, {uint32(2*i + 2), 36}}
		if len(s.Turns) != 1 || s.Turns[0].InputLength != 100 || !slices.Equal(runsOf(s.Turns[0].Prompt), want) {
			t.Fatalf("turn shape %+v, runs %v, want %v", s.Turns, runsOf(s.Turns[0].Prompt), want)
		}
	}
	// round half to even: 0.5 × 5 = 2.5 → 2
	tr.Load.RequestsPerSecond = ptr(5.0)
	tr.Stop.RequestsPerLoadUnit = ptr(0.5)
	if n := tr.StopCount(); n != 2 {
		t.Errorf("StopCount = %d, want 2", n)
	}
}

func TestSessionPrefixGroups(t *testing.T) {
	tr := spec.Traffic{
		Source: spec.Source{Type: spec.SourceSyntheticSession, NewInputTokensPerTurn: 256, OutputTokensPerTurn: 8,
			Session: spec.Session{Turns: 3, SharedPrefixRatio: 0.5, PrefixGroups: 2, InterTurnDelayMs: 7}},
		Load: spec.Load{Type: spec.LoadConcurrency, Concurrency: 2},
		Stop: spec.Stop{Sessions: ptr(20)},
	}
	w := Synthetic(tr, 64)
	seen := map[uint32]int{}
	for {
		s, ok := w.Next()
		if !ok {
			break
		}
		if len(s.Turns) != 3 || s.Turns[1].DelayMs != 7 || s.Turns[0].DelayMs != 0 {
			t.Fatalf("turns %+v", s.Turns)
		}
		for k, tu := range s.Turns {
			if tu.Prompt[0].Token != s.Turns[0].Prompt[0].Token || tu.Prompt[1].Token != s.Turns[0].Prompt[1].Token {
				t.Fatalf("turn %d does not share the session's prefix blocks", k)
			}
			if k > 0 && tu.Prompt[2].Token == s.Turns[0].Prompt[2].Token {
				t.Fatalf("turn %d reuses a unique block id", k)
			}
			seen[tu.Prompt[0].Token]++
		}
	}
	if len(seen) != 2 {
		t.Fatalf("first-block tokens over 20 sessions: %v, want exactly 2 groups", seen)
	}
}

// run is one run of a repeated token.
type run struct {
	token uint32
	count int
}

// runsOf expands a prompt into its token runs.
func runsOf(prompt []Segment) []run {
	var out []run
	for _, sg := range prompt {
		sg.Runs(func(token uint32, count int) { out = append(out, run{token, count}) })
	}
	return out
}

// Stride segments expand to the per-block runs they stand for, and MarkShared sees through
// them: two prompts that share their first stride block share exactly that block.
func TestStrideSegments(t *testing.T) {
	sg := Segment{Token: 10, Stride: 4, Count: 10}
	if got, want := runsOf([]Segment{sg}), []run{{10, 4}, {11, 4}, {12, 2}}; !slices.Equal(got, want) {
		t.Fatalf("runs %v, want %v", got, want)
	}
	a := Turn{InputLength: 10, Prompt: []Segment{sg}}
	b := Turn{InputLength: 6, Prompt: []Segment{{Token: 10, Count: 4}, {Token: 99, Count: 2}}}
	i := 0
	sessions := []Session{{Turns: []Turn{a}}, {Turns: []Turn{b}}}
	w := MarkShared(&Workload{Next: func() (Session, bool) {
		if i == len(sessions) {
			return Session{}, false
		}
		i++
		return sessions[i-1], true
	}})
	for k, want := range []int{4, 4} {
		s, _ := w.Next()
		if got := s.Turns[0].SharedTokens; got != want || !s.Turns[0].SharedKnown {
			t.Errorf("session %d: shared tokens %d, want %d", k, got, want)
		}
	}
}
