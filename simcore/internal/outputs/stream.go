package outputs

import (
	"bufio"
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
	// Append appends the compact canonical JSON of record i (0 ≤ i < Len) to dst
	// (AppendRecord).
	Append func(dst []byte, i int) ([]byte, error)
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
// one pass for both files: each is encoded once, written as it is to requests.jsonl and laid
// out pretty from the same bytes (canon.AppendPrettyCompact) for prediction.json.
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
	pw, rw := bufio.NewWriterSize(pred, streamBuffer), bufio.NewWriterSize(reqs, streamBuffer)
	pw.Write(text[:at])
	var line, pretty []byte
	for i := 0; i < d.Stream.Len; i++ {
		if i > 0 {
			pw.WriteString(",\n" + recordIndent)
		}
		if line, err = d.Stream.Append(line[:0], i); err != nil {
			return err
		}
		pretty = canon.AppendPrettyCompact(pretty[:0], line, recordIndent)
		line = append(line, '\n')
		rw.Write(line)
		pw.Write(pretty)
	}
	pw.Write(text[end:])
	if err := pw.Flush(); err != nil {
		return err
	}
	return rw.Flush()
}

// streamBuffer is the size of the writes a captured output makes (1 MiB): each write is a
// host call of the WebAssembly module, so large ones cost fewer.
const streamBuffer = 1 << 20
