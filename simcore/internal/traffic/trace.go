package traffic

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"

	"aisimulate/simcore/spec"
)

// maxContextTokens bounds the accumulated prompt of formats that grow a context turn by turn
// (mooncake-delta, applied_compute_agentic); no model serves more, and the bound keeps a
// malformed file from allocating without limit.
const maxContextTokens = 1 << 24

// LoadTrace reads the trace files of a validated `traffic.source.type: trace` source through
// files and returns the workload they describe. Paths are slash paths valid for files. The
// configuration rules (paths, load type, block size) were checked by spec; errors here are
// about the files and are *Error values.
func LoadTrace(src spec.Source, load spec.Load, files fs.FS) (*Workload, error) {
	return LoadTraceWithin(src, load, files, 0)
}

// LoadTraceWithin is LoadTrace for a caller that simulates at most maxRequests requests
// (0: MaxTraceRequests only): reading stops at the first row past it with a
// *CallerLimitError, before the rest of the trace is read (docs/robustness.md, "Ceilings").
func LoadTraceWithin(src spec.Source, load spec.Load, files fs.FS, maxRequests int) (*Workload, error) {
	if src.Format == "" {
		src.Format = spec.FormatMooncake // the schema's default
	}
	c := newTraceCtx(src, load, files)
	c.lim.callerMax = maxRequests
	switch src.Format {
	case spec.FormatMooncakeDelta:
		return c.loadMooncake(true)
	case spec.FormatAgenticMooncake:
		return c.loadAgenticMooncake()
	case spec.FormatAppliedComputeAgentic:
		return c.loadAppliedCompute()
	case spec.FormatDynamo:
		return c.loadDynamo()
	case spec.FormatWeka:
		return c.loadWeka()
	}
	return c.loadMooncake(false)
}

// traceCtx carries what every reader needs.
type traceCtx struct {
	src   spec.Source
	load  spec.Load
	files fs.FS
	// blockSize is the configured trace block size (the format's default when unset; 0 for
	// dynamo and weka, which take it from the trace).
	blockSize int
	// timestamps is true for a trace_timestamps load (open loop at the authored times).
	timestamps bool
	speedup    float64
	// lim counts what the run has read (limits.go).
	lim *traceLimits
}

func newTraceCtx(src spec.Source, load spec.Load, files fs.FS) *traceCtx {
	// The format's default block size (0 when the trace carries its own) stands in for an
	// unset block_size, as spec fills it in.
	f, _ := spec.LookupTraceFormat(src.Format)
	c := &traceCtx{src: src, load: load, files: files, blockSize: f.DefaultBlockSize, speedup: 1,
		lim:        &traceLimits{},
		timestamps: load.Type == spec.LoadTraceTimestamps}
	if src.BlockSize != nil {
		c.blockSize = *src.BlockSize
	}
	if c.timestamps && load.Speedup > 0 {
		c.speedup = load.Speedup
	}
	return c
}

// lanes is Graph.Lanes for an agentic source.
func (c *traceCtx) lanes() int {
	if !c.timestamps {
		return c.load.Concurrency
	}
	if c.load.AgenticLanes != nil && *c.load.AgenticLanes > 0 {
		return *c.load.AgenticLanes
	}
	return 0
}

// sessionWorkload wraps sessions in workload order into a Workload; Next hands each session
// out once and drops the loader's reference so a run can free sessions as it goes. A
// session that starts, or a turn that waits, longer than the simulated clock holds
// (spec.MaxMilliseconds, after the speedup) is an error naming the first file.
func (c *traceCtx) sessionWorkload(sessions []Session) (*Workload, error) {
	for _, s := range sessions {
		if s.ArrivalMs > spec.MaxMilliseconds {
			return nil, fileError(c.src.Paths[0], "session %q starts %s ms after the earliest session (after the speedup), more than the %s ms (about 31.7 years) the simulated clock holds; check the timestamps' unit or raise traffic.load.speedup", s.ID, fmtMs(s.ArrivalMs), fmtMs(spec.MaxMilliseconds))
		}
		for _, t := range s.Turns {
			if t.DelayMs > spec.MaxMilliseconds {
				return nil, fileError(c.src.Paths[0], "a turn of session %q waits %s ms, more than the %s ms (about 31.7 years) the simulated clock holds; check the delays' unit", s.ID, fmtMs(t.DelayMs), fmtMs(spec.MaxMilliseconds))
			}
		}
	}
	i := 0
	w := &Workload{
		Sessions: len(sessions),
		Next: func() (Session, bool) {
			if i >= len(sessions) {
				return Session{}, false
			}
			s := sessions[i]
			sessions[i] = Session{}
			i++
			return s, true
		},
		OpenLoop: c.timestamps,
	}
	if !c.timestamps {
		w.Concurrency = c.load.Concurrency
	}
	for _, s := range sessions {
		w.Requests += len(s.Turns)
	}
	return w, nil
}

// jsonError turns a decoding error into a readable message.
func jsonError(file string, line int, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return rowError(file, line, "invalid JSON record (%s); each line must be one JSON object", msg)
}

// lineReader yields the non-blank lines of one (possibly gzip-compressed) trace file,
// streaming: only the current line is held.
type lineReader struct {
	name string
	f    fs.File
	gz   *gzip.Reader
	r    *bufio.Reader
	buf  []byte
	line int // 1-based number of the line last returned
	lim  *traceLimits
}

// openTrace opens one trace file; gzip is detected by the .gz suffix or the gzip magic bytes.
func (c *traceCtx) openTrace(name string) (*lineReader, error) {
	f, err := c.files.Open(name)
	if err != nil {
		return nil, fileError(name, "cannot open trace file (%s); check traffic.source.paths", unwrapPathError(err))
	}
	lr := &lineReader{name: name, f: f, lim: c.lim}
	br := bufio.NewReaderSize(f, 64<<10)
	magic, _ := br.Peek(2)
	if strings.HasSuffix(name, ".gz") || (len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fileError(name, "not a valid gzip file (%v)", err)
		}
		lr.gz = gz
		lr.r = bufio.NewReaderSize(&countingReader{gz, c.lim, name}, 64<<10)
	} else {
		lr.r = bufio.NewReaderSize(&countingReader{br, c.lim, name}, 64<<10)
	}
	return lr, nil
}

func unwrapPathError(err error) string {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}

// next returns the next non-blank line (trimmed); ok is false at the end of the file.
func (lr *lineReader) next() (line []byte, ok bool, err error) {
	for {
		lr.buf = lr.buf[:0]
		eof := false
		blank, serr := skipBlank(lr.r)
		lr.line += blank
		for serr == nil {
			chunk, rerr := lr.r.ReadSlice('\n')
			lr.buf = append(lr.buf, chunk...)
			if len(lr.buf) > MaxTraceLineBytes {
				return nil, false, lineTooLong(lr.name, lr.line+1)
			}
			if rerr == nil {
				break
			}
			if rerr == bufio.ErrBufferFull {
				continue
			}
			serr = rerr
		}
		if serr == io.EOF {
			eof = true
		} else if se, ok := serr.(*spec.Error); ok {
			return nil, false, se
		} else if serr != nil {
			return nil, false, fileError(lr.name, "read error after line %d (%v)", lr.line, serr)
		}
		if eof && len(lr.buf) == 0 {
			return nil, false, nil
		}
		lr.line++
		b := lr.buf
		if lr.line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		b = bytes.TrimSpace(b)
		if len(b) > 0 {
			if err := lr.lim.addRow(lr.name, lr.line); err != nil {
				return nil, false, err
			}
			return b, true, nil
		}
		if eof {
			return nil, false, nil
		}
	}
}

// Close releases the file.
func (lr *lineReader) Close() {
	if lr.gz != nil {
		lr.gz.Close()
	}
	lr.f.Close()
}

// flexID is an identifier authored as a JSON string or number.
type flexID string

// UnmarshalJSON accepts a string or a number (kept as its literal text).
func (f *flexID) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an id must be a string or a number, got %s", clipText(string(b), 40))
	}
	*f = flexID(n.String())
	return nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// interner maps authored hash ids to dense token ids in first-seen order across a file
// (docs/traces.md, "Common rules"), so 64-bit ids never alias when narrowed to 32-bit tokens. Small ids (the
// usual dense Mooncake ids) are kept in a slice, others in a map.
type interner struct {
	dense []uint32 // dense[h] = id+1, 0 = unseen
	m     map[uint64]uint32
	n     uint32
}

func newInterner() *interner { return &interner{} }

// id returns the dense id of h.
func (in *interner) id(h uint64) uint32 {
	if h < uint64(len(in.dense)) {
		if v := in.dense[h]; v != 0 {
			return v - 1
		}
		if v, ok := in.m[h]; ok {
			return v
		}
		return in.add(h)
	}
	if v, ok := in.m[h]; ok {
		return v
	}
	// Grow the slice only while it stays at most about twice the number of ids seen.
	if limit := 2*uint64(in.n) + 4096; h < limit {
		size := 2 * uint64(len(in.dense))
		if size < h+1 {
			size = h + 1
		}
		if size > limit {
			size = limit
		}
		grown := make([]uint32, size)
		copy(grown, in.dense)
		in.dense = grown
	}
	return in.add(h)
}

func (in *interner) add(h uint64) uint32 {
	v := in.n
	in.n++
	if h < uint64(len(in.dense)) {
		in.dense[h] = v + 1
		return v
	}
	if in.m == nil {
		in.m = make(map[uint64]uint32)
	}
	in.m[h] = v
	return v
}

// synthPrompt appends to dst, for each block id, min(remaining, blockSize) copies of the id as
// one segment, stopping once length tokens were produced.
func synthPrompt(dst []Segment, ids []uint32, blockSize, length int) []Segment {
	remaining := length
	for _, id := range ids {
		if remaining <= 0 {
			break
		}
		n := blockSize
		if n > remaining {
			n = remaining
		}
		dst = append(dst, Segment{Token: id, Count: n})
		remaining -= n
	}
	return dst
}

// segmentsOf run-length encodes explicit token ids.
func segmentsOf(tokens []uint32) []Segment {
	var out []Segment
	for _, t := range tokens {
		if n := len(out); n > 0 && out[n-1].Token == t {
			out[n-1].Count++
			continue
		}
		out = append(out, Segment{Token: t, Count: 1})
	}
	return out
}

// deltaOutputToken is the synthetic token id standing for every generated token of turn
// turnIndex of session sessionIndex in a mooncake-delta trace (docs/traces.md). Its high bit
// keeps it apart from interned prompt tokens.
func deltaOutputToken(sessionIndex, turnIndex int) uint32 {
	return 0x80000000 | uint32((uint64(sessionIndex)*65599+uint64(turnIndex))&0x7fffffff)
}

// blockCapacity is len(ids)×blockSize without overflow.
func blockCapacity(n, blockSize int) int {
	if n > 0 && blockSize > math.MaxInt/n {
		return math.MaxInt
	}
	return n * blockSize
}

// traceCeilDiv is ⌈a/b⌉ for a ≥ 0, b > 0.
func traceCeilDiv(a, b int) int {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// fmtMs prints a millisecond value compactly for messages.
func fmtMs(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
