package outputs

import (
	"bufio"
	"bytes"
	"fmt"
	"io"

	"aisimulate/simcore/canon"
)

// RecordStream is the per-request records of a run made on demand, in record order.
type RecordStream struct {
	// Len is the number of records.
	Len int
	// Append appends the compact canonical JSON of record i (0 ≤ i < Len) to dst
	// (AppendRecord): each output encodes a record once into one reused buffer, and
	// prediction.json lays the same bytes out pretty (canon.AppendPrettyCompact).
	Append func(dst []byte, i int) ([]byte, error)
}

// streamMarker stands in for the per_request records in the encoded tree; WritePrediction
// writes the records where it appears. No real record is a string.
const streamMarker = "\x00per_request records\x00"

// recordIndent is the indentation of a per_request element: the array is a member of the
// root object (depth 1), its elements sit at depth 2 of the 2-space layout (docs/semantics/outputs.md §2).
const recordIndent = "    "

// WritePrediction writes prediction.json to w, the same bytes PredictionJSON makes from
// PerRequest, with the records of Stream encoded one at a time.
func (d *Document) WritePrediction(w io.Writer) error {
	text, err := d.PredictionJSON()
	if err != nil {
		return err
	}
	if d.Stream == nil || d.Stream.Len == 0 || !d.CapturePerRequest {
		_, err = w.Write(text)
		return err
	}
	marker, err := canon.Compact(streamMarker)
	if err != nil {
		return err
	}
	at := bytes.Index(text, marker)
	if at < 0 {
		return fmt.Errorf("internal error: per_request marker missing from prediction.json")
	}
	bw := bufio.NewWriterSize(w, streamBuffer)
	bw.Write(text[:at])
	var rec, pretty []byte
	for i := 0; i < d.Stream.Len; i++ {
		if i > 0 {
			bw.WriteString(",\n" + recordIndent)
		}
		if rec, err = d.Stream.Append(rec[:0], i); err != nil {
			return err
		}
		pretty = canon.AppendPrettyCompact(pretty[:0], rec, recordIndent)
		bw.Write(pretty)
	}
	bw.Write(text[at+len(marker):])
	return bw.Flush()
}

// WriteRequests writes requests.jsonl to w: the same bytes RequestsJSONL makes from
// PerRequest, with the records of Stream encoded one at a time.
func (d *Document) WriteRequests(w io.Writer) error {
	if d.Stream == nil || !d.CapturePerRequest {
		text, err := d.RequestsJSONL()
		if err != nil {
			return err
		}
		_, err = w.Write(text)
		return err
	}
	bw := bufio.NewWriterSize(w, streamBuffer)
	var line []byte
	for i := 0; i < d.Stream.Len; i++ {
		var err error
		if line, err = d.Stream.Append(line[:0], i); err != nil {
			return err
		}
		line = append(line, '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// streamBuffer is the size of the writes a captured output makes (1 MiB): each write is a
// host call of the WebAssembly module, so large ones cost fewer.
const streamBuffer = 1 << 20
