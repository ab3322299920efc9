package traffic

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/spec"

	"github.com/google/go-cmp/cmp"
)

// wekaSrc is a weka source over testdata/weka.
func wekaSrc(path string) spec.Source { return trSrc(spec.FormatWeka, "weka/"+path) }

// wekaFS serves one trace.json with the given requests (block size 4, model "model").
func wekaFS(requests string) fstest.MapFS {
	return fstest.MapFS{"trace.json": {Data: []byte(`{"id": "play", "models": ["model"], "block_size": 4, "hash_id_scope": "local", "requests": [` + requests + `]}`)}}
}

// wekaDeps returns node's dependencies keyed by parent request id suffix.
func wekaDep(t *testing.T, g *Graph, child, parent string) Dep {
	t.Helper()
	ci, pi := -1, -1
	for i, n := range g.Nodes {
		if strings.HasSuffix(n.RequestID, ":request:"+child) {
			ci = i
		}
		if strings.HasSuffix(n.RequestID, ":request:"+parent) {
			pi = i
		}
	}
	if ci < 0 || pi < 0 {
		t.Fatalf("no request %s or %s", child, parent)
	}
	for _, d := range g.Nodes[ci].Deps {
		if d.Parent == pi {
			return d
		}
	}
	t.Fatalf("%s has no dependency on %s: %+v", child, parent, g.Nodes[ci].Deps)
	return Dep{}
}

// The whole lowered graph of a play with a blocking subagent that overlaps its parent's
// request and a background subagent with a prefill-only request (out: 0).
func TestWekaOverlapJoinBackground(t *testing.T) {
	w := trLoad(t, wekaSrc("overlap.json"), trTS(1), trTestdata)
	const ns = "weka:overlap.json"
	root, a, bg := ns+":session:root", ns+":session:subagent:1:a", ns+":session:subagent:3:bg"
	node := func(id string, in, out int, prompt []Segment, session string, turn int, nb float64, deps ...Dep) Node {
		return Node{Turn: Turn{InputLength: in, OutputLength: out, Prompt: prompt, RequestID: ns + ":request:" + id},
			PlayID: ns + ":play:play", SessionID: session, TurnIndex: turn, NotBeforeMs: nb, Deps: deps}
	}
	want := &Graph{Nodes: []Node{
		node("outer:0", 8, 1, []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}}, root, 0, 0),
		// Waits for outer:0 (api_time 1 s, next at 1 s) and joins subagent a (ended 0.5 s).
		node("outer:2", 9, 1, []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}, {Token: 2, Count: 1}}, root, 1, 1000,
			Dep{Parent: 0, OnCompletion: true, DelayMs: 0}, Dep{Parent: 3, OnCompletion: true, DelayMs: 500}),
		node("outer:4", 13, 1, []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}, {Token: 3, Count: 4}, {Token: 4, Count: 1}}, root, 2, 1500,
			Dep{Parent: 1, OnCompletion: true, DelayMs: 500}),
		// Spawned while outer:0 runs: on its dispatch, 300 ms later.
		node("outer:1:inner:0", 6, 1, []Segment{{Token: 5, Count: 4}, {Token: 6, Count: 2}}, a, 0, 300,
			Dep{Parent: 0, OnCompletion: false, DelayMs: 300}),
		// Spawned after outer:2 finished (api_time null = 0 s): on its completion, 200 ms later.
		node("outer:3:inner:0", 4, 0, []Segment{{Token: 7, Count: 4}}, bg, 0, 1200,
			Dep{Parent: 1, OnCompletion: true, DelayMs: 200}),
	}}
	if d := cmp.Diff(want, w.Graph); d != "" {
		t.Fatalf("graph (-want +got):\n%s", d)
	}
	if !w.OpenLoop {
		t.Fatal("a weka trace is replayed open-loop")
	}
	// speedup divides times and delays; agentic_lanes sets the lanes.
	l := trTS(2)
	l.AgenticLanes = trInt(1)
	w = trLoad(t, wekaSrc("overlap.json"), l, trTestdata)
	if g := w.Graph; g.Lanes != 1 || g.Nodes[3].NotBeforeMs != 150 || g.Nodes[1].Deps[1].DelayMs != 250 {
		t.Fatalf("speedup 2: lanes %d, not before %v, join delay %v", g.Lanes, g.Nodes[3].NotBeforeMs, g.Nodes[1].Deps[1].DelayMs)
	}
}

// A subagent spawned after its parent finished waits for its completion; the parent resumes
// when the subagent's last request completed, even when they end at the same instant.
func TestWekaPostCompletionSpawn(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatWeka, "trace.json"), trTS(1), wekaFS(`
		{"t": 0.0, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [1, 2], "api_time": 0.5},
		{"t": 0.9, "type": "subagent", "agent_id": "a", "duration_ms": 300, "status": "completed", "requests": [
			{"t": 0.9, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [3, 4], "api_time": 0.2},
			{"t": 1.15, "type": "s", "model": "model", "in": 12, "out": 1, "hash_ids": [3, 4, 5], "api_time": 0.05}]},
		{"t": 1.2, "type": "s", "model": "model", "in": 12, "out": 1, "hash_ids": [1, 2, 6]}`))
	g := w.Graph
	if d := wekaDep(t, g, "outer:1:inner:0", "outer:0"); !d.OnCompletion || d.DelayMs != 400 {
		t.Errorf("spawn %+v, want on completion +400 ms", d)
	}
	if d := wekaDep(t, g, "outer:1:inner:1", "outer:1:inner:0"); !d.OnCompletion || d.DelayMs != 50 {
		t.Errorf("sequence %+v, want on completion +50 ms", d)
	}
	if d := wekaDep(t, g, "outer:2", "outer:1:inner:1"); !d.OnCompletion || d.DelayMs != 0 {
		t.Errorf("join %+v, want on completion +0 ms", d)
	}
}

// Requests that fork the parent's hash prefix while it runs become a worker session spawned
// on the parent's dispatch; the parent's next request waits for the worker's last request
// that finished before it (a replay barrier).
func TestWekaFlattenedFork(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatWeka, "trace.json"), trTS(1), wekaFS(`
		{"t": 0.0, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [1, 2], "api_time": 2.0},
		{"t": 0.5, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [1, 3], "api_time": 0.2},
		{"t": 0.8, "type": "s", "model": "model", "in": 12, "out": 1, "hash_ids": [1, 3, 4], "api_time": 0.2},
		{"t": 2.0, "type": "s", "model": "model", "in": 12, "out": 1, "hash_ids": [1, 2, 5]}`))
	g := w.Graph
	if g.Nodes[0].SessionID == g.Nodes[1].SessionID || g.Nodes[1].SessionID != g.Nodes[2].SessionID || g.Nodes[3].SessionID != g.Nodes[0].SessionID {
		t.Fatalf("sessions %s %s %s %s", g.Nodes[0].SessionID, g.Nodes[1].SessionID, g.Nodes[2].SessionID, g.Nodes[3].SessionID)
	}
	if d := wekaDep(t, g, "outer:1", "outer:0"); d.OnCompletion || d.DelayMs != 500 {
		t.Errorf("fork %+v, want on dispatch +500 ms", d)
	}
	if d := wekaDep(t, g, "outer:2", "outer:1"); !d.OnCompletion || d.DelayMs != 100 {
		t.Errorf("worker sequence %+v, want on completion +100 ms", d)
	}
	if d := wekaDep(t, g, "outer:3", "outer:2"); !d.OnCompletion || d.DelayMs != 0 {
		t.Errorf("barrier %+v, want on completion +0 ms", d)
	}
}

// A subagent belongs to the parent request written just before it, and its join goes to
// that request's session, not to another session of the parent.
func TestWekaSubagentOwner(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatWeka, "trace.json"), trTS(1), wekaFS(`
		{"t": 0.0, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [1, 2], "api_time": 1.0},
		{"t": 0.2, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [1, 3], "api_time": 0.2},
		{"t": 0.3, "type": "subagent", "agent_id": "owned", "duration_ms": 500, "status": "completed", "requests": [
			{"t": 0.3, "type": "s", "model": "model", "in": 4, "out": 1, "hash_ids": [9], "api_time": 0.1}]},
		{"t": 1.0, "type": "s", "model": "model", "in": 12, "out": 1, "hash_ids": [1, 2, 4]},
		{"t": 1.2, "type": "s", "model": "model", "in": 12, "out": 1, "hash_ids": [1, 3, 5]}`))
	g := w.Graph
	if d := wekaDep(t, g, "outer:2:inner:0", "outer:1"); d.OnCompletion {
		t.Errorf("spawn %+v, want on dispatch", d)
	}
	wekaDep(t, g, "outer:4", "outer:2:inner:0")
	for _, d := range g.Nodes[2].Deps { // outer:3
		if strings.HasSuffix(g.Nodes[d.Parent].RequestID, "inner:0") {
			t.Errorf("outer:3 joins the subagent of another session")
		}
	}
}

// A directory is read recursively, .json/.jsonl files only, in path order; a .jsonl file
// holds one play per line; hash ids are private to their play.
func TestWekaCorpusDirectory(t *testing.T) {
	w := trLoad(t, wekaSrc("corpus"), trTS(1), trTestdata)
	var plays []string
	for _, n := range w.Graph.Nodes {
		if len(plays) == 0 || plays[len(plays)-1] != n.PlayID {
			plays = append(plays, n.PlayID)
		}
	}
	want := []string{"weka:b.json:play:second", "weka:nested/a.jsonl#000000:play:first", "weka:nested/a.jsonl#000001:play:third"}
	if d := cmp.Diff(want, plays); d != "" {
		t.Fatalf("plays (-want +got):\n%s", d)
	}
	g := w.Graph
	// Every play starts at its own recorded times (normalised per play).
	if g.Nodes[0].NotBeforeMs != 0 || g.Nodes[1].NotBeforeMs != 0 || g.Nodes[3].NotBeforeMs != 1000 {
		t.Fatalf("not before %v %v %v", g.Nodes[0].NotBeforeMs, g.Nodes[1].NotBeforeMs, g.Nodes[3].NotBeforeMs)
	}
	// Hash id 7 in three plays names three different blocks; inside a play it is one block.
	tokens := []uint32{g.Nodes[0].Prompt[0].Token, g.Nodes[1].Prompt[0].Token, g.Nodes[2].Prompt[0].Token, g.Nodes[3].Prompt[0].Token, g.Nodes[3].Prompt[1].Token}
	if d := cmp.Diff([]uint32{0, 1, 2, 2, 3}, tokens); d != "" {
		t.Fatalf("block tokens (-want +got):\n%s", d)
	}
	// One file of the directory may be given directly.
	w = trLoad(t, wekaSrc("corpus/nested/a.jsonl"), trTS(1), trTestdata)
	if len(w.Graph.Nodes) != 3 {
		t.Fatalf("%d nodes from a.jsonl", len(w.Graph.Nodes))
	}
}

// nested_timestamp_basis: relative adds the marker's t; auto picks relative when a nested
// request starts before its marker; absolute then fails.
func TestWekaNestedTimestampBasis(t *testing.T) {
	files := wekaFS(`
		{"t": 10.0, "type": "s", "model": "model", "in": 4, "out": 1, "hash_ids": [1], "api_time": 1.0},
		{"t": 11.0, "type": "subagent", "agent_id": "a", "status": "completed", "requests": [
			{"t": 0.5, "type": "s", "model": "model", "in": 4, "out": 1, "hash_ids": [2]}]},
		{"t": 12.0, "type": "s", "model": "model", "in": 8, "out": 1, "hash_ids": [1, 3]}`)
	for _, basis := range []string{"", "auto", "relative"} {
		s := trSrc(spec.FormatWeka, "trace.json")
		s.NestedTimestampBasis = basis
		w := trLoad(t, s, trTS(1), files)
		if nb := w.Graph.Nodes[2].NotBeforeMs; nb != 1500 {
			t.Errorf("basis %q: nested request at %v ms, want 1500", basis, nb)
		}
	}
	s := trSrc(spec.FormatWeka, "trace.json")
	s.NestedTimestampBasis = "absolute"
	_, err := LoadTrace(s, trTS(1), files)
	if err == nil || !strings.Contains(err.Error(), `trace.json: trace "play": requests[1].requests[0] of subagent "a" starts at 0.5 s, before its marker at 11 s, under nested_timestamp_basis absolute`) {
		t.Fatalf("absolute: %v", err)
	}
}

func TestWekaErrors(t *testing.T) {
	req := `{"t": 0, "type": "s", "model": "model", "in": 4, "out": 1, "hash_ids": [1]}`
	cases := []struct {
		name  string
		files fstest.MapFS
		path  string
		block *int
		want  string
	}{
		{"status", wekaFS(req + `, {"t": 0.1, "type": "subagent", "agent_id": "x", "status": "failed", "requests": [` + req + `]}`), "trace.json", nil,
			`trace.json: trace "play": requests[1]: subagent "x" has status "failed"; only completed and async_launched subagents can be replayed`},
		{"blocking empty", wekaFS(req + `, {"t": 0.1, "type": "subagent", "agent_id": "x", "status": "completed", "requests": []}`), "trace.json", nil,
			`completed subagent "x" has no requests`},
		{"negative duration", wekaFS(req + `, {"t": 0.1, "type": "subagent", "agent_id": "x", "status": "completed", "duration_ms": -1, "requests": [` + req + `]}`), "trace.json", nil,
			`duration_ms of subagent "x" must be a finite number >= 0`},
		{"type", wekaFS(`{"t": 0, "type": "x", "model": "model", "in": 4, "out": 1}`), "trace.json", nil, `requests[0]: type is "x"; use "n", "s" or "subagent"`},
		{"nested subagent", wekaFS(req + `, {"t": 0.1, "type": "subagent", "agent_id": "x", "status": "async_launched", "requests": [{"t": 0.2, "type": "subagent"}]}`), "trace.json", nil, `requests[1].requests[0]: type is "subagent"; use "n" or "s"`},
		{"model", wekaFS(`{"t": 0, "type": "s", "model": "other", "in": 4, "out": 1}`), "trace.json", nil, `requests[0]: model "other" is not in the trace's models list`},
		{"in", wekaFS(`{"t": 0, "type": "s", "model": "model", "in": 0, "out": 1}`), "trace.json", nil, `requests[0]: in is required and must be between 1 and`},
		{"api time", wekaFS(`{"t": 0, "type": "s", "model": "model", "in": 4, "out": 1, "api_time": -1}`), "trace.json", nil, `requests[0]: api_time must be a finite number of seconds >= 0 or null`},
		{"time", wekaFS(`{"t": -1, "type": "s", "model": "model", "in": 4, "out": 1}`), "trace.json", nil, `requests[0]: t is required and must be a finite number of seconds >= 0`},
		{"only subagents", wekaFS(`{"t": 0.1, "type": "subagent", "agent_id": "x", "status": "async_launched", "requests": [` + req + `]}`), "trace.json", nil, `trace.json: trace "play" has no parent requests (only subagents)`},
		{"scope", fstest.MapFS{"t.json": {Data: []byte(`{"id": "p", "block_size": 4, "hash_id_scope": "global", "requests": [` + req + `]}`)}}, "t.json", nil, `t.json: trace "p": hash_id_scope must be "local"`},
		{"no id", fstest.MapFS{"t.json": {Data: []byte(`{"block_size": 4, "hash_id_scope": "local", "requests": [` + req + `]}`)}}, "t.json", nil, `t.json: id is required`},
		{"two objects", fstest.MapFS{"t.json": {Data: []byte(`{"id": "p"} {"id": "q"}`)}}, "t.json", nil, `t.json: holds more than one JSON object; a .json file is one trace, use a .jsonl file`},
		{"extension", fstest.MapFS{"t.txt": {Data: []byte(`{}`)}}, "t.txt", nil, `t.txt: a weka trace file must end in .json (one trace) or .jsonl (one trace per line)`},
		{"empty dir", fstest.MapFS{"d/x.txt": {Data: []byte(`{}`)}}, "d", nil, `d: the directory holds no .json or .jsonl trace files`},
		{"missing", fstest.MapFS{}, "nothing", nil, `nothing: cannot open trace file or directory`},
		{"jsonl line", fstest.MapFS{"t.jsonl": {Data: []byte(`{"id": "p", "block_size": 4, "hash_id_scope": "local", "requests": [` + req + `]}` + "\n\n" + `{"id": "q", "block_size": 8, "hash_id_scope": "local", "requests": [` + req + `]}`)}}, "t.jsonl", nil,
			`t.jsonl:3: block_size 8 differs from 4 used by t.jsonl:1; a corpus has one block size`},
		{"bad json", fstest.MapFS{"t.jsonl": {Data: []byte(`{"id": 5}`)}}, "t.jsonl", nil, `t.jsonl:1: invalid JSON record`},
		{"block size", wekaFS(req), "trace.json", trInt(8), `trace.json: block_size 4 differs from traffic.source.block_size 8; remove block_size (it is taken from the trace) or set it to 4`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := trSrc(spec.FormatWeka, c.path)
			s.BlockSize = c.block
			_, err := LoadTrace(s, trTS(1), c.files)
			var te *Error
			if !errors.As(err, &te) || !strings.Contains(te.Msg, c.want) || te.BlockSize != (c.block != nil) {
				t.Fatalf("err %v, want %q", err, c.want)
			}
		})
	}
}

// The frontier found by binary search is the one the rule defines: for every other stream of
// the scope, the request with the greatest (end, t, id) among those that started before the
// target and ended by its start.
func TestWekaFrontierMatchesDefinition(t *testing.T) {
	seed := uint64(7)
	rnd := func(n int) int { seed = seed*6364136223846793005 + 1442695040888963407; return int(seed>>33) % n }
	for trial := 0; trial < 300; trial++ {
		var streams []*wstream
		for s := 0; s < 1+rnd(4); s++ {
			st := &wstream{scope: "x"}
			for k := 0; k < 1+rnd(6); k++ {
				ts := float64(rnd(8)) / 2
				st.reqs = append(st.reqs, &wreq{id: string(rune('a'+s)) + string(rune('0'+k)), t: ts, end: ts + float64(rnd(3))/2})
			}
			streams = append(streams, st)
		}
		got := map[*wreq][]*wreq{}
		wekaFrontiers(streams, func(child *wreq, d wdep) { got[child] = append(got[child], d.parent) })
		for _, ts := range streams {
			for _, target := range ts.reqs {
				var want []*wreq
				for _, os := range streams {
					if os == ts {
						continue
					}
					var latest *wreq
					for _, c := range os.reqs {
						if c.t < target.t && c.end <= target.t+wekaJoinEpsilon && (latest == nil || wekaEndsBefore(latest, c)) {
							latest = c
						}
					}
					if latest != nil {
						want = append(want, latest)
					}
				}
				var kept []*wreq
				for _, c := range want {
					dominated := false
					for _, l := range want {
						dominated = dominated || c.t < l.t && c.end <= l.t+wekaJoinEpsilon
					}
					if !dominated {
						kept = append(kept, c)
					}
				}
				if len(kept) != len(got[target]) {
					t.Fatalf("trial %d target %s: got %d barriers, want %d", trial, target.id, len(got[target]), len(kept))
				}
				for i := range kept {
					if kept[i] != got[target][i] {
						t.Fatalf("trial %d target %s: barrier %d is %s, want %s", trial, target.id, i, got[target][i].id, kept[i].id)
					}
				}
			}
		}
	}
}
