package jsapi

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"

	"aisimulate/simcore"
	"aisimulate/simcore/deploy"
)

// unzip reads a zip into name → bytes, in archive order.
func unzip(t *testing.T, b []byte) ([]string, map[string][]byte) {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	files := map[string][]byte{}
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(r)
		names = append(names, f.Name)
		files[f.Name] = data
	}
	return names, files
}

// sameFiles checks a Deployment's files and zip against generated files.
func sameFiles(t *testing.T, what string, d Deployment, want []deploy.File) {
	t.Helper()
	if d.Err != nil {
		t.Fatalf("%s: %+v", what, d.Err)
	}
	names, zipped := unzip(t, d.Zip)
	if len(names) != len(want) || len(d.Files) != len(want) {
		t.Fatalf("%s: %d files, %d zipped, want %d", what, len(d.Files), len(names), len(want))
	}
	for i, f := range want {
		if names[i] != f.Name || !bytes.Equal(zipped[f.Name], f.Data) || !bytes.Equal(d.Files[i].Data, f.Data) {
			t.Errorf("%s: %s differs from the generator's bytes", what, f.Name)
		}
	}
}

// The browser's and the edge's deployment of a prediction, made from prediction.json's text,
// is byte for byte the CLI's, made from the run's summary; the zip holds the same files.
func TestPredictionDeploymentIsTheCLIs(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "..", "examples", "quickstart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	sets := []string{"traffic.stop.requests=20"}
	res := Run(Request{ConfigName: "q.yaml", YAML: text, Sets: sets})
	if res.Err != nil {
		t.Fatal(res.Err.Message)
	}
	out, err := simcore.Predict(simcore.Input{ConfigName: "q.yaml", ConfigYAML: text, Sets: sets})
	if err != nil {
		t.Fatal(err)
	}
	want, err := simcore.PredictionArtifacts("q.yaml", text, sets, out.Summary, out.Intervals)
	if err != nil {
		t.Fatal(err)
	}
	sameFiles(t, "prediction", PredictionDeployment("q.yaml", text, sets, []byte(res.PredictionJSON)), want)
	if d := PredictionDeployment("q.yaml", text, sets, []byte("{")); d.Err == nil || d.Err.Kind != KindFailed {
		t.Errorf("a broken prediction.json: %+v", d.Err)
	}
	if d := PredictionDeployment("q.yaml", []byte("engine: {mode: sideways}"), nil, []byte(res.PredictionJSON)); d.Err == nil || d.Err.Kind != KindConfig {
		t.Errorf("a bad configuration: %+v", d.Err)
	}
}

// The Recommend view's download is the CLI's recommend --artifacts (default top).
func TestRecommendationDeploymentIsTheCLIs(t *testing.T) {
	rec, err := os.ReadFile(filepath.Join("..", "..", "tests", "testdata", "recommend-small", "recommendation.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := simcore.RecommendationArtifacts(rec, deploy.DefaultTop)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 || want[len(want)-1].Name[:11] != "deploy/0003" {
		t.Fatalf("the default top writes %d files", len(want))
	}
	sameFiles(t, "recommendation", RecommendationDeployment(rec, 0), want)
}
