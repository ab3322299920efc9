package outputs

import (
	"bytes"
	"fmt"
	"io"
	"runtime"

	"aisimulate/simcore/canon"
)

// RecordStream is the per-request records of a run made on demand, in record order.
type RecordStream struct {
	// Len is the number of records.
	Len int
	// Append appends the compact canonical JSON of record i (0 ≤ i < Len) to compact and
	// its pretty layout as a per_request element (canon.AppendPrettyCompact with the prefix
	// recordIndent) to pretty (AppendRecordBoth).
	Append func(compact, pretty []byte, i int) ([]byte, []byte, error)
}

// streamMarker stands in for the per_request records in the encoded tree; WriteOutputs
// writes the records where it appears. No real record is a string.
const streamMarker = "\x00per_request records\x00"

// recordIndent is the line prefix of a per_request element in prediction.json: the array is
// a member of the root object (depth 1), its elements sit at depth 2 of the 2-space layout
// (docs/semantics/outputs.md §2).
const recordIndent = "    "

// WriteOutputs writes prediction.json to pred and, for a run with per-request capture,
// requests.jsonl to reqs (nil without capture): the same bytes PredictionJSON and
// RequestsJSONL make from PerRequest. With a Stream the records are made one at a time, in
// one pass for both files: each is encoded once, in both layouts (AppendRecordBoth).
func (d *Document) WriteOutputs(pred, reqs io.Writer) error {
	if d.Stream == nil || !d.CapturePerRequest {
		text, err := d.PredictionJSON()
		if err != nil {
			return err
		}
		if _, err = pred.Write(text); err != nil || !d.CapturePerRequest {
			return err
		}
		if text, err = d.RequestsJSONL(); err != nil {
			return err
		}
		_, err = reqs.Write(text)
		return err
	}
	text, err := d.PredictionJSON()
	if err != nil {
		return err
	}
	at, end := len(text), len(text)
	if d.Stream.Len > 0 {
		marker, err := canon.Compact(streamMarker)
		if err != nil {
			return err
		}
		if at = bytes.Index(text, marker); at < 0 {
			return fmt.Errorf("internal error: per_request marker missing from prediction.json")
		}
		end = at + len(marker)
	}
	// Finish the collection in progress first. WebAssembly has one thread and no
	// preemption, and this loop allocates nothing and never yields: a collection whose
	// marking had begun would stay in it to the end, making every pointer store of the
	// encoder pay the write barrier (about a third of a large capture's CPU time,
	// docs/performance.md).
	runtime.GC()
	// The records are appended to two buffers that are written out whenever they pass
	// streamBuffer: no copy through a buffered writer.
	lines := make([]byte, 0, streamBuffer+streamBuffer/4)
	pretty := append(make([]byte, 0, streamBuffer+streamBuffer/4), text[:at]...)
	for i := 0; i < d.Stream.Len; i++ {
		if i > 0 {
			pretty = append(pretty, ",\n"+recordIndent...)
		}
		if lines, pretty, err = d.Stream.Append(lines, pretty, i); err != nil {
			return err
		}
		lines = append(lines, '\n')
		if lines, err = writeFull(reqs, lines, streamBuffer); err != nil {
			return err
		}
		if pretty, err = writeFull(pred, pretty, streamBuffer); err != nil {
			return err
		}
	}
	pretty = append(pretty, text[end:]...)
	if _, err = writeFull(pred, pretty, 0); err != nil {
		return err
	}
	_, err = writeFull(reqs, lines, 0)
	return err
}

// writeFull writes buf to w once it holds at least limit bytes (any non-empty buf for a
// limit of 0) and returns it emptied; a shorter buf is returned as it is.
func writeFull(w io.Writer, buf []byte, limit int) ([]byte, error) {
	if len(buf) < max(limit, 1) {
		return buf, nil
	}
	_, err := w.Write(buf)
	return buf[:0], err
}

// streamBuffer is the size of the writes a captured output makes (1 MiB): each write is a
// host call of the WebAssembly module, so large ones cost fewer.
const streamBuffer = 1 << 20
