package outputs

import (
	"bytes"
	"testing"

	"aisimulate/simcore/canon"
)

// Streaming the records writes the same bytes as encoding them all at once, for nested
// records, strings with escapes and empty containers.
func TestStreamedOutputsEqualWhole(t *testing.T) {
	records := []any{
		map[string]any{"uuid": "a", "ttft_ms": 1.5, "nested": map[string]any{"list": []any{1, 2.0, nil}, "empty": []any{}}, "s": "line\nbreak \"q\""},
		map[string]any{"uuid": "b", "ttft_ms": nil, "nested": map[string]any{}},
		map[string]any{"uuid": "c"},
	}
	for n := 0; n <= len(records); n++ {
		whole := &Document{CapturePerRequest: true, PerRequest: records[:n], Summary: map[string]any{"num_requests": n}, Planner: map[string]any{"x": []any{1}}}
		streamed := &Document{CapturePerRequest: true, Summary: whole.Summary, Planner: whole.Planner,
			Stream: &RecordStream{Len: n, Append: func(dst []byte, i int) ([]byte, error) { return canon.AppendCompact(dst, records[i]) }}}
		wantPred, err := whole.PredictionJSON()
		if err != nil {
			t.Fatal(err)
		}
		wantReq, _ := whole.RequestsJSONL()
		var pred, req bytes.Buffer
		if err := streamed.WriteOutputs(&pred, &req); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(pred.Bytes(), wantPred) {
			t.Errorf("%d records: prediction.json differs:\n%s\nwant\n%s", n, pred.Bytes(), wantPred)
		}
		if !bytes.Equal(req.Bytes(), wantReq) {
			t.Errorf("%d records: requests.jsonl differs:\n%s\nwant\n%s", n, req.Bytes(), wantReq)
		}
	}
}
