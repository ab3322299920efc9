package traffic

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path"
	"sort"
	"strings"
)

// A weka (AgentX) corpus is one trace file or a directory of them (docs/traces.md, "weka").
// A .json file holds one trace object, a .jsonl file one per line; each trace object is one
// play: {id, models, block_size, hash_id_scope: "local", requests: [...]} where a request is
// {type: "n"|"s", t (seconds), model, in, out, hash_ids, api_time (seconds or null)} and a
// subagent is {type: "subagent", t, agent_id, status, duration_ms, requests: [...]}.

// wekaEntry is one element of a trace's or a subagent's requests list.
type wekaEntry struct {
	Type    *string  `json:"type"`
	T       *float64 `json:"t"`
	Model   *string  `json:"model"`
	In      *int64   `json:"in"`
	Out     *int64   `json:"out"`
	HashIDs []uint64 `json:"hash_ids"`
	APITime *float64 `json:"api_time"`
	// subagent markers only
	AgentID    *string     `json:"agent_id"`
	Status     *string     `json:"status"`
	DurationMs *float64    `json:"duration_ms"`
	Requests   []wekaEntry `json:"requests"`
}

// wekaTrace is one trace object (one play).
type wekaTrace struct {
	ID          *string     `json:"id"`
	Models      []string    `json:"models"`
	BlockSize   *int64      `json:"block_size"`
	HashIDScope *string     `json:"hash_id_scope"`
	Requests    []wekaEntry `json:"requests"`
}

// wekaPlay is a parsed trace object with where it came from.
type wekaPlay struct {
	trace wekaTrace
	// source names the play in hash and request ids: the file's path below the corpus root,
	// with "#<object index>" for a .jsonl file.
	source string
	// at is the error location: "<file>" or "<file>:<line>".
	at string
}

// Subagent statuses: a completed subagent blocks its parent, which resumes after it; an
// async_launched one runs in the background.
const (
	wekaBlocking   = "completed"
	wekaBackground = "async_launched"
)

// wekaJoinEpsilon is the tolerance, in seconds, of timestamp comparisons (recorded times are
// rounded by their producer).
const wekaJoinEpsilon = 1e-6

// loadWeka reads a weka corpus and lowers it to an agentic graph (docs/traces.md, "weka").
func (c *traceCtx) loadWeka() (*Workload, error) {
	root := c.src.Paths[0]
	plays, err := c.readWekaCorpus(root)
	if err != nil {
		return nil, err
	}
	blockSize := 0
	relative := false
	for i := range plays {
		p := &plays[i]
		bs, err := checkWekaTrace(p)
		if err != nil {
			return nil, err
		}
		if blockSize == 0 {
			blockSize = bs
		} else if bs != blockSize {
			return nil, fileError(p.at, "block_size %d differs from %d used by %s; a corpus has one block size", bs, blockSize, plays[0].at)
		}
		relative = relative || wekaRelativeWitness(&p.trace)
	}
	if c.src.BlockSize != nil && *c.src.BlockSize != blockSize {
		return nil, &Error{BlockSize: true, Msg: fmt.Sprintf("%s: block_size %d differs from traffic.source.block_size %d; remove block_size (it is taken from the trace) or set it to %d", root, blockSize, *c.src.BlockSize, blockSize)}
	}
	switch c.src.NestedTimestampBasis {
	case "absolute":
		relative = false
	case "relative":
		relative = true
	}
	var nodes []Node
	ids := &wekaBlockIDs{}
	for i := range plays {
		if nodes, err = c.lowerWekaPlay(&plays[i], blockSize, relative, ids, nodes); err != nil {
			return nil, err
		}
	}
	if i, ok := findCycle(nodes); ok {
		return nil, fileError(root, "request %q is part of a dependency cycle; the recorded times contradict each other", nodes[i].RequestID)
	}
	return c.graphWorkload(nodes), nil
}

// readWekaCorpus parses every trace object of a file or of a directory's .json/.jsonl files
// (recursively, in the byte order of their slash paths below the directory).
func (c *traceCtx) readWekaCorpus(root string) ([]wekaPlay, error) {
	info, err := fs.Stat(c.files, root)
	if err != nil {
		return nil, fileError(root, "cannot open trace file or directory (%s); check traffic.source.paths", unwrapPathError(err))
	}
	type file struct{ name, rel string }
	var files []file
	if info.IsDir() {
		err := fs.WalkDir(c.files, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.Type().IsRegular() && wekaExtension(p) {
				files = append(files, file{p, strings.TrimPrefix(p, root+"/")})
			}
			return nil
		})
		if err != nil {
			return nil, fileError(root, "cannot read the directory (%s)", unwrapPathError(err))
		}
		sort.Slice(files, func(a, b int) bool { return files[a].rel < files[b].rel })
		if len(files) == 0 {
			return nil, fileError(root, "the directory holds no .json or .jsonl trace files")
		}
	} else {
		if !wekaExtension(root) {
			return nil, fileError(root, "a weka trace file must end in .json (one trace) or .jsonl (one trace per line)")
		}
		files = []file{{root, path.Base(root)}}
	}
	var plays []wekaPlay
	for _, f := range files {
		var err error
		if strings.HasSuffix(strings.ToLower(f.name), ".jsonl") {
			plays, err = c.readWekaLines(f.name, f.rel, plays)
		} else {
			plays, err = c.readWekaObject(f.name, f.rel, plays)
		}
		if err != nil {
			return nil, err
		}
	}
	return plays, nil
}

func wekaExtension(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".json" || ext == ".jsonl"
}

// readWekaObject reads a .json file: exactly one trace object.
func (c *traceCtx) readWekaObject(name, rel string, plays []wekaPlay) ([]wekaPlay, error) {
	f, err := c.files.Open(name)
	if err != nil {
		return nil, fileError(name, "cannot open trace file (%s); check traffic.source.paths", unwrapPathError(err))
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	var t wekaTrace
	if err := dec.Decode(&t); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, emptyError(name)
		}
		return nil, fileError(name, "invalid JSON trace object (%s)", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return nil, fileError(name, "holds more than one JSON object; a .json file is one trace, use a .jsonl file (one trace per line) for several")
	}
	return append(plays, wekaPlay{trace: t, source: rel, at: name}), nil
}

// readWekaLines reads a .jsonl file: one trace object per non-blank line.
func (c *traceCtx) readWekaLines(name, rel string, plays []wekaPlay) ([]wekaPlay, error) {
	lr, err := c.openTrace(name)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	n := 0
	for {
		b, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		var t wekaTrace
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, jsonError(name, lr.line, err)
		}
		plays = append(plays, wekaPlay{trace: t, source: fmt.Sprintf("%s#%06d", rel, n), at: fmt.Sprintf("%s:%d", name, lr.line)})
		n++
	}
	if n == 0 {
		return nil, emptyError(name)
	}
	return plays, nil
}

// checkWekaTrace validates one trace object and returns its block size.
func checkWekaTrace(p *wekaPlay) (int, error) {
	t := &p.trace
	if t.ID == nil || strings.TrimSpace(*t.ID) == "" {
		return 0, fileError(p.at, "id is required and must be non-empty (it names the play)")
	}
	if t.BlockSize == nil || *t.BlockSize <= 0 || *t.BlockSize > maxContextTokens {
		return 0, fileError(p.at, "trace %q: block_size is required and must be a positive number of tokens", *t.ID)
	}
	if t.HashIDScope == nil || *t.HashIDScope != "local" {
		return 0, fileError(p.at, "trace %q: hash_id_scope must be \"local\" (hash ids are private to their trace)", *t.ID)
	}
	declared := map[string]bool{}
	for _, m := range t.Models {
		if strings.TrimSpace(m) == "" {
			return 0, fileError(p.at, "trace %q: models lists an empty name", *t.ID)
		}
		declared[m] = true
	}
	count := 0
	for i := range t.Requests {
		e := &t.Requests[i]
		where := fmt.Sprintf("requests[%d]", i)
		if e.Type != nil && *e.Type == "subagent" {
			if err := checkWekaSubagent(p, e, where); err != nil {
				return 0, err
			}
			for j := range e.Requests {
				if err := checkWekaRequest(p, &e.Requests[j], fmt.Sprintf("%s.requests[%d]", where, j), declared, false); err != nil {
					return 0, err
				}
			}
			count += len(e.Requests)
			continue
		}
		if err := checkWekaRequest(p, e, where, declared, true); err != nil {
			return 0, err
		}
		count++
	}
	if count == 0 {
		return 0, fileError(p.at, "trace %q has no model requests", *t.ID)
	}
	return int(*t.BlockSize), nil
}

// checkWekaRequest validates a request entry; outer says whether subagent markers are allowed.
func checkWekaRequest(p *wekaPlay, e *wekaEntry, where string, declared map[string]bool, outer bool) error {
	id := *p.trace.ID
	if e.Type == nil || (*e.Type != "n" && *e.Type != "s") {
		got := "none"
		if e.Type != nil {
			got = fmt.Sprintf("%q", *e.Type)
		}
		allowed := `"n" or "s"`
		if outer {
			allowed = `"n", "s" or "subagent"`
		}
		return fileError(p.at, "trace %q: %s: type is %s; use %s", id, where, got, allowed)
	}
	if e.T == nil || !(*e.T >= 0) || math.IsInf(*e.T, 0) {
		return fileError(p.at, "trace %q: %s: t is required and must be a finite number of seconds >= 0", id, where)
	}
	if e.Model == nil || strings.TrimSpace(*e.Model) == "" {
		return fileError(p.at, "trace %q: %s: model is required and must be non-empty", id, where)
	}
	if len(declared) > 0 && !declared[*e.Model] {
		return fileError(p.at, "trace %q: %s: model %q is not in the trace's models list", id, where, *e.Model)
	}
	if e.In == nil || *e.In <= 0 || *e.In > maxContextTokens {
		return fileError(p.at, "trace %q: %s: in is required and must be between 1 and %d tokens", id, where, maxContextTokens)
	}
	if e.Out == nil || *e.Out < 0 || *e.Out > maxOutputTokens {
		return fileError(p.at, "trace %q: %s: out is required and must be between 0 (prefill only) and %d tokens", id, where, maxOutputTokens)
	}
	if e.APITime != nil && (!(*e.APITime >= 0) || math.IsInf(*e.APITime, 0)) {
		return fileError(p.at, "trace %q: %s: api_time must be a finite number of seconds >= 0 or null", id, where)
	}
	return nil
}

// checkWekaSubagent validates a subagent marker.
func checkWekaSubagent(p *wekaPlay, e *wekaEntry, where string) error {
	id := *p.trace.ID
	if e.T == nil || !(*e.T >= 0) || math.IsInf(*e.T, 0) {
		return fileError(p.at, "trace %q: %s: the subagent's t is required and must be a finite number of seconds >= 0", id, where)
	}
	if e.AgentID == nil || strings.TrimSpace(*e.AgentID) == "" {
		return fileError(p.at, "trace %q: %s: agent_id is required and must be non-empty", id, where)
	}
	if e.DurationMs != nil && (!(*e.DurationMs >= 0) || math.IsInf(*e.DurationMs, 0)) {
		return fileError(p.at, "trace %q: %s: duration_ms of subagent %q must be a finite number >= 0", id, where, *e.AgentID)
	}
	switch {
	case e.Status == nil:
		return fileError(p.at, "trace %q: %s: status of subagent %q is required (completed or async_launched)", id, where, *e.AgentID)
	case *e.Status == wekaBlocking:
		if len(e.Requests) == 0 {
			return fileError(p.at, "trace %q: %s: completed subagent %q has no requests; a parent waiting on work outside the trace cannot be replayed", id, where, *e.AgentID)
		}
	case *e.Status == wekaBackground:
	default:
		return fileError(p.at, "trace %q: %s: subagent %q has status %q; only completed and async_launched subagents can be replayed", id, where, *e.AgentID, *e.Status)
	}
	return nil
}

// wekaRelativeWitness reports whether a subagent's request starts before its marker, which
// only relative nested timestamps explain (nested_timestamp_basis: auto).
func wekaRelativeWitness(t *wekaTrace) bool {
	for i := range t.Requests {
		e := &t.Requests[i]
		if e.Type == nil || *e.Type != "subagent" {
			continue
		}
		for j := range e.Requests {
			if *e.Requests[j].T < *e.T-wekaJoinEpsilon {
				return true
			}
		}
	}
	return false
}
