package traffic

import (
	"bytes"
	"compress/gzip"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"aisimulate/simcore/spec"
)

// zeroFS serves one endless file of NUL bytes, like /dev/zero.
type zeroFS struct{}

type zeroFile struct{}

func (zeroFS) Open(string) (fs.File, error) { return zeroFile{}, nil }
func (zeroFile) Stat() (fs.FileInfo, error) { return nil, fs.ErrInvalid }
func (zeroFile) Close() error               { return nil }
func (zeroFile) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	w.Write(data)
	w.Close()
	return b.Bytes()
}

func wantTraceError(t *testing.T, files fs.FS, format, want string) {
	t.Helper()
	start := time.Now()
	_, err := LoadTrace(trSrc(format, "t.jsonl"), trConc(1), files)
	te, ok := err.(*Error)
	if !ok || te.BlockSize || !strings.Contains(te.Error(), want) {
		t.Errorf("got %#v, want a trace-file error (reported at traffic.source.trace.paths): …%s…", err, want)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}

// An endless line (a device, a binary file) or a gzip bomb without line ends stops at the
// line-length ceiling instead of growing until memory runs out.
func TestTraceLineCeiling(t *testing.T) {
	wantTraceError(t, zeroFS{}, spec.FormatMooncake, "t.jsonl:1: line longer than 67108864 bytes (64 MiB)")
	spaces := gz(t, bytes.Repeat([]byte{' '}, 70<<20))
	wantTraceError(t, fstest.MapFS{"t.jsonl": {Data: spaces}}, spec.FormatMooncake, "did not contain any requests")
	nuls := gz(t, make([]byte, 70<<20))
	wantTraceError(t, fstest.MapFS{"t.jsonl": {Data: nuls}}, spec.FormatMooncake, "line longer than 67108864 bytes")
}

// Blank lines are skipped in bulk and still counted for line numbers.
func TestBlankLinesCountedFast(t *testing.T) {
	data := append(bytes.Repeat([]byte("\n \r\n"), 4<<20), []byte("{oops\n")...)
	wantTraceError(t, fstest.MapFS{"t.jsonl": {Data: data}}, spec.FormatMooncake, "t.jsonl:8388609: invalid JSON record")
}

// One applied_compute_agentic row may not expand into more than MaxRowRequests requests.
func TestRowExpansionCeiling(t *testing.T) {
	n := MaxRowRequests
	zeros := strings.TrimSuffix(strings.Repeat("0,", n), ",")
	row := `{"num_turns": ` + strconv.Itoa(n) + `, "input_prompt_length": 3, "assistant_response_length": [` + zeros + `], "tool_call_output_length": [` + zeros + `], "tool_call_latency": [` + zeros + `], "final_assistant_response_length": 1}`
	wantTraceError(t, fstest.MapFS{"t.jsonl": {Data: []byte(row + "\n")}}, spec.FormatAppliedComputeAgentic, "t.jsonl:1: this row expands into 100001 requests, more than the 100000 one row may")
}

// The run's request and byte totals stop at their ceilings.
func TestTraceTotals(t *testing.T) {
	l := &traceLimits{requests: MaxTraceRequests - 1}
	if err := l.addRow("t.jsonl", 7); err != nil {
		t.Fatalf("the last allowed row: %v", err)
	}
	if err := l.addRow("t.jsonl", 8); err == nil || !strings.Contains(err.Error(), "t.jsonl:8: the traces hold more than 2000000 requests") {
		t.Errorf("got %v", err)
	}
	c := &countingReader{r: zeroFile{}, lim: &traceLimits{bytes: MaxTraceBytes - 10}, name: "t.jsonl"}
	if _, err := c.Read(make([]byte, 10)); err != nil {
		t.Fatalf("the last allowed bytes: %v", err)
	}
	if _, err := c.Read(make([]byte, 1)); err == nil || !strings.Contains(err.Error(), "more than 1073741824 bytes (1 GiB)") {
		t.Errorf("got %v", err)
	}
}
