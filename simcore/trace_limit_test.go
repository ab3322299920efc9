package simcore

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"
)

// A caller's request limit (the edge's) is checked while the trace is read: the refusal names
// the row that passed it, so the rows after it were never read.
func TestTraceRequestLimitWhileReading(t *testing.T) {
	var rows strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&rows, `{"timestamp": %d, "input_length": 32, "output_length": 4, "hash_ids": [%d]}`+"\n", i, i+1)
	}
	cfg := []byte(`traffic:
  source: {type: trace, format: mooncake, paths: [t.jsonl]}
  load: {type: trace_timestamps}
engine:
  model: meta-llama/Meta-Llama-3.1-8B
  hardware: h200_sxm
  workers: {aggregated: {}}
`)
	files := fstest.MapFS{"t.jsonl": {Data: []byte(rows.String())}}
	_, err := Predict(Input{ConfigName: "c.yaml", ConfigYAML: cfg, Files: files, MaxRequests: 5})
	var le *LimitError
	if !errors.As(err, &le) || le.Path != "traffic.source.paths" ||
		le.Msg != "t.jsonl:6: the traces hold more than 5 requests (counted after decompression and expansion), the most this service simulates per call" {
		t.Fatalf("error %v", err)
	}
	if _, err := Predict(Input{ConfigName: "c.yaml", ConfigYAML: cfg, Files: files, MaxRequests: 1000}); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
}
