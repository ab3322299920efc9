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
	// At makes record i (0 ≤ i < Len).
	At func(i int) any
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
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(text[:at])
	var enc canon.Encoder
	var rec []byte
	for i := 0; i < d.Stream.Len; i++ {
		if i > 0 {
			bw.WriteString(",\n" + recordIndent)
		}
		if rec, err = enc.AppendPretty(rec[:0], d.Stream.At(i)); err != nil {
			return err
		}
		// Encoded strings never hold a raw newline, so every newline is layout: indent it.
		body := rec[:len(rec)-1] // without AppendPretty's final newline
		for {
			line, rest, more := bytes.Cut(body, []byte{'\n'})
			bw.Write(line)
			if !more {
				break
			}
			bw.WriteString("\n" + recordIndent)
			body = rest
		}
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
	bw := bufio.NewWriterSize(w, 1<<16)
	var enc canon.Encoder
	var line []byte
	for i := 0; i < d.Stream.Len; i++ {
		var err error
		if line, err = enc.AppendCompact(line[:0], d.Stream.At(i)); err != nil {
			return err
		}
		bw.Write(append(line, '\n'))
	}
	return bw.Flush()
}
