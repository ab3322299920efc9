package spec

import (
	"strings"
	"testing"
)

// Every field of the table has a key its section's decoder accepts, a default within its own
// limits, and enumeration names only when it is an enumeration.
func TestFieldTable(t *testing.T) {
	seen := map[string]bool{}
	for _, group := range [][]*field{roleFields, fields} {
		for _, f := range group {
			if seen[f.path] {
				t.Errorf("%s: listed twice", f.path)
			}
			seen[f.path] = true
			if (f.kind == fieldEnum) != (len(f.enum) > 0) {
				t.Errorf("%s: kind %d with names %v", f.path, f.kind, f.enum)
			}
			if f.kind == fieldEnum || f.kind == fieldBool || f.optional {
				continue
			}
			for _, l := range f.lims {
				if !l.holds(f.def) {
					t.Errorf("%s: default %g fails its own limit (%s)", f.path, f.def, l)
				}
			}
		}
	}
}

// The configuration's defaults are the table's: a configuration that gives nothing but the
// model, hardware and role decodes to the table defaults.
func TestDefaultsComeFromTheTable(t *testing.T) {
	cfg := mustLoad(t, aggYAML)
	w := cfg.Engine.Aggregated
	got := map[*field]float64{
		&fieldReplicas: float64(w.Parallelism.Replicas), &fieldTensor: float64(w.Parallelism.Tensor),
		&fieldMaxBatchedTokens: float64(w.Scheduler.MaxBatchedTokens), &fieldMaxSequences: float64(w.Scheduler.MaxSequences),
		&fieldPrefillScheduleInterval: float64(w.Scheduler.PrefillScheduleInterval),
		&fieldConcurrency:             float64(cfg.Traffic.Load.Concurrency), &fieldSpeedup: cfg.Traffic.Load.Speedup,
		&fieldLoadSeed: float64(cfg.Traffic.Load.Seed), &fieldInputTokens: float64(cfg.Traffic.Source.InputTokens),
		&fieldOverlapScoreCredit: cfg.Router.OverlapScoreCredit, &fieldPrefillLoadScale: cfg.Router.PrefillLoadScale,
		&fieldThroughputAdjustmentInterval: float64(cfg.Planner.ThroughputAdjustmentIntervalSeconds),
		&fieldKalmanQTrend:                 cfg.Planner.KalmanQTrend, &fieldMinNumGPUs: float64(cfg.Planner.MinNumGPUs),
	}
	for f, v := range got {
		if v != f.def {
			t.Errorf("%s = %g, want the table default %g", f.path, v, f.def)
		}
	}
	if w.Scheduler.MaxBatchedTokens != DefaultMaxBatchedTokens {
		t.Errorf("max_batched_tokens %d", w.Scheduler.MaxBatchedTokens)
	}
	rec, err := LoadRecommendation([]byte(aggYAML+"optimization: {}\n"), []string{"engine.mode=aggregated"})
	if err != nil {
		t.Fatal(err)
	}
	if op := rec.Optimizer; op.Parallelism != int(fieldOptimizerParallelism.def) || op.MaxTrials != int(fieldOptimizerMaxTrials.def) ||
		op.Algorithm != "" || rec.Optimization.MaxGPUs != int(fieldMaxCandidateGPUs.def) {
		// An absent algorithm stays "": simcore picks screened or bayesian from the space.
		t.Errorf("optimizer defaults %+v, max GPUs %d", op, rec.Optimization.MaxGPUs)
	}
}

// predict and recommend refuse the same values of a searchable field with the same reason,
// because both read the field's limits from the table: a value just outside the first limit
// is refused in a predict configuration and as a recommend choice alike.
func TestSearchFieldsShareTheLimitsOfPredict(t *testing.T) {
	outside := func(l limit) string {
		switch l.op {
		case ">":
			return "0"
		case ">=":
			return "-1"
		default:
			return "2"
		}
	}
	checked := 0
	for _, f := range roleFields {
		if !f.search || len(f.lims) == 0 {
			continue
		}
		bad := outside(f.lims[0])
		path := "engine.workers.aggregated." + f.path
		_, perr := LoadConfig([]byte(aggYAML), []string{path + "=" + bad})
		_, rerr := LoadRecommendation([]byte(aggYAML+"optimization: {}\n"), []string{"engine.mode=aggregated", path + "={choices: [" + bad + "]}"})
		pe, ok1 := perr.(*Error)
		re, ok2 := rerr.(*Error)
		if !ok1 || !ok2 || pe.Path != path || re.Path != path+".choices.0" || pe.Msg != re.Msg || !strings.Contains(pe.Msg, f.lims[0].String()) {
			t.Errorf("%s = %s: predict %v, recommend %v", f.path, bad, perr, rerr)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d worker fields checked", checked)
	}
}
