package traffic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// dynamoSchema is the schema tag of Dynamo request trace v1 records.
const dynamoSchema = "dynamo.request.trace.v1"

// dynRecord is one line of a Dynamo request trace, possibly wrapped as {"event": {...}}.
type dynRecord struct {
	Event           json.RawMessage  `json:"event"`
	Schema          *string          `json:"schema"`
	EventType       *string          `json:"event_type"`
	EventTimeUnixMs *float64         `json:"event_time_unix_ms"`
	AgentContext    *dynAgentContext `json:"agent_context"`
	Request         *dynRequest      `json:"request"`
	Tool            *dynTool         `json:"tool"`
}

type dynAgentContext struct {
	SessionID       *flexID `json:"session_id"`
	ParentSessionID *flexID `json:"parent_session_id"`
}

type dynRequest struct {
	RequestID         *flexID    `json:"request_id"`
	OutputTokens      *int64     `json:"output_tokens"`
	InputTokens       *int64     `json:"input_tokens"`
	RequestReceivedMs *float64   `json:"request_received_ms"`
	TotalTimeMs       *float64   `json:"total_time_ms"`
	Replay            *dynReplay `json:"replay"`
}

type dynReplay struct {
	TraceBlockSize      *int64   `json:"trace_block_size"`
	InputLength         *int64   `json:"input_length"`
	InputSequenceHashes []uint64 `json:"input_sequence_hashes"`
}

type dynTool struct {
	Claude *dynClaude `json:"claude"`
}

type dynClaude struct {
	SourceRequestID   *flexID `json:"source_request_id"`
	ConsumerRequestID *flexID `json:"consumer_request_id"`
	ChildSessionID    *flexID `json:"child_session_id"`
}

// dynReq is a validated request_end record.
type dynReq struct {
	file          string
	line          int
	id            string
	start, end    float64
	hasCtx        bool
	session       string
	parent        string
	input, output int
	hashes        []uint64
}

// dynLink is a tool event linking a source request to its consumer and/or a child session.
type dynLink struct {
	file               string
	line               int
	source, consumer   string
	child              string
	hasConsumer, hasCh bool
}

// loadDynamo reads Dynamo request trace v1 shards (docs/traces.md, "dynamo").
func (c *traceCtx) loadDynamo() (*Workload, error) {
	var reqs []dynReq
	var links []dynLink
	where := make(map[string]int) // request id -> index in reqs
	blockSize, bsAt := 0, ""
	ctxMode, ctxAt := false, ""
	for _, file := range c.src.Paths {
		if err := c.readDynamoShard(file, &reqs, &links, where, &blockSize, &bsAt, &ctxMode, &ctxAt); err != nil {
			return nil, err
		}
	}
	if len(reqs) == 0 {
		return nil, &Error{Msg: fmt.Sprintf("%s: did not contain any requests (no request_end records)", joinPaths(c.src.Paths))}
	}
	order := make([]int, len(reqs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool {
		x, y := &reqs[order[a]], &reqs[order[b]]
		if x.start != y.start {
			return x.start < y.start
		}
		if x.end != y.end {
			return x.end < y.end
		}
		return x.id < y.id
	})
	sorted := make([]dynReq, len(reqs))
	for i, o := range order {
		sorted[i] = reqs[o]
	}
	reqs = nil
	first := sorted[0].start
	in := newInterner()
	turns := make([]Turn, len(sorted))
	for i := range sorted {
		r := &sorted[i]
		ids := make([]uint32, len(r.hashes))
		for k, h := range r.hashes {
			ids[k] = in.id(h)
		}
		r.hashes = nil
		turns[i] = Turn{
			InputLength:  r.input,
			OutputLength: r.output,
			Prompt:       synthPrompt(make([]Segment, 0, len(ids)), ids, blockSize, r.input),
			RequestID:    r.id,
		}
	}
	if !ctxMode {
		sessions := make([]Session, len(sorted))
		for i := range sorted {
			sessions[i] = Session{ID: "request_" + strconv.Itoa(i+1), Turns: []Turn{turns[i]}}
			if c.timestamps {
				a := (sorted[i].start - first) / c.speedup
				if math.IsInf(a, 0) {
					return nil, rowError(sorted[i].file, sorted[i].line, "request time out of range")
				}
				sessions[i].ArrivalMs = a
			}
		}
		return c.sessionWorkload(sessions)
	}
	return c.dynamoGraph(sorted, turns, links, first)
}

func joinPaths(p []string) string {
	var b bytes.Buffer
	for i, s := range p {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// readDynamoShard validates and collects the records of one shard.
func (c *traceCtx) readDynamoShard(file string, reqs *[]dynReq, links *[]dynLink, where map[string]int,
	blockSize *int, bsAt *string, ctxMode *bool, ctxAt *string) error {
	lr, err := c.openTrace(file)
	if err != nil {
		return err
	}
	defer lr.Close()
	for {
		b, ok, err := lr.next()
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		line := lr.line
		var rec dynRecord
		if err := json.Unmarshal(b, &rec); err != nil {
			return jsonError(file, line, err)
		}
		if rec.EventType == nil && len(rec.Event) > 0 && !bytes.Equal(rec.Event, []byte("null")) {
			inner := rec.Event
			rec = dynRecord{}
			if err := json.Unmarshal(inner, &rec); err != nil {
				return jsonError(file, line, err)
			}
		}
		if rec.EventType == nil {
			return rowError(file, line, "record has no event_type; a dynamo trace record needs one of request_end, tool_end, tool_error, tool_start, request_payload")
		}
		et := *rec.EventType
		switch et {
		case "request_payload", "tool_start":
			continue
		case "request_end", "tool_end", "tool_error":
		default:
			return rowError(file, line, "unknown event_type %q; use request_end, tool_end, tool_error, tool_start or request_payload", et)
		}
		if rec.Schema == nil || *rec.Schema != dynamoSchema {
			got := "none"
			if rec.Schema != nil {
				got = strconv.Quote(*rec.Schema)
			}
			return rowError(file, line, "schema is %s; dynamo trace records need \"schema\": %q", got, dynamoSchema)
		}
		if et != "request_end" {
			if rec.Tool == nil || rec.Tool.Claude == nil || rec.Tool.Claude.SourceRequestID == nil {
				continue
			}
			cl := rec.Tool.Claude
			l := dynLink{file: file, line: line, source: string(*cl.SourceRequestID)}
			if cl.ConsumerRequestID != nil {
				l.consumer, l.hasConsumer = string(*cl.ConsumerRequestID), true
			}
			if cl.ChildSessionID != nil {
				l.child, l.hasCh = string(*cl.ChildSessionID), true
			}
			*links = append(*links, l)
			continue
		}
		r, err := c.dynamoRequest(&rec, file, line)
		if err != nil {
			return err
		}
		at := file + ":" + strconv.Itoa(line)
		if *bsAt == "" {
			if c.src.BlockSize != nil && *c.src.BlockSize != r.blockSize {
				return &Error{BlockSize: true, Msg: fmt.Sprintf("%s: trace_block_size %d differs from traffic.source.block_size %d; remove block_size (it is taken from the trace) or set it to %d", at, r.blockSize, *c.src.BlockSize, r.blockSize)}
			}
			*blockSize, *bsAt = r.blockSize, at
			*ctxMode, *ctxAt = r.hasCtx, at
		} else {
			if r.blockSize != *blockSize {
				return rowError(file, line, "trace_block_size %d differs from %d used at %s; all records of a dynamo trace must share one block size", r.blockSize, *blockSize, *bsAt)
			}
			if r.hasCtx != *ctxMode {
				return rowError(file, line, "agent_context is %s here but %s at %s; either every request_end record carries agent_context or none does", presence(r.hasCtx), presence(*ctxMode), *ctxAt)
			}
		}
		if prev, dup := where[r.id]; dup {
			p := &(*reqs)[prev]
			return rowError(file, line, "duplicate request_id %q (first at %s:%d); request ids must be unique across all shards", r.id, p.file, p.line)
		}
		where[r.id] = len(*reqs)
		*reqs = append(*reqs, r.dynReq)
	}
}

func presence(b bool) string {
	if b {
		return "present"
	}
	return "absent"
}

// dynReqBS is a validated request with its block size.
type dynReqBS struct {
	dynReq
	blockSize int
}

// dynamoRequest validates a request_end record.
func (c *traceCtx) dynamoRequest(rec *dynRecord, file string, line int) (dynReqBS, error) {
	var r dynReqBS
	r.file, r.line = file, line
	q := rec.Request
	if q == nil {
		return r, rowError(file, line, "request_end record has no request object")
	}
	if q.RequestID == nil || *q.RequestID == "" {
		return r, rowError(file, line, "request.request_id is required and must be non-empty")
	}
	r.id = string(*q.RequestID)
	if q.OutputTokens == nil || *q.OutputTokens <= 0 || *q.OutputTokens > maxOutputTokens {
		return r, rowError(file, line, "request.output_tokens is required and must be between 1 and %d", maxOutputTokens)
	}
	r.output = int(*q.OutputTokens)
	p := q.Replay
	if p == nil {
		return r, rowError(file, line, "request.replay is required (trace_block_size, input_length, input_sequence_hashes)")
	}
	if p.TraceBlockSize == nil || *p.TraceBlockSize <= 0 || *p.TraceBlockSize > maxContextTokens {
		return r, rowError(file, line, "request.replay.trace_block_size is required and must be between 1 and %d", maxContextTokens)
	}
	r.blockSize = int(*p.TraceBlockSize)
	if p.InputLength == nil || *p.InputLength <= 0 {
		return r, rowError(file, line, "request.replay.input_length is required and must be > 0")
	}
	if q.InputTokens != nil && *q.InputTokens != *p.InputLength {
		return r, rowError(file, line, "request.input_tokens %d differs from request.replay.input_length %d; they must be equal", *q.InputTokens, *p.InputLength)
	}
	want := (*p.InputLength + int64(r.blockSize) - 1) / int64(r.blockSize)
	if int64(len(p.InputSequenceHashes)) != want {
		return r, rowError(file, line, "request.replay.input_sequence_hashes has %d hashes but input_length %d needs ceil(%d/%d) = %d", len(p.InputSequenceHashes), *p.InputLength, *p.InputLength, r.blockSize, want)
	}
	r.input = int(*p.InputLength)
	r.hashes = p.InputSequenceHashes
	if q.TotalTimeMs != nil && (*q.TotalTimeMs < 0 || math.IsInf(*q.TotalTimeMs, 0)) {
		return r, rowError(file, line, "request.total_time_ms must be a finite number >= 0")
	}
	switch {
	case q.RequestReceivedMs != nil:
		r.start = *q.RequestReceivedMs
	case rec.EventTimeUnixMs != nil && q.TotalTimeMs != nil:
		r.start = *rec.EventTimeUnixMs - *q.TotalTimeMs
	case rec.EventTimeUnixMs != nil:
		r.start = *rec.EventTimeUnixMs
	default:
		return r, rowError(file, line, "request_end needs request.request_received_ms or event_time_unix_ms to place the request in time")
	}
	switch {
	case q.TotalTimeMs != nil:
		r.end = r.start + *q.TotalTimeMs
	case rec.EventTimeUnixMs != nil:
		r.end = *rec.EventTimeUnixMs
	default:
		r.end = r.start
	}
	if r.end < r.start {
		r.end = r.start
	}
	if ac := rec.AgentContext; ac != nil {
		if ac.SessionID == nil || *ac.SessionID == "" {
			return r, rowError(file, line, "agent_context.session_id is required and must be non-empty")
		}
		r.hasCtx = true
		r.session = string(*ac.SessionID)
		if ac.ParentSessionID != nil {
			r.parent = string(*ac.ParentSessionID)
		}
	}
	return r, nil
}

// dynamoGraph converts agentic dynamo requests (sorted by start, end, id) to a dependency
// graph: sessions chain sequentially, child sessions are spawned by a source request and
// joined into a consumer request (from tool.claude links, else inferred from timestamps).
// Every dependency points from an earlier node to a later one, so the graph is acyclic.
func (c *traceCtx) dynamoGraph(reqs []dynReq, turns []Turn, links []dynLink, first float64) (*Workload, error) {
	n := len(reqs)
	nodes := make([]Node, n)
	byID := make(map[string]int, n)
	sessNodes := make(map[string][]int)
	var sessOrder []string
	for i := range reqs {
		r := &reqs[i]
		byID[r.id] = i
		list, ok := sessNodes[r.session]
		if !ok {
			sessOrder = append(sessOrder, r.session)
		}
		nodes[i] = Node{Turn: turns[i], SessionID: r.session, TurnIndex: len(list)}
		sessNodes[r.session] = append(list, i)
	}
	addDep := func(child, parent int, onCompletion bool, delay float64) {
		if parent >= child {
			return // contradicts the recorded timeline; dropped
		}
		if delay < 0 {
			delay = 0
		}
		nodes[child].Deps = append(nodes[child].Deps, Dep{Parent: parent, OnCompletion: onCompletion, DelayMs: delay / c.speedup})
	}
	// Sequence within each session.
	for _, s := range sessOrder {
		list := sessNodes[s]
		for k := 1; k < len(list); k++ {
			p, q := list[k-1], list[k]
			addDep(q, p, true, reqs[q].start-reqs[p].end)
		}
	}
	// Tool links.
	childLink := make(map[string]dynLink)
	for _, l := range links {
		src, ok := byID[l.source]
		if !ok {
			return nil, rowError(l.file, l.line, "tool.claude.source_request_id %q names no request_end record of the trace", l.source)
		}
		cons := -1
		if l.hasConsumer {
			cc, ok := byID[l.consumer]
			if !ok {
				return nil, rowError(l.file, l.line, "tool.claude.consumer_request_id %q names no request_end record of the trace", l.consumer)
			}
			cons = cc
		}
		if l.hasCh {
			if _, ok := sessNodes[l.child]; !ok {
				return nil, rowError(l.file, l.line, "tool.claude.child_session_id %q names no session of the trace", l.child)
			}
			if _, dup := childLink[l.child]; !dup {
				childLink[l.child] = l
			}
			continue
		}
		// A tool call inside one session: the consumer waits for the source's completion
		// unless that is already its sequence predecessor.
		if cons < 0 || reqs[cons].session != reqs[src].session {
			continue
		}
		if t := nodes[cons].TurnIndex; t > 0 && sessNodes[reqs[cons].session][t-1] == src {
			continue
		}
		addDep(cons, src, true, reqs[cons].start-reqs[src].end)
	}
	// Child sessions: spawn from the source, join into the consumer.
	play := make(map[string]string, len(sessOrder))
	for _, s := range sessOrder {
		list := sessNodes[s]
		cf, cl := list[0], list[len(list)-1]
		src, cons := -1, -1
		parentSess := ""
		if l, ok := childLink[s]; ok {
			src = byID[l.source]
			parentSess = reqs[src].session
			if l.hasConsumer {
				cons = byID[l.consumer]
			} else {
				cons = firstAfter(sessNodes[parentSess], reqs, cl)
			}
		} else if p := reqs[cf].parent; p != "" && p != s {
			if pl, ok := sessNodes[p]; ok {
				parentSess = p
				src = lastBefore(pl, reqs, cf)
				cons = firstAfter(pl, reqs, cl)
			}
		}
		play[s] = s
		if src < 0 || src >= cf || parentSess == s {
			continue
		}
		addDep(cf, src, false, reqs[cf].start-reqs[src].start)
		play[s] = play[parentSess]
		if cons > cl {
			addDep(cons, cl, true, reqs[cons].start-reqs[cl].end)
		}
	}
	for i := range nodes {
		nodes[i].PlayID = play[nodes[i].SessionID]
		if len(nodes[i].Deps) == 0 {
			nb := (reqs[i].start - first) / c.speedup
			if math.IsInf(nb, 0) {
				return nil, rowError(reqs[i].file, reqs[i].line, "request time out of range")
			}
			nodes[i].NotBeforeMs = nb
		}
	}
	return c.graphWorkload(nodes), nil
}

// lastBefore is the last node of list (sorted) that started no later than node at, or -1.
func lastBefore(list []int, reqs []dynReq, at int) int {
	best := -1
	for _, i := range list {
		if i < at && reqs[i].start <= reqs[at].start {
			best = i
		}
	}
	return best
}

// firstAfter is the first node of list that starts at or after node at ended, or -1.
func firstAfter(list []int, reqs []dynReq, at int) int {
	for _, i := range list {
		if i > at && reqs[i].start >= reqs[at].end {
			return i
		}
	}
	return -1
}
