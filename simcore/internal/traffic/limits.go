package traffic

import (
	"bufio"
	"io"
)

// Ceilings on reading traces (docs/robustness.md, "Traces"): every one is checked while the
// trace is read, so a hostile file (an endless line, a gzip bomb, a row that expands into
// millions of requests) is refused with its file and line before it exhausts memory.
const (
	// MaxTraceLineBytes is the longest trace line (after decompression). Real rows are a few
	// kilobytes; an agentic row with long per-turn arrays stays far below.
	MaxTraceLineBytes = 64 << 20
	// MaxTraceBytes is the trace text read in one run, over all files, after decompression.
	MaxTraceBytes = 1 << 30
	// MaxTraceRequests is the requests one run reads from traces, rows and their expansion
	// together: about 600 bytes each while the trace is held, so 2,000,000 of them stay well
	// inside the module's memory next to the simulation's own.
	MaxTraceRequests = 2_000_000
	// MaxRowRequests is the requests one row may expand into (an applied_compute_agentic
	// episode of num_turns + 1 requests).
	MaxRowRequests = 100_000
)

// traceLimits counts what one run has read from its traces.
type traceLimits struct {
	bytes    int64
	requests int
	// callerMax is the caller's own limit on requests (LoadTraceWithin; 0: none).
	callerMax int
}

// countingReader counts the bytes read through it into the run's total and fails once the
// total passes MaxTraceBytes.
type countingReader struct {
	r    io.Reader
	lim  *traceLimits
	name string
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.lim.bytes += int64(n)
	if c.lim.bytes > MaxTraceBytes {
		return n, fileError(c.name, "the traces hold more than %d bytes (1 GiB) of text after decompression, the limit of one run (docs/robustness.md); use a shorter trace", int64(MaxTraceBytes))
	}
	return n, err
}

// addRow counts one row read from file:line as one request, refusing a run past
// MaxTraceRequests.
func (l *traceLimits) addRow(file string, line int) error { return l.add(file, line, 1) }

// expand counts a row of file:line that expands into n requests (the row itself already
// counted by addRow), refusing more than MaxRowRequests for one row.
func (l *traceLimits) expand(file string, line int, n int64) error {
	if n > MaxRowRequests {
		return rowError(file, line, "this row expands into %d requests, more than the %d one row may (docs/robustness.md)", n, MaxRowRequests)
	}
	return l.add(file, line, int(n)-1)
}

func (l *traceLimits) add(file string, line, n int) error {
	l.requests += n
	if l.callerMax > 0 && l.requests > l.callerMax {
		return &CallerLimitError{File: file, Line: line, Max: l.callerMax}
	}
	if l.requests > MaxTraceRequests {
		return rowError(file, line, "the traces hold more than %d requests, the limit of one run (docs/robustness.md); use a shorter trace", MaxTraceRequests)
	}
	return nil
}

// lineTooLong is the error for a line over MaxTraceLineBytes.
func lineTooLong(file string, line int) error {
	return rowError(file, line, "line longer than %d bytes (64 MiB), the limit on one trace line (docs/robustness.md); is this a trace file?", MaxTraceLineBytes)
}

// skipBlank discards the whitespace before the next line's content, in bulk from r's buffer,
// and returns the number of line ends it passed (blank lines cost no per-line work).
func skipBlank(r *bufio.Reader) (newlines int, err error) {
	for {
		if _, err := r.Peek(1); err != nil {
			return newlines, err
		}
		buf, _ := r.Peek(r.Buffered())
		i := 0
		for i < len(buf) {
			c := buf[i]
			if c == '\n' {
				newlines++
			} else if c != ' ' && c != '\t' && c != '\r' {
				break
			}
			i++
		}
		r.Discard(i)
		if i < len(buf) {
			return newlines, nil
		}
	}
}
