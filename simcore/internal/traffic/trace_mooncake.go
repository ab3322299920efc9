package traffic

import (
	"encoding/json"
	"math"
	"strconv"

	"aisimulate/simcore/spec"
)

// maxOutputTokens bounds an authored output length: the configuration's bound on the tokens
// of one request.
const maxOutputTokens = spec.MaxRequestTokens

// mooncakeRow is one JSON line of a mooncake, mooncake-delta or agentic_mooncake trace.
// Pointer fields are nil when the key is absent (or null).
type mooncakeRow struct {
	Timestamp      *float64 `json:"timestamp"`
	CreatedTime    *float64 `json:"created_time"`
	InputLength    *int64   `json:"input_length"`
	InputTokens    *int64   `json:"input_tokens"`
	OutputLength   *int64   `json:"output_length"`
	OutputTokens   *int64   `json:"output_tokens"`
	HashIDs        []uint64 `json:"hash_ids"`
	SessionID      *flexID  `json:"session_id"`
	RequestID      *flexID  `json:"request_id"`
	Delay          *float64 `json:"delay"`
	DelayMs        *float64 `json:"delay_ms"`
	OutputTokenIDs []uint64 `json:"output_token_ids"`
	// agentic_mooncake legacy form
	WaitFor    []flexID `json:"wait_for"`
	ToolWaitMs *float64 `json:"tool_wait_ms"`
	// agentic_mooncake v2
	PlayID       *flexID   `json:"play_id"`
	NotBeforeMs  *float64  `json:"not_before_ms"`
	Dependencies *[]depRow `json:"dependencies"`
}

// depRow is one entry of a v2 row's dependencies.
type depRow struct {
	RequestID *flexID  `json:"request_id"`
	Trigger   *string  `json:"trigger"`
	DelayMs   *float64 `json:"delay_ms"`
	Relation  *string  `json:"relation"`
}

// rowCore is the validated common part of a mooncake-style row.
type rowCore struct {
	hasTS        bool
	ts           float64
	input        int // clamped to the synthesizable capacity
	output       int
	ids          []uint32 // interned hash ids
	hasSession   bool
	session      string
	hasRequestID bool
	requestID    string
	hasDelay     bool
	delay        float64
	outputIDs    []uint32 // nil unless output_token_ids was authored
}

// pickInt resolves a field and its alias.
func pickInt(a, b *int64, name, alias string) (*int64, string) {
	if a != nil && b != nil && *a != *b {
		return nil, name + " and its alias " + alias + " disagree; keep one of them"
	}
	if a != nil {
		return a, ""
	}
	return b, ""
}

// pickFloat resolves a field and its alias.
func pickFloat(a, b *float64, name, alias string) (*float64, string) {
	if a != nil && b != nil && *a != *b {
		return nil, name + " and its alias " + alias + " disagree; keep one of them"
	}
	if a != nil {
		return a, ""
	}
	return b, ""
}

// parseCore validates the fields shared by the mooncake-style formats.
func parseCore(r *mooncakeRow, file string, line int, in *interner, blockSize int) (rowCore, error) {
	var c rowCore
	ts, msg := pickFloat(r.Timestamp, r.CreatedTime, "timestamp", "created_time")
	if msg != "" {
		return c, rowError(file, line, "%s", msg)
	}
	if ts != nil {
		c.hasTS, c.ts = true, *ts
	}
	if r.HashIDs == nil {
		return c, rowError(file, line, "hash_ids is required (a list of prefix-block ids)")
	}
	if len(r.HashIDs) == 0 {
		return c, rowError(file, line, "hash_ids must not be empty; every request needs at least one prefix block")
	}
	limit := blockCapacity(len(r.HashIDs), blockSize)
	in64, msg := pickInt(r.InputLength, r.InputTokens, "input_length", "input_tokens")
	if msg != "" {
		return c, rowError(file, line, "%s", msg)
	}
	switch {
	case in64 == nil:
		c.input = limit
	case *in64 <= 0:
		return c, rowError(file, line, "input_length must be > 0, got %d", *in64)
	case *in64 > int64(limit):
		c.input = limit
	default:
		c.input = int(*in64)
	}
	out64, msg := pickInt(r.OutputLength, r.OutputTokens, "output_length", "output_tokens")
	if msg != "" {
		return c, rowError(file, line, "%s", msg)
	}
	if out64 == nil {
		return c, rowError(file, line, "output_length (alias output_tokens) is required")
	}
	if *out64 < 0 || *out64 > maxOutputTokens {
		return c, rowError(file, line, "output_length must be between 0 and %d, got %d", maxOutputTokens, *out64)
	}
	c.output = int(*out64)
	n := traceCeilDiv(c.input, blockSize)
	c.ids = make([]uint32, n)
	for i := 0; i < n; i++ {
		c.ids[i] = in.id(r.HashIDs[i])
	}
	// Ids past the synthesized prompt still name blocks; intern them so first-seen order
	// matches the file.
	for _, h := range r.HashIDs[n:] {
		in.id(h)
	}
	if r.SessionID != nil && *r.SessionID != "" {
		c.hasSession, c.session = true, string(*r.SessionID)
	}
	if r.RequestID != nil {
		c.hasRequestID, c.requestID = true, string(*r.RequestID)
	}
	d, msg := pickFloat(r.Delay, r.DelayMs, "delay", "delay_ms")
	if msg != "" {
		return c, rowError(file, line, "%s", msg)
	}
	if d != nil {
		if *d < 0 || math.IsInf(*d, 0) || math.IsNaN(*d) {
			return c, rowError(file, line, "delay must be a finite number of milliseconds >= 0, got %s", fmtMs(*d))
		}
		c.hasDelay, c.delay = true, *d
	}
	if r.OutputTokenIDs != nil {
		if len(r.OutputTokenIDs) != c.output {
			return c, rowError(file, line, "output_token_ids has %d ids but output_length is %d; they must match", len(r.OutputTokenIDs), c.output)
		}
		c.outputIDs = make([]uint32, len(r.OutputTokenIDs))
		for i, t := range r.OutputTokenIDs {
			if t > math.MaxUint32 {
				return c, rowError(file, line, "output_token_ids[%d] = %d does not fit a 32-bit token id", i, t)
			}
			c.outputIDs[i] = uint32(t)
		}
	}
	return c, nil
}

// loadMooncake reads a mooncake or mooncake-delta trace (docs/traces.md, "mooncake" and "mooncake-delta").
func (c *traceCtx) loadMooncake(delta bool) (*Workload, error) {
	file := c.src.Paths[0]
	lr, err := c.openTrace(file)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	in := newInterner()
	var fast mooncakeRowDecoder

	type build struct {
		firstTS   float64
		prevTS    float64
		prevHasTS bool
		full      []Segment // mooncake-delta: the growing full prompt
		prevInput int
		prevOut   []Segment // mooncake-delta: the previous turn's output tokens
		prevOutN  int
	}
	var sessions []Session
	var builds []build
	// Sessions by id. A row without session_id is a session of its own, "request_<line>",
	// which only a row naming that id explicitly can join: those sessions enter the index
	// only once a row with a session_id appears (most traces have none, and hashing and
	// storing one string per row was a visible part of loading them).
	index := make(map[string]int)
	var unindexed []int // sessions of rows without session_id, not yet in index
	named := false      // a row with a session_id has been read
	for {
		b, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		line := lr.line
		var r mooncakeRow
		if !fast.decode(b, &r) {
			r = mooncakeRow{}
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, jsonError(file, line, err)
			}
		}
		core, err := parseCore(&r, file, line, in, c.blockSize)
		if err != nil {
			return nil, err
		}
		sid := core.session
		if !core.hasSession {
			sid = "request_" + strconv.Itoa(line)
		} else if !named {
			named = true
			for _, i := range unindexed {
				index[sessions[i].ID] = i
			}
			unindexed = nil
		}
		si, seen := 0, false
		if named {
			si, seen = index[sid]
		}
		turn := Turn{OutputLength: core.output}
		if core.hasRequestID {
			turn.RequestID = core.requestID
		}
		if core.outputIDs != nil {
			turn.OutputTokens = segmentsOf(core.outputIDs)
		}
		if !seen {
			if core.hasDelay && core.delay != 0 {
				return nil, rowError(file, line, "the first turn of session %q has delay %s; a session's first turn starts at its timestamp, remove the delay", sid, fmtMs(core.delay))
			}
			if c.timestamps && !core.hasTS {
				return nil, rowError(file, line, "the first turn of session %q has no timestamp; a trace_timestamps load needs one on every session's first turn (or use a concurrency load)", sid)
			}
			si = len(sessions)
			if named {
				index[sid] = si
			} else {
				unindexed = append(unindexed, si)
			}
			sessions = append(sessions, Session{ID: sid})
			builds = append(builds, build{firstTS: core.ts})
			turn.InputLength = core.input
		} else {
			bs := &builds[si]
			d := 0.0
			switch {
			case core.hasDelay:
				d = core.delay
			case core.hasTS && bs.prevHasTS:
				d = core.ts - bs.prevTS
				if d < 0 || math.IsInf(d, 0) {
					return nil, rowError(file, line, "timestamp %s is before the previous turn of session %q (%s); later turns must not go back in time (or give an explicit delay)", fmtMs(core.ts), sid, fmtMs(bs.prevTS))
				}
			}
			turn.DelayMs = d / c.speedup
			turn.InputLength = core.input
			if delta {
				total := bs.prevInput + bs.prevOutN + core.input
				if total > maxContextTokens {
					return nil, rowError(file, line, "the accumulated prompt of session %q reaches %d tokens, more than the supported %d", sid, total, maxContextTokens)
				}
				turn.InputLength = total
			}
		}
		bs := &builds[si]
		ti := len(sessions[si].Turns)
		if delta {
			if ti > 0 {
				bs.full = append(bs.full, bs.prevOut...)
			}
			bs.full = synthPrompt(bs.full, core.ids, c.blockSize, core.input)
			turn.Prompt = bs.full[:len(bs.full):len(bs.full)]
			if turn.OutputTokens == nil && core.output > 0 {
				turn.OutputTokens = []Segment{{Token: deltaOutputToken(si, ti), Count: core.output}}
			}
			bs.prevOut = turn.OutputTokens
			bs.prevOutN = core.output
			bs.prevInput = turn.InputLength
		} else {
			turn.Prompt = synthPrompt(make([]Segment, 0, len(core.ids)), core.ids, c.blockSize, core.input)
		}
		bs.prevTS, bs.prevHasTS = core.ts, core.hasTS
		sessions[si].Turns = append(sessions[si].Turns, turn)
	}
	if len(sessions) == 0 {
		return nil, emptyError(file)
	}
	if c.timestamps {
		min := builds[0].firstTS
		for _, b := range builds[1:] {
			if b.firstTS < min {
				min = b.firstTS
			}
		}
		for i := range sessions {
			a := (builds[i].firstTS - min) / c.speedup
			if math.IsInf(a, 0) {
				return nil, fileError(file, "session %q starts %s ms after the earliest session; timestamps out of range", sessions[i].ID, fmtMs(builds[i].firstTS-min))
			}
			sessions[i].ArrivalMs = a
		}
	}
	return c.sessionWorkload(sessions)
}
