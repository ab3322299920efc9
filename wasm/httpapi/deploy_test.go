package httpapi

import (
	"io"
	"mime"
	"mime/multipart"
	"strings"
	"testing"

	"aisimulate/simcore"
)

// POST /v1/predict?artifacts=1 answers prediction.json and every file of deploy/0001/ as
// parts named by their paths, the same bytes the CLI writes (the core's generator on the
// same configuration and prediction).
func TestPredictArtifactsParts(t *testing.T) {
	w := serve(t, &Server{}, "POST", "/v1/predict?artifacts=1", "application/yaml", []byte(e2))
	mt, params, _ := mime.ParseMediaType(w.Header().Get("Content-Type"))
	if w.Code != 200 || mt != "multipart/mixed" {
		t.Fatalf("%d %s %s", w.Code, mt, w.Body)
	}
	got := map[string]string{}
	var order []string
	mr := multipart.NewReader(w.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			break
		}
		b, _ := io.ReadAll(p)
		_, dp, _ := mime.ParseMediaType(p.Header.Get("Content-Disposition"))
		got[dp["name"]] = string(b)
		order = append(order, dp["name"])
	}
	if len(order) == 0 || order[0] != "prediction.json" {
		t.Fatalf("parts %v", order)
	}
	out, err := simcore.Predict(simcore.Input{ConfigName: "prediction.yaml", ConfigYAML: []byte(e2)})
	if err != nil {
		t.Fatal(err)
	}
	want, err := simcore.PredictionArtifacts("prediction.yaml", []byte(e2), nil, out.Summary, out.Intervals)
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != len(want)+1 {
		t.Errorf("parts %v, want prediction.json and %d files", order, len(want))
	}
	for _, f := range want {
		if got[f.Name] != string(f.Data) {
			t.Errorf("part %s differs from the generator's bytes", f.Name)
		}
		if !strings.HasPrefix(f.Name, "deploy/0001/") {
			t.Errorf("part name %s", f.Name)
		}
	}
	// Without artifacts the answer is prediction.json alone.
	w = serve(t, &Server{}, "POST", "/v1/predict", "application/yaml", []byte(e2))
	if ct := w.Header().Get("Content-Type"); w.Code != 200 || ct != "application/json" {
		t.Errorf("%d %s", w.Code, ct)
	}
}
