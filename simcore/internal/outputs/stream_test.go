package outputs

import (
	"bytes"
	"errors"
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
			Stream: valueStream(records[:n])}
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

// More records than one write holds: the files are written in several writes of at least
// streamBuffer bytes each (the last one excepted), with the same bytes as a whole encoding,
// and the first failed write ends the stream with its error.
func TestStreamedOutputsInWrites(t *testing.T) {
	const n = 60000 // about 2 MB of requests.jsonl, 5 MB of prediction.json
	records := make([]any, n)
	for i := range records {
		records[i] = map[string]any{"uuid": i, "list": []any{i, 0.5}}
	}
	whole := &Document{CapturePerRequest: true, PerRequest: records, Summary: map[string]any{"num_requests": n}}
	streamed := &Document{CapturePerRequest: true, Summary: whole.Summary,
		Stream: valueStream(records)}
	wantPred, err := whole.PredictionJSON()
	if err != nil {
		t.Fatal(err)
	}
	wantReq, _ := whole.RequestsJSONL()
	pred, req := &writeLog{}, &writeLog{}
	if err := streamed.WriteOutputs(pred, req); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		got  *writeLog
		want []byte
	}{{"prediction.json", pred, wantPred}, {"requests.jsonl", req, wantReq}} {
		if !bytes.Equal(c.got.Bytes(), c.want) {
			t.Errorf("%s differs from the whole encoding", c.name)
		}
		if len(c.got.sizes) < 2 {
			t.Errorf("%s in %d writes, want several", c.name, len(c.got.sizes))
		}
		for _, s := range c.got.sizes[:len(c.got.sizes)-1] {
			if s < streamBuffer {
				t.Errorf("%s: a write of %d bytes, want at least %d", c.name, s, streamBuffer)
			}
		}
	}
	failing := &writeLog{fail: errors.New("disk full")}
	if err := streamed.WriteOutputs(&writeLog{}, failing); err != failing.fail || len(failing.sizes) != 1 {
		t.Errorf("failed write: error %v after %d writes, want the write's error after 1", err, len(failing.sizes))
	}
}

// writeLog records the sizes of the writes made to it; with fail set every write fails.
type writeLog struct {
	bytes.Buffer
	sizes []int
	fail  error
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.sizes = append(w.sizes, len(p))
	if w.fail != nil {
		return 0, w.fail
	}
	return w.Buffer.Write(p)
}

// valueStream streams records encoded by canon.
func valueStream(records []any) *RecordStream {
	return &RecordStream{Len: len(records), Append: func(compact, pretty []byte, i int) ([]byte, []byte, error) {
		start := len(compact) // the buffers hold the records before i
		compact, err := canon.AppendCompact(compact, records[i])
		return compact, canon.AppendPrettyCompact(pretty, compact[start:], recordIndent), err
	}}
}
