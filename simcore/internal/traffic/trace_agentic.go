package traffic

import (
	"encoding/json"
	"math"
	"strconv"
)

// agenticSchema is the header schema tag of an agentic_mooncake v2 trace.
const agenticSchema = "dynamo.agentic_mooncake"

// agenticHeader is the first line of an agentic_mooncake v2 trace.
type agenticHeader struct {
	Schema      *string         `json:"schema"`
	Version     *int64          `json:"version"`
	BlockSize   *int64          `json:"block_size"`
	HashIDScope *string         `json:"hash_id_scope"`
	Source      json.RawMessage `json:"source"`
}

// pendingDep is a dependency by request id, resolved once the whole file is read.
type pendingDep struct {
	parent       string
	onCompletion bool
	delayMs      float64
}

// graphBuild collects nodes with their source lines and unresolved dependencies.
type graphBuild struct {
	file  string
	nodes []Node
	lines []int
	deps  [][]pendingDep
	index map[string]int // request id -> node
}

// resolve turns request-id dependencies into node indices, rejecting unknown ids,
// self-dependencies and cycles. samePlay additionally requires parent and child to share a
// play (v2).
func (g *graphBuild) resolve(samePlay bool) error {
	for i := range g.nodes {
		for _, d := range g.deps[i] {
			p, ok := g.index[d.parent]
			if !ok {
				return rowError(g.file, g.lines[i], "request %q depends on unknown request_id %q; every dependency must name a request of the trace", g.nodes[i].RequestID, d.parent)
			}
			if p == i {
				return rowError(g.file, g.lines[i], "request %q depends on itself; remove the self-dependency", d.parent)
			}
			if samePlay && g.nodes[p].PlayID != g.nodes[i].PlayID {
				return rowError(g.file, g.lines[i], "request %q (play %q) depends on %q of play %q; dependencies must stay inside one play", g.nodes[i].RequestID, g.nodes[i].PlayID, d.parent, g.nodes[p].PlayID)
			}
			g.nodes[i].Deps = append(g.nodes[i].Deps, Dep{Parent: p, OnCompletion: d.onCompletion, DelayMs: d.delayMs})
		}
	}
	if i, ok := findCycle(g.nodes); ok {
		return rowError(g.file, g.lines[i], "request %q is part of a dependency cycle; the dependency graph must be acyclic", g.nodes[i].RequestID)
	}
	return nil
}

// findCycle returns a node on a dependency cycle, if any (Kahn's algorithm).
func findCycle(nodes []Node) (int, bool) {
	indeg := make([]int, len(nodes))
	children := make([][]int32, len(nodes))
	for i := range nodes {
		indeg[i] = len(nodes[i].Deps)
		for _, d := range nodes[i].Deps {
			children[d.Parent] = append(children[d.Parent], int32(i))
		}
	}
	queue := make([]int32, 0, len(nodes))
	for i, d := range indeg {
		if d == 0 {
			queue = append(queue, int32(i))
		}
	}
	done := 0
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		done++
		for _, ch := range children[n] {
			indeg[ch]--
			if indeg[ch] == 0 {
				queue = append(queue, ch)
			}
		}
	}
	if done == len(nodes) {
		return 0, false
	}
	for i, d := range indeg {
		if d > 0 {
			return i, true
		}
	}
	return 0, false
}

// checkDelay validates an authored delay in milliseconds.
func checkDelay(file string, line int, name string, v *float64) (float64, error) {
	if v == nil {
		return 0, nil
	}
	if *v < 0 || math.IsInf(*v, 0) || math.IsNaN(*v) {
		return 0, rowError(file, line, "%s must be a finite number of milliseconds >= 0, got %s", name, fmtMs(*v))
	}
	return *v, nil
}

// loadAgenticMooncake reads an agentic_mooncake trace: the v2 form with a header line and
// dependencies, or the legacy wait_for form (docs/traces.md, "agentic_mooncake").
func (c *traceCtx) loadAgenticMooncake() (*Workload, error) {
	file := c.src.Paths[0]
	lr, err := c.openTrace(file)
	if err != nil {
		return nil, err
	}
	defer lr.Close()
	in := newInterner()
	g := &graphBuild{file: file, index: make(map[string]int)}
	v2 := false
	first := true
	turnCount := make(map[string]int)
	// legacy: authored root timestamps, normalised after reading
	var ts []float64
	var hasTS []bool
	for {
		b, ok, err := lr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		line := lr.line
		if first {
			first = false
			var h agenticHeader
			if err := json.Unmarshal(b, &h); err != nil {
				return nil, jsonError(file, line, err)
			}
			if h.Schema != nil {
				if *h.Schema != agenticSchema {
					return nil, rowError(file, line, "unknown header schema %q; an agentic_mooncake v2 trace starts with {\"schema\": %q, \"version\": 2, ...}", *h.Schema, agenticSchema)
				}
				if h.Version == nil || *h.Version != 2 {
					return nil, rowError(file, line, "unsupported agentic_mooncake header version; this simulator reads version 2")
				}
				if h.BlockSize == nil || *h.BlockSize <= 0 {
					return nil, rowError(file, line, "the header needs a positive block_size")
				}
				if *h.BlockSize != int64(c.blockSize) {
					return nil, rowError(file, line, "header block_size %d differs from traffic.source.block_size %d; set traffic.source.block_size: %d", *h.BlockSize, c.blockSize, *h.BlockSize)
				}
				if h.HashIDScope != nil && *h.HashIDScope != "local" {
					return nil, rowError(file, line, "hash_id_scope %q is not supported; only \"local\" is", *h.HashIDScope)
				}
				v2 = true
				continue
			}
		}
		var r mooncakeRow
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, jsonError(file, line, err)
		}
		core, err := parseCore(&r, file, line, in, c.blockSize)
		if err != nil {
			return nil, err
		}
		if !core.hasRequestID || core.requestID == "" {
			return nil, rowError(file, line, "request_id is required and must be non-empty in an agentic_mooncake trace")
		}
		if prev, dup := g.index[core.requestID]; dup {
			return nil, rowError(file, line, "duplicate request_id %q (first at line %d); request ids must be unique", core.requestID, g.lines[prev])
		}
		sid := core.session
		if !core.hasSession {
			sid = "request_" + strconv.Itoa(line)
		}
		node := Node{
			Turn: Turn{
				InputLength:  core.input,
				OutputLength: core.output,
				Prompt:       synthPrompt(make([]Segment, 0, len(core.ids)), core.ids, c.blockSize, core.input),
				RequestID:    core.requestID,
			},
			SessionID: sid,
			TurnIndex: turnCount[sid],
		}
		if core.outputIDs != nil {
			node.OutputTokens = segmentsOf(core.outputIDs)
		}
		turnCount[sid]++
		var deps []pendingDep
		if v2 {
			if r.WaitFor != nil || r.ToolWaitMs != nil {
				return nil, rowError(file, line, "wait_for/tool_wait_ms belong to the legacy form; a v2 trace uses dependencies")
			}
			if r.PlayID == nil || *r.PlayID == "" {
				return nil, rowError(file, line, "play_id is required in an agentic_mooncake v2 row")
			}
			node.PlayID = string(*r.PlayID)
			if raw, _ := pickInt(r.InputLength, r.InputTokens, "", ""); raw != nil {
				if want := traceCeilDiv(int(*raw), c.blockSize); len(r.HashIDs) != want {
					return nil, rowError(file, line, "hash_ids has %d ids but input_length %d needs exactly %d blocks of %d tokens", len(r.HashIDs), *raw, want, c.blockSize)
				}
			}
			nb, err := checkDelay(file, line, "not_before_ms", r.NotBeforeMs)
			if err != nil {
				return nil, err
			}
			node.NotBeforeMs = nb / c.speedup
			if r.Dependencies != nil {
				for k, d := range *r.Dependencies {
					if d.RequestID == nil || *d.RequestID == "" {
						return nil, rowError(file, line, "dependencies[%d] needs a request_id", k)
					}
					pd := pendingDep{parent: string(*d.RequestID)}
					switch {
					case d.Trigger == nil:
						return nil, rowError(file, line, "dependencies[%d] needs trigger: dispatch or completion", k)
					case *d.Trigger == "dispatch":
					case *d.Trigger == "completion":
						pd.onCompletion = true
					default:
						return nil, rowError(file, line, "dependencies[%d] has trigger %q; use dispatch or completion", k, *d.Trigger)
					}
					if d.Relation != nil {
						switch *d.Relation {
						case "sequence", "join", "replay_barrier":
							// Only a spawn starts its child while the parent runs; the other
							// relations wait for the parent to finish (docs/traces.md).
							if !pd.onCompletion {
								return nil, rowError(file, line, "dependencies[%d] has relation %q with trigger \"dispatch\"; a %s dependency fires on its parent's completion, so use trigger: completion (only spawn may use dispatch)", k, *d.Relation, *d.Relation)
							}
						case "spawn":
						default:
							return nil, rowError(file, line, "dependencies[%d] has relation %q; use sequence, spawn, join or replay_barrier", k, *d.Relation)
						}
					}
					dl, err := checkDelay(file, line, "dependencies["+strconv.Itoa(k)+"].delay_ms", d.DelayMs)
					if err != nil {
						return nil, err
					}
					pd.delayMs = dl / c.speedup
					deps = append(deps, pd)
				}
			}
		} else {
			if r.Dependencies != nil || r.NotBeforeMs != nil || r.PlayID != nil {
				return nil, rowError(file, line, "dependencies/not_before_ms/play_id need the v2 header line {\"schema\": %q, \"version\": 2, \"block_size\": ...} first; the legacy form uses wait_for", agenticSchema)
			}
			tw, err := checkDelay(file, line, "tool_wait_ms", r.ToolWaitMs)
			if err != nil {
				return nil, err
			}
			delay := (core.delay + tw) / c.speedup
			for k, p := range r.WaitFor {
				if p == "" {
					return nil, rowError(file, line, "wait_for[%d] is empty; name a request_id", k)
				}
				deps = append(deps, pendingDep{parent: string(p), onCompletion: true, delayMs: delay})
			}
			ts = append(ts, core.ts)
			hasTS = append(hasTS, core.hasTS)
		}
		g.index[core.requestID] = len(g.nodes)
		g.nodes = append(g.nodes, node)
		g.lines = append(g.lines, line)
		g.deps = append(g.deps, deps)
	}
	if len(g.nodes) == 0 {
		return nil, emptyError(file)
	}
	if err := g.resolve(v2); err != nil {
		return nil, err
	}
	if !v2 {
		legacyPlays(g.nodes)
		// Roots are ready at their timestamp, normalised so the earliest is 0.
		min, any := 0.0, false
		for i := range g.nodes {
			if len(g.nodes[i].Deps) == 0 && hasTS[i] && (!any || ts[i] < min) {
				min, any = ts[i], true
			}
		}
		for i := range g.nodes {
			if len(g.nodes[i].Deps) == 0 && hasTS[i] {
				nb := (ts[i] - min) / c.speedup
				if math.IsInf(nb, 0) {
					return nil, rowError(file, g.lines[i], "timestamp out of range")
				}
				g.nodes[i].NotBeforeMs = nb
			}
		}
	}
	return c.graphWorkload(g.nodes), nil
}

// legacyPlays names the plays of a legacy graph: its connected components, each
// `legacy-play:<smallest root request id>`.
func legacyPlays(nodes []Node) {
	parent := make([]int, len(nodes))
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for i := range nodes {
		for _, d := range nodes[i].Deps {
			a, b := find(i), find(d.Parent)
			if a != b {
				if a < b {
					parent[b] = a
				} else {
					parent[a] = b
				}
			}
		}
	}
	name := make(map[int]string)
	for i := range nodes {
		if len(nodes[i].Deps) != 0 {
			continue
		}
		r := find(i)
		if cur, ok := name[r]; !ok || nodes[i].RequestID < cur {
			name[r] = nodes[i].RequestID
		}
	}
	for i := range nodes {
		nodes[i].PlayID = "legacy-play:" + name[find(i)]
	}
}

// graphWorkload wraps agentic nodes into a Workload. A concurrency load ignores authored
// times: Lanes is the concurrency and every NotBeforeMs is 0.
func (c *traceCtx) graphWorkload(nodes []Node) *Workload {
	w := &Workload{Graph: &Graph{Nodes: nodes, Lanes: c.lanes()}, OpenLoop: c.timestamps}
	if !c.timestamps {
		w.Concurrency = c.load.Concurrency
		for i := range nodes {
			nodes[i].NotBeforeMs = 0
		}
	}
	w.Next = func() (Session, bool) { return Session{}, false }
	return w
}
