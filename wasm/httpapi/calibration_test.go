package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore"
)

// calibrationForm is a multipart body of a main part and "calibration" profile parts.
func calibrationForm(t *testing.T, mainPart, main string, profiles ...simcore.NamedFile) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile(mainPart, mainPart)
	io.WriteString(fw, main)
	for _, p := range profiles {
		fw, _ := mw.CreateFormFile(CalibrationPart, p.Name)
		fw.Write(p.Data)
	}
	mw.Close()
	return buf.Bytes(), mw.FormDataContentType()
}

// exampleProfile is the worked example's profile (docs/calibration.md) and the quickstart
// it was fitted on.
func exampleProfile(t *testing.T) (simcore.NamedFile, string) {
	t.Helper()
	prof, err := os.ReadFile("../../examples/calibration/profile.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("../../examples/quickstart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return simcore.NamedFile{Name: "profile.json", Data: prof}, string(cfg)
}

// POST /v1/predict with a "calibration" part is predict --calibration: the same
// prediction.json as the core's; strict_calibration=1 outside the domain is 400 naming the
// profile, and a bad profile is 400 naming the file and the field.
func TestPredictWithACalibrationPart(t *testing.T) {
	prof, cfg := exampleProfile(t)
	body, ctype := calibrationForm(t, "config", cfg, prof)
	w := serve(t, &Server{}, "POST", "/v1/predict", ctype, body)
	zero := 0.0
	want, err := simcore.Predict(simcore.Input{ConfigName: "prediction.yaml", ConfigYAML: []byte(cfg), FixedWallTimeMs: &zero,
		Calibrations: []simcore.NamedFile{prof}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != 200 || w.Body.String() != string(want.PredictionJSON) || !strings.Contains(w.Body.String(), `"source": "calibration"`) {
		t.Fatalf("%d %.400s", w.Code, w.Body)
	}
	w = serve(t, &Server{}, "POST", "/v1/predict?strict_calibration=1&set=traffic.load.concurrency=256", ctype, body)
	if e := errBody(t, w); w.Code != 400 || !strings.HasPrefix(e.Error, "profile.json: --strict-calibration: ") {
		t.Errorf("strict outside the domain: %d %+v", w.Code, e)
	}
	bad, bctype := calibrationForm(t, "config", cfg, simcore.NamedFile{Name: "bad.json", Data: []byte(`{"schema_version": 2}`)})
	w = serve(t, &Server{}, "POST", "/v1/predict", bctype, bad)
	if e := errBody(t, w); w.Code != 400 || !strings.HasPrefix(e.Error, "bad.json: schema_version: ") || e.Path != "schema_version" {
		t.Errorf("bad profile: %d %+v", w.Code, e)
	}
}

// The evaluation request's `calibrations` field (or "calibration" parts) reaches the
// candidate: the answer is simcore.Evaluate's bytes for the request with the profile.
func TestEvaluateWithAProfile(t *testing.T) {
	prof, cfg := exampleProfile(t)
	req := simcore.EvaluationRequest{ConfigName: "c.yaml", ConfigYAML: cfg, BudgetSteps: 1 << 40, Calibrations: []simcore.NamedFile{prof}}
	want := simcore.Evaluate(req, nil)
	if !strings.Contains(string(want), `"source":"calibration"`) {
		t.Fatalf("the outcome is not calibrated: %.300s", want)
	}
	if w := postEvaluate(t, &Server{}, req); w.Code != 200 || w.Body.String() != string(want) {
		t.Errorf("JSON field: %d %.300s", w.Code, w.Body)
	}
	plain := req
	plain.Calibrations = nil
	body, ctype := calibrationForm(t, "request", string(evalJSON(t, plain)), prof)
	if w := serve(t, &Server{}, "POST", "/v1/predict?evaluate=1", ctype, body); w.Code != 200 || w.Body.String() != string(want) {
		t.Errorf("calibration part: %d %.300s", w.Code, w.Body)
	}
}

// POST /v1/recommend with a "calibration" part is recommend --calibration: the core's
// recommendation.json, whose provenance names the profile.
func TestRecommendWithAProfile(t *testing.T) {
	prof, _ := exampleProfile(t)
	yaml := smallRecommendation(t)
	body, ctype := calibrationForm(t, "config", string(yaml), prof)
	w := serve(t, &Server{}, "POST", "/v1/recommend", ctype, body)
	zero := 0.0
	want, err := simcore.Recommend(simcore.RecommendInput{ConfigName: recommendName, ConfigYAML: yaml, ModuleVersion: simcore.Version,
		FixedWallTimeMs: &zero, Calibrations: []simcore.NamedFile{prof}})
	if err != nil {
		t.Fatal(err)
	}
	if w.Code != 200 || !bytes.Equal(w.Body.Bytes(), want.JSON) {
		t.Fatalf("%d %.300s", w.Code, w.Body)
	}
	var doc struct {
		Provenance struct {
			Calibration struct {
				Profiles             []map[string]string `json:"profiles"`
				CalibratedCandidates int                 `json:"calibrated_candidates"`
			} `json:"calibration"`
		} `json:"provenance"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil || len(doc.Provenance.Calibration.Profiles) != 1 ||
		doc.Provenance.Calibration.Profiles[0]["file"] != "profile.json" || doc.Provenance.Calibration.CalibratedCandidates == 0 {
		t.Errorf("provenance.calibration: %+v %v", doc.Provenance.Calibration, err)
	}
}
