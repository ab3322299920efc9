package recommend

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"aisimulate/simcore/spec"
)

// The planner sub-items are parameters: the scaling policy where the planner is enabled, FPM
// sampling and the load sensitivity only where the chosen policy enables their scaling mode;
// recommendation.json shows each by its preset name.
func TestPlannerParams(t *testing.T) {
	sp := mustSpace(t, synthYAML, "optimization.target=goodput", "evaluation={sla: {ttft_ms: 500, itl_ms: 50}}",
		"planner={scaling_policy: {preset: [load_180_5, throughput_180_5, hybrid_600_5]}}")
	idx := map[string]int{}
	for i, p := range sp.Params {
		idx[p.Name] = i
	}
	pol, sc, fpm, sens := idx["planner.policy"], idx["planner.scaling_policy"], idx["planner.fpm_sampling"], idx["planner.load_sensitivity"]
	if sc == 0 || fpm == 0 || sens == 0 || sp.Params[sc].when != pol || sp.Params[fpm].when != sc || sp.Params[sens].when != sc {
		t.Fatalf("planner params %v", idx)
	}
	if got := sp.Params[fpm].whenOK; !reflect.DeepEqual(got, []bool{false, true, true}) {
		t.Errorf("FPM sampling active for %v", got)
	}
	if got := sp.Params[sens].whenOK; !reflect.DeepEqual(got, []bool{true, false, true}) {
		t.Errorf("load sensitivity active for %v", got)
	}
	pt := make(Point, len(sp.Params))
	for i := range pt {
		pt[i] = 0
	}
	pt[pol] = 1 // enabled
	pt[sc] = 1  // throughput_180_5
	pt[fpm] = 3 // fine
	pt[sens] = math.NaN()
	cfg := sp.ConfigOf(pt)
	if cfg["planner.scaling_policy"] != "throughput_180_5" || cfg["planner.fpm_sampling"] != "fine" || cfg["planner.enable_throughput_scaling"] != nil {
		t.Errorf("config %v", cfg)
	}
	tree, _, err := sp.Concrete(pt)
	if err != nil {
		t.Fatal(err)
	}
	p := tree["planner"].(map[string]any)
	if p["target"] != spec.TargetSLA || p["max_num_fpm_samples"] != json.Number("128") || p["load_predictor"] != "constant" || p["enable_load_scaling"] != false {
		t.Errorf("planner %v", p)
	}
	// A search over the space never writes an inactive sub-item.
	s := driveSearch(t, sp, opt(spec.AlgorithmRandom, 48, 3), 4)
	enabled := 0
	for _, c := range s.Candidates() {
		pl, _ := c.Tree["planner"].(map[string]any)
		if pl["policy"] == spec.PlannerDisabled && len(pl) != 1 {
			t.Errorf("disabled planner with knobs: %v", pl)
		}
		if pl["enable_throughput_scaling"] == false && pl["max_num_fpm_samples"] != nil {
			t.Errorf("FPM sampling without throughput scaling: %v", pl)
		}
		if pl["enable_load_scaling"] == false && pl["load_min_observations"] != nil {
			t.Errorf("load sensitivity without load scaling: %v", pl)
		}
		if pl["policy"] == spec.PlannerEnabled {
			enabled++
		}
	}
	if enabled == 0 {
		t.Errorf("no candidate enabled the planner")
	}
}
