package recommend

import (
	"math"
	"reflect"
	"testing"

	"aisimulate/simcore/spec"
)

func ids(cs []*Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.ID)
	}
	return out
}

// Ranking: higher score first, then fewer GPUs, then the canonical configuration JSON;
// only feasible candidates are ranked.
func TestRankOrder(t *testing.T) {
	cands := []*Candidate{
		{ID: "a", Status: StatusFeasible, Score: 10, UsedGPUs: 4, Key: "k2"},
		{ID: "b", Status: StatusFeasible, Score: 12, UsedGPUs: 8, Key: "k9"},
		{ID: "c", Status: StatusFeasible, Score: 10, UsedGPUs: 2, Key: "k5"},
		{ID: "d", Status: StatusFeasible, Score: 10, UsedGPUs: 4, Key: "k1"},
		{ID: "e", Status: StatusInfeasible, Score: 99, UsedGPUs: 1, Key: "k0"},
		{ID: "f", Status: StatusFeasible, Score: math.Inf(-1), UsedGPUs: 1, Key: "k0"},
	}
	if got, want := ids(Rank(cands)), []string{"b", "c", "d", "a", "f"}; !reflect.DeepEqual(got, want) {
		t.Errorf("rank %v, want %v", got, want)
	}
}

// The Pareto front keeps the non-dominated candidates, sorted by the last objective
// ascending.
func TestParetoFront(t *testing.T) {
	mk := func(id string, obj ...float64) *Candidate {
		return &Candidate{ID: id, Status: StatusFeasible, Score: obj[0], Objectives: obj, Key: id, UsedGPUs: 1}
	}
	cands := []*Candidate{
		mk("a", 100, 10), // front
		mk("b", 80, 30),  // front
		mk("c", 90, 5),   // dominated by a
		mk("d", 50, 40),  // front
		mk("e", 80, 30),  // equal to b: neither dominates, both stay
		mk("f", 40, 40),  // dominated by d
	}
	cands[4].UsedGPUs = 2
	if got, want := ids(ParetoFront(cands)), []string{"a", "b", "e", "d"}; !reflect.DeepEqual(got, want) {
		t.Errorf("front %v, want %v", got, want)
	}
}

func TestObjectives(t *testing.T) {
	s := map[string]any{
		"output_throughput_tok_s": 1000.0, "gpu_hours": 4.0 / 3600 * 2, "duration_ms": 2000.0,
		"mean_output_token_throughput_per_user": 50.0, "goodput_output_throughput_tok_s": 600.0,
		"mean_ttft_ms": 30.0, "num_ttft_samples": 10, "mean_e2e_latency_ms": 300.0,
		"mean_tpot_ms": 8.0, "goodput_request_throughput_rps": 2.0,
	}
	// avg_gpus = gpu_hours / (duration_ms / 3.6e6) = (8/3600) / (2000/3.6e6) = 4.
	for name, want := range map[string]float64{
		spec.TargetThroughput: 1000, spec.TargetThroughputPerGPU: 250, spec.TargetThroughputPerUser: 50,
		spec.TargetGoodput: 600, spec.TargetGoodputPerGPU: 150, spec.TargetTTFT: 30, spec.TargetE2ELatency: 300,
		spec.TargetMinGPUs: 3,
	} {
		if got := ObjectiveValue(name, s, 3); math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := ObjectiveValue(spec.TargetTTFT, map[string]any{"num_ttft_samples": 0}, 1); !math.IsInf(got, 1) {
		t.Errorf("ttft without samples = %v, want +Inf", got)
	}
	ttft, itl := 25.0, 10.0
	rec := &spec.Recommendation{Optimization: spec.Optimization{Target: spec.TargetTTFT, StrictSLA: true},
		SLA: &spec.SLA{TTFTMs: &ttft, ITLMs: &itl}}
	sc := scoreSummary(rec, s, 3, RoleHardware{})
	if sc.score != -30 || sc.status != StatusInfeasible || sc.category != "sla" || sc.reason != "mean_ttft_ms 30 exceeds evaluation.sla.ttft_ms 25" {
		t.Errorf("strict SLA: %+v", sc)
	}
	ttft = 30 // inclusive bound
	if sc := scoreSummary(rec, s, 3, RoleHardware{}); sc.status != StatusFeasible {
		t.Errorf("inclusive bound: %+v", sc)
	}
	rps := 2.5
	rec = &spec.Recommendation{Optimization: spec.Optimization{Target: spec.TargetMinGPUs, MinGoodputRPS: &rps}}
	if sc := scoreSummary(rec, s, 3, RoleHardware{}); sc.score != -3 || sc.status != StatusInfeasible || sc.category != "goodput" {
		t.Errorf("min_goodput_rps: %+v", sc)
	}
	if got := (&spec.Recommendation{Optimization: spec.Optimization{Target: spec.TargetPareto}, SLA: &spec.SLA{E2EMs: new(float64)}}).Objectives(); !reflect.DeepEqual(got, []string{"throughput_per_gpu", "throughput_per_user", "goodput_per_gpu"}) {
		t.Errorf("pareto objectives %v", got)
	}
}

func TestFmtG(t *testing.T) {
	for v, want := range map[float64]string{1234.0: "1234", 12345.0: "1.234e+04", 0.5: "0.5", 2934.4: "2934", 0.000012345: "1.234e-05", math.Inf(1): "inf"} {
		if got := fmtG(v); got != want {
			t.Errorf("fmtG(%v) = %q, want %q", v, got, want)
		}
	}
}
