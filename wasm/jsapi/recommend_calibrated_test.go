package jsapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/report"
	"aisimulate/wasm/jsapi/recview"
)

// A recommendation driven round by round with a calibration profile is `recommend
// --calibration`: simcore.Recommend's bytes with the same profile (every evaluation request
// carries it to whichever worker evaluates it). The view names the profile by its SHA-256,
// counts the calibrated candidates as provenance does and marks the rows whose interval is the
// profile's; without a profile it has no calibration and no calibrated row.
func TestCalibratedRecommendationMatchesSimcore(t *testing.T) {
	yamlText := readSmall(t)
	prof, err := os.ReadFile("../../examples/calibration/profile.json")
	if err != nil {
		t.Fatal(err)
	}
	cals := []simcore.NamedFile{{Name: "profile.json", Data: prof}}
	wall := 1.0
	rc, e := StartRecommendation(RecommendRequest{ConfigName: "recommend-small.yaml", YAML: yamlText, FixedWallTimeMs: &wall, Calibrations: cals})
	if e != nil {
		t.Fatal(e.Message)
	}
	got, _ := drive(t, rc)
	want, err := simcore.Recommend(simcore.RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: yamlText,
		ModuleVersion: simcore.Version, FixedWallTimeMs: &wall, Calibrations: cals})
	if err != nil {
		t.Fatal(err)
	}
	if got.JSON != string(want.JSON) || got.CSV != string(want.CSV) {
		t.Fatal("calibrated recommendation.json / .csv differ from simcore.Recommend with the profile")
	}
	var v recview.View
	if err := json.Unmarshal([]byte(got.View), &v); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(prof)
	c := v.Calibration
	if c == nil || len(c.Profiles) != 1 || c.Profiles[0].File != "profile.json" || c.Profiles[0].SHA256 != hex.EncodeToString(sum[:]) || c.Strict {
		t.Fatalf("view calibration %+v", c)
	}
	var doc struct {
		Provenance struct {
			Calibration struct {
				CalibratedCandidates int `json:"calibrated_candidates"`
			} `json:"calibration"`
		} `json:"provenance"`
		Candidates []struct {
			ID        string         `json:"candidate_id"`
			Intervals map[string]any `json:"intervals"`
		} `json:"candidates"`
	}
	if err := json.Unmarshal(want.JSON, &doc); err != nil {
		t.Fatal(err)
	}
	if c.CalibratedCandidates != doc.Provenance.Calibration.CalibratedCandidates || c.CalibratedCandidates == 0 {
		t.Errorf("calibrated candidates %d, provenance says %d", c.CalibratedCandidates, doc.Provenance.Calibration.CalibratedCandidates)
	}
	source, intervals := map[string]any{}, map[string]map[string]any{}
	for _, cand := range doc.Candidates {
		source[cand.ID], intervals[cand.ID] = cand.Intervals["source"], cand.Intervals
	}
	calibratedRows := 0
	for _, r := range v.Rows {
		if r.Calibrated != (source[r.CandidateID] == "calibration") {
			t.Errorf("row %d calibrated=%v, its intervals' source is %v", r.Rank, r.Calibrated, source[r.CandidateID])
		}
		if r.Calibrated {
			calibratedRows++
		}
		// The row's bands are its candidate's intervals of the table's metrics.
		ttft := report.TTFT.Key(report.Mean)
		lo, hi, ok := report.IntervalOf(intervals[r.CandidateID], ttft)
		if b := r.Bands[ttft]; !ok || b == nil || b[0] != lo || b[1] != hi {
			t.Errorf("row %d band of %s = %v, intervals say %v–%v (%v)", r.Rank, ttft, b, lo, hi, ok)
		}
	}
	if calibratedRows == 0 {
		t.Error("no ranked row is calibrated")
	}

	plain, e := StartRecommendation(RecommendRequest{ConfigName: "recommend-small.yaml", YAML: yamlText, FixedWallTimeMs: &wall})
	if e != nil {
		t.Fatal(e.Message)
	}
	res, _ := drive(t, plain)
	var pv recview.View
	if err := json.Unmarshal([]byte(res.View), &pv); err != nil {
		t.Fatal(err)
	}
	if pv.Calibration != nil {
		t.Errorf("uncalibrated view has calibration %+v", pv.Calibration)
	}
	for _, r := range pv.Rows {
		if r.Calibrated {
			t.Errorf("uncalibrated row %d marked calibrated", r.Rank)
		}
	}
}

// --strict-calibration reaches the search: the view says strict, and a bad profile is a
// configuration error naming the file and the field before anything runs.
func TestCalibratedRecommendationStrictAndBadProfile(t *testing.T) {
	yamlText := readSmall(t)
	prof, err := os.ReadFile("../../examples/calibration/profile.json")
	if err != nil {
		t.Fatal(err)
	}
	rc, e := StartRecommendation(RecommendRequest{YAML: yamlText, Sets: []string{"optimizer.max_trials=4"},
		Calibrations: []simcore.NamedFile{{Name: "p.json", Data: prof}}, StrictCalibration: true})
	if e != nil {
		t.Fatal(e.Message)
	}
	got, _ := drive(t, rc)
	var v recview.View
	if err := json.Unmarshal([]byte(got.View), &v); err != nil || v.Calibration == nil || !v.Calibration.Strict {
		t.Fatalf("strict view calibration %+v %v", v.Calibration, err)
	}
	_, e = StartRecommendation(RecommendRequest{YAML: yamlText, Calibrations: []simcore.NamedFile{{Name: "bad.json", Data: []byte(`{"schema_version": 2}`)}}})
	if e == nil || e.Kind != KindConfig || e.Path != "schema_version" {
		t.Fatalf("bad profile: %+v", e)
	}
	if want := "bad.json: schema_version: "; len(e.Message) < len(want) || e.Message[:len(want)] != want {
		t.Errorf("bad profile message %q", e.Message)
	}
}
