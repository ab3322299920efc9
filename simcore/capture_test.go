package simcore

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"aisimulate/simcore/canon"
)

// The two layouts of the per-request records, written in one pass, agree on real runs: each
// element of prediction.json's per_request is the pretty layout (canon.AppendPrettyCompact,
// checked against canon.Pretty by FuzzCompact) of the requests.jsonl line of the same record.
// The stress configurations cover disaggregation, preemption and retraction, sessions, KV
// routing and re-admissions; the records' compact bytes are checked against the record built
// as a value in simcore/internal/outputs (TestAppendRecordIsCanon).
func TestCaptureLayoutsAgree(t *testing.T) {
	configs, err := filepath.Glob("../examples/stress/*.yaml")
	if err != nil || len(configs) == 0 {
		t.Fatalf("no stress configurations: %v", err)
	}
	configs = append(configs, "../examples/e2.yaml", "../examples/quickstart.yaml")
	for _, path := range configs {
		text, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		wall := 1.0
		out, err := Predict(Input{ConfigName: path, ConfigYAML: text, CapturePerRequest: true, FixedWallTimeMs: &wall})
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		lines := bytes.Split(bytes.TrimSuffix(out.RequestsJSONL, []byte("\n")), []byte("\n"))
		if len(lines) < 5 {
			t.Fatalf("%s: %d records", path, len(lines))
		}
		want := []byte(`"per_request": [`)
		for i, line := range lines {
			if i > 0 {
				want = append(want, ',')
			}
			want = append(want, "\n    "...)
			want = canon.AppendPrettyCompact(want, line, "    ")
		}
		want = append(want, "\n  ]"...)
		if !bytes.Contains(out.PredictionJSON, want) {
			t.Errorf("%s: prediction.json's per_request is not the pretty layout of requests.jsonl's %d lines", path, len(lines))
		}
	}
}
