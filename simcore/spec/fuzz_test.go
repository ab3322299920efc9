package spec

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkOutcome asserts the LoadConfig contract: exactly one of a config or a *Error, and the
// same answer for the same input.
func checkOutcome(t *testing.T, text []byte, sets []string) {
	cfg, err := LoadConfig(text, sets)
	if (cfg == nil) == (err == nil) {
		t.Fatalf("want exactly one of config/error, got %v / %v", cfg, err)
	}
	if err != nil {
		var se *Error
		if !errors.As(err, &se) {
			t.Fatalf("error %T is not *spec.Error: %v", err, err)
		}
		if se.Msg == "" {
			t.Fatalf("empty message at %q", se.Path)
		}
	} else {
		e := cfg.Engine
		if e.Mode == ModeAggregated && (e.Aggregated == nil || e.Prefill != nil || e.Decode != nil) {
			t.Fatalf("aggregated config with wrong roles")
		}
		if e.Mode == ModeDisaggregated && (e.Aggregated != nil || e.Prefill == nil || e.Decode == nil) {
			t.Fatalf("disaggregated config with wrong roles")
		}
	}
	cfg2, err2 := LoadConfig(text, sets)
	if !cmp.Equal(cfg, cfg2) || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
		t.Fatalf("non-deterministic result: %v / %v", err, err2)
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(seedYAML))
	f.Add([]byte(aggYAML))
	f.Add([]byte(disaggYAML))
	f.Add([]byte(traceYAML))
	f.Add([]byte(sessionYAML))
	f.Add([]byte(slaYAML + "planner: {policy: enabled, target: sla}\n"))
	f.Add([]byte("a: .inf\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkOutcome(t, data, nil)
	})
}

func FuzzSet(f *testing.F) {
	f.Add(seedYAML, "traffic.load={type: poisson, requests_per_second: 8}")
	f.Add(seedYAML, "traffic.load.concurrency=2.5")
	f.Add(traceYAML, "traffic.source.paths.0=x")
	f.Add(seedYAML, "engine.model.x=1")
	f.Add(aggYAML, "evaluation.sla.ttft_ms=.nan")
	f.Add(seedYAML, "novalue")
	f.Fuzz(func(t *testing.T, text, set string) {
		checkOutcome(t, []byte(text), []string{set})
	})
}
