package traffic

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/spec"

	"github.com/google/go-cmp/cmp"
)

var trTestdata = os.DirFS("testdata")

func trInt(v int) *int { return &v }

func trTS(speedup float64) spec.Load {
	return spec.Load{Type: spec.LoadTraceTimestamps, Speedup: speedup}
}

func trConc(n int) spec.Load { return spec.Load{Type: spec.LoadConcurrency, Concurrency: n} }

func trSrc(format string, paths ...string) spec.Source {
	return spec.Source{Type: spec.SourceTrace, Format: format, Paths: paths}
}

func trLoad(t *testing.T, s spec.Source, l spec.Load, files fs.FS) *Workload {
	t.Helper()
	w, err := LoadTrace(s, l, files)
	if err != nil {
		t.Fatalf("LoadTrace: %v", err)
	}
	return w
}

// drain collects every session of a workload and checks Sessions against the count.
func trDrain(t *testing.T, w *Workload) []Session {
	t.Helper()
	var out []Session
	for {
		s, ok := w.Next()
		if !ok {
			break
		}
		out = append(out, s)
	}
	if len(out) != w.Sessions {
		t.Fatalf("Next yielded %d sessions, Sessions = %d", len(out), w.Sessions)
	}
	return out
}

func trRequests(ss []Session) int {
	n := 0
	for _, s := range ss {
		n += len(s.Turns)
	}
	return n
}

func trLen(p []Segment) int {
	n := 0
	for _, s := range p {
		n += s.Count
	}
	return n
}

func TestMooncakeFixtureSpeedup(t *testing.T) {
	w := trLoad(t, trSrc("", "mooncake.jsonl"), trTS(2), trTestdata)
	if !w.OpenLoop || w.Graph != nil || w.Concurrency != 0 {
		t.Fatalf("OpenLoop=%v Graph=%v Concurrency=%d, want open loop sessions", w.OpenLoop, w.Graph, w.Concurrency)
	}
	got := trDrain(t, w)
	want := []Session{
		{ID: "request_1", ArrivalMs: 0, Turns: []Turn{{InputLength: 32, OutputLength: 4, Prompt: []Segment{{Token: 0, Count: 32}}}}},
		{ID: "request_2", ArrivalMs: 10, Turns: []Turn{{InputLength: 24, OutputLength: 3, Prompt: []Segment{{Token: 1, Count: 24}}}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("sessions (-want +got):\n%s", d)
	}
	if _, ok := w.Next(); ok {
		t.Fatal("Next after the end returned a session")
	}
}

func TestMooncakeSessionsAliasesDelays(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatMooncake, "mooncake_sessions.jsonl"), trTS(2), trTestdata)
	got := trDrain(t, w)
	want := []Session{
		{ID: "s1", ArrivalMs: 50, Turns: []Turn{
			{InputLength: 1024, OutputLength: 64, Prompt: []Segment{{Token: 0, Count: 512}, {Token: 1, Count: 512}}, RequestID: "a"},
			{InputLength: 1600, OutputLength: 32, Prompt: []Segment{{Token: 0, Count: 512}, {Token: 1, Count: 512}, {Token: 2, Count: 512}, {Token: 3, Count: 64}}, DelayMs: 250},
			{InputLength: 100, OutputLength: 1, Prompt: []Segment{{Token: 4, Count: 100}}, DelayMs: 400},
		}},
		{ID: "s2", ArrivalMs: 20, Turns: []Turn{{InputLength: 600, OutputLength: 8, Prompt: []Segment{{Token: 0, Count: 512}, {Token: 2, Count: 88}}}}},
		{ID: "request_6", ArrivalMs: 0, Turns: []Turn{{InputLength: 512, OutputLength: 2, Prompt: []Segment{{Token: 5, Count: 512}}, RequestID: "solo"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("sessions (-want +got):\n%s", d)
	}
}

func TestMooncakeConcurrencyIgnoresTimestamps(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatMooncake, "mooncake_sessions.jsonl"), trConc(3), trTestdata)
	if w.OpenLoop || w.Concurrency != 3 {
		t.Fatalf("OpenLoop=%v Concurrency=%d, want closed loop of 3", w.OpenLoop, w.Concurrency)
	}
	got := trDrain(t, w)
	for _, s := range got {
		if s.ArrivalMs != 0 {
			t.Errorf("session %s ArrivalMs = %v, want 0 under a concurrency load", s.ID, s.ArrivalMs)
		}
	}
	// Delays are not divided by a speedup under a concurrency load.
	if d1, d2 := got[0].Turns[1].DelayMs, got[0].Turns[2].DelayMs; d1 != 500 || d2 != 800 {
		t.Fatalf("delays = %v, %v, want 500, 800", d1, d2)
	}
}

func TestMooncakeBlockSizeClamp(t *testing.T) {
	files := fstest.MapFS{"t.jsonl": {Data: []byte(`{"input_length": 100, "output_length": 1, "hash_ids": [3, 4]}` + "\n")}}
	s := trSrc(spec.FormatMooncake, "t.jsonl")
	s.BlockSize = trInt(16)
	got := trDrain(t, trLoad(t, s, trConc(1), files))
	want := []Turn{{InputLength: 32, OutputLength: 1, Prompt: []Segment{{Token: 0, Count: 16}, {Token: 1, Count: 16}}}}
	if d := cmp.Diff(want, got[0].Turns); d != "" {
		t.Fatalf("turns (-want +got):\n%s", d)
	}
}

func TestMooncakeOutputTokenIDs(t *testing.T) {
	files := fstest.MapFS{"t.jsonl": {Data: []byte(`{"timestamp": 3, "output_length": 3, "hash_ids": [1], "output_token_ids": [7, 7, 9]}` + "\n")}}
	got := trDrain(t, trLoad(t, trSrc(spec.FormatMooncake, "t.jsonl"), trTS(1), files))
	if d := cmp.Diff([]Segment{{Token: 7, Count: 2}, {Token: 9, Count: 1}}, got[0].Turns[0].OutputTokens); d != "" {
		t.Fatalf("OutputTokens (-want +got):\n%s", d)
	}
}

func TestMooncakeDelta(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatMooncakeDelta, "mooncake_delta.jsonl"), trTS(2), trTestdata)
	got := trDrain(t, w)
	out0, out1 := deltaOutputToken(0, 0), deltaOutputToken(0, 1)
	if out0 != 0x80000000 || out1 != 0x80000001 {
		t.Fatalf("delta output tokens = %#x %#x", out0, out1)
	}
	want := []Session{{ID: "delta-session", Turns: []Turn{
		{InputLength: 16, OutputLength: 4, Prompt: []Segment{{Token: 0, Count: 16}}, OutputTokens: []Segment{{Token: out0, Count: 4}}},
		{InputLength: 28, OutputLength: 4, Prompt: []Segment{{Token: 0, Count: 16}, {Token: out0, Count: 4}, {Token: 1, Count: 8}}, DelayMs: 2.5, OutputTokens: []Segment{{Token: out1, Count: 4}}},
	}}}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("sessions (-want +got):\n%s", d)
	}
	if trRequests(got) != 2 {
		t.Fatalf("requests = %d, want 2", trRequests(got))
	}
}

func TestMooncakeDeltaPromptsDoNotAlias(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, `{"session_id": "s", "timestamp": %d, "input_length": 3, "output_length": 2, "hash_ids": [%d]}`+"\n", i*10, i)
	}
	s := trSrc(spec.FormatMooncakeDelta, "d.jsonl")
	s.BlockSize = trInt(4)
	got := trDrain(t, trLoad(t, s, trTS(1), fstest.MapFS{"d.jsonl": {Data: []byte(b.String())}}))
	turns := got[0].Turns
	for k, tr := range turns {
		if want := 3 + 5*k; tr.InputLength != want || trLen(tr.Prompt) != want {
			t.Fatalf("turn %d: InputLength %d, prompt %d tokens, want %d", k, tr.InputLength, trLen(tr.Prompt), want)
		}
		if k > 0 {
			if d := cmp.Diff(turns[k-1].Prompt, tr.Prompt[:len(turns[k-1].Prompt)]); d != "" {
				t.Fatalf("turn %d prompt does not extend turn %d:\n%s", k, k-1, d)
			}
			if tr.DelayMs != 10 {
				t.Fatalf("turn %d DelayMs = %v, want 10", k, tr.DelayMs)
			}
		}
	}
}

func TestAgenticV2(t *testing.T) {
	s := trSrc(spec.FormatAgenticMooncake, "agentic_v2.jsonl")
	s.BlockSize = trInt(4)
	l := trTS(1)
	l.AgenticLanes = trInt(2)
	w := trLoad(t, s, l, trTestdata)
	if w.Graph == nil {
		t.Fatal("Graph is nil")
	}
	if _, ok := w.Next(); ok || w.Sessions != 0 {
		t.Fatal("graph workload yields sessions")
	}
	want := &Graph{Lanes: 2, Nodes: []Node{
		{Turn: Turn{InputLength: 8, OutputLength: 2, Prompt: []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}}, RequestID: "root"}, PlayID: "p", SessionID: "main", TurnIndex: 0},
		{Turn: Turn{InputLength: 6, OutputLength: 2, Prompt: []Segment{{Token: 0, Count: 4}, {Token: 2, Count: 2}}, RequestID: "child"}, PlayID: "p", SessionID: "sub", TurnIndex: 0,
			Deps: []Dep{{Parent: 0, OnCompletion: false, DelayMs: 5}}},
		{Turn: Turn{InputLength: 12, OutputLength: 2, Prompt: []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}, {Token: 3, Count: 4}}, RequestID: "join"}, PlayID: "p", SessionID: "main", TurnIndex: 1,
			Deps: []Dep{{Parent: 0, OnCompletion: true, DelayMs: 1}, {Parent: 1, OnCompletion: true, DelayMs: 1}}},
	}}
	if d := cmp.Diff(want, w.Graph); d != "" {
		t.Fatalf("graph (-want +got):\n%s", d)
	}
}

func TestAgenticV2Speedup(t *testing.T) {
	data := `{"schema": "dynamo.agentic_mooncake", "version": 2, "block_size": 512}
{"request_id": "x", "play_id": "p", "input_length": 10, "output_length": 1, "hash_ids": [1], "not_before_ms": 40}
{"request_id": "y", "play_id": "p", "input_length": 10, "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "x", "trigger": "completion", "delay_ms": 8}]}
`
	w := trLoad(t, trSrc(spec.FormatAgenticMooncake, "a.jsonl"), trTS(4), fstest.MapFS{"a.jsonl": {Data: []byte(data)}})
	n := w.Graph.Nodes
	if n[0].NotBeforeMs != 10 || n[1].Deps[0].DelayMs != 2 || w.Graph.Lanes != 0 {
		t.Fatalf("not_before %v, delay %v, lanes %d; want 10, 2, 0", n[0].NotBeforeMs, n[1].Deps[0].DelayMs, w.Graph.Lanes)
	}
	if n[0].SessionID != "request_2" || n[1].SessionID != "request_3" {
		t.Fatalf("default session ids %q %q", n[0].SessionID, n[1].SessionID)
	}
}

func TestAgenticLegacy(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatAgenticMooncake, "agentic_legacy.jsonl"), trTS(1), trTestdata)
	want := []Node{
		{Turn: Turn{InputLength: 1024, OutputLength: 10, Prompt: []Segment{{Token: 0, Count: 512}, {Token: 1, Count: 512}}, RequestID: "r1"}, PlayID: "legacy-play:r1", SessionID: "s", TurnIndex: 0},
		{Turn: Turn{InputLength: 2048, OutputLength: 100, Prompt: []Segment{{Token: 0, Count: 512}, {Token: 1, Count: 512}, {Token: 2, Count: 512}, {Token: 3, Count: 512}}, RequestID: "r2"}, PlayID: "legacy-play:r1", SessionID: "s", TurnIndex: 1,
			Deps: []Dep{{Parent: 0, OnCompletion: true, DelayMs: 1500}}},
		{Turn: Turn{InputLength: 512, OutputLength: 5, Prompt: []Segment{{Token: 4, Count: 512}}, RequestID: "r3"}, PlayID: "legacy-play:r1", SessionID: "s", TurnIndex: 2,
			Deps: []Dep{{Parent: 0, OnCompletion: true, DelayMs: 20}, {Parent: 1, OnCompletion: true, DelayMs: 20}}},
		{Turn: Turn{InputLength: 100, OutputLength: 1, Prompt: []Segment{{Token: 5, Count: 100}}, RequestID: "a0"}, PlayID: "legacy-play:a0", SessionID: "request_4", TurnIndex: 0, NotBeforeMs: 300},
	}
	if d := cmp.Diff(want, w.Graph.Nodes); d != "" {
		t.Fatalf("nodes (-want +got):\n%s", d)
	}
}

func TestAppliedCompute(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatAppliedComputeAgentic, "applied_compute.jsonl"), trConc(4), trTestdata)
	if w.OpenLoop || w.Concurrency != 4 {
		t.Fatalf("OpenLoop=%v Concurrency=%d", w.OpenLoop, w.Concurrency)
	}
	got := trDrain(t, w)
	want := []Session{
		{ID: "applied_compute_agentic_session_1", Turns: []Turn{
			{InputLength: 16, OutputLength: 4, Prompt: []Segment{{Token: 0, Count: 16}}},
			{InputLength: 28, OutputLength: 4, Prompt: []Segment{{Token: 0, Count: 28}}, DelayMs: 500},
			{InputLength: 40, OutputLength: 4, Prompt: []Segment{{Token: 0, Count: 40}}, DelayMs: 1250},
		}},
		{ID: "applied_compute_agentic_session_2", Turns: []Turn{{InputLength: 5, OutputLength: 7, Prompt: []Segment{{Token: 1, Count: 5}}}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("sessions (-want +got):\n%s", d)
	}
}

func TestAppliedComputeBlocksExtend(t *testing.T) {
	s := trSrc(spec.FormatAppliedComputeAgentic, "applied_compute.jsonl")
	s.BlockSize = trInt(4)
	got := trDrain(t, trLoad(t, s, trConc(1), trTestdata))
	seq := func(lo, hi int, last int) []Segment {
		var out []Segment
		for i := lo; i < hi; i++ {
			out = append(out, Segment{Token: uint32(i), Count: 4})
		}
		if last > 0 {
			out[len(out)-1].Count = last
		}
		return out
	}
	want := [][]Segment{seq(0, 4, 0), seq(0, 7, 0), seq(0, 10, 0)}
	for k, tr := range got[0].Turns {
		if d := cmp.Diff(want[k], tr.Prompt); d != "" {
			t.Fatalf("turn %d prompt (-want +got):\n%s", k, d)
		}
	}
	// The second episode's blocks are new ids after the first episode's ten.
	if d := cmp.Diff([]Segment{{Token: 10, Count: 4}, {Token: 11, Count: 1}}, got[1].Turns[0].Prompt); d != "" {
		t.Fatalf("second episode prompt (-want +got):\n%s", d)
	}
}

func TestDynamoStandard(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatDynamo, "dynamo_standard.jsonl"), trTS(2), trTestdata)
	if w.Graph != nil || !w.OpenLoop {
		t.Fatal("standard dynamo trace must be open-loop sessions")
	}
	got := trDrain(t, w)
	want := []Session{
		{ID: "request_1", ArrivalMs: 0, Turns: []Turn{{InputLength: 4, OutputLength: 2, Prompt: []Segment{{Token: 0, Count: 4}}, RequestID: "a"}}},
		{ID: "request_2", ArrivalMs: 10, Turns: []Turn{{InputLength: 4, OutputLength: 2, Prompt: []Segment{{Token: 1, Count: 4}}, RequestID: "b"}}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("sessions (-want +got):\n%s", d)
	}
	s := trSrc(spec.FormatDynamo, "dynamo_standard.jsonl")
	s.BlockSize = trInt(4)
	trLoad(t, s, trTS(1), trTestdata)
}

func wantDynamoAgentic(speedup float64) []Node {
	return []Node{
		{Turn: Turn{InputLength: 8, OutputLength: 2, Prompt: []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}}, RequestID: "parent-source"}, PlayID: "parent", SessionID: "parent", TurnIndex: 0},
		{Turn: Turn{InputLength: 4, OutputLength: 2, Prompt: []Segment{{Token: 2, Count: 4}}, RequestID: "child-first"}, PlayID: "parent", SessionID: "child", TurnIndex: 0,
			Deps: []Dep{{Parent: 0, OnCompletion: false, DelayMs: 5 / speedup}}},
		{Turn: Turn{InputLength: 6, OutputLength: 2, Prompt: []Segment{{Token: 2, Count: 4}, {Token: 3, Count: 2}}, RequestID: "child-last"}, PlayID: "parent", SessionID: "child", TurnIndex: 1,
			Deps: []Dep{{Parent: 1, OnCompletion: true, DelayMs: 5 / speedup}}},
		{Turn: Turn{InputLength: 12, OutputLength: 2, Prompt: []Segment{{Token: 0, Count: 4}, {Token: 1, Count: 4}, {Token: 4, Count: 4}}, RequestID: "parent-consumer"}, PlayID: "parent", SessionID: "parent", TurnIndex: 1,
			Deps: []Dep{{Parent: 0, OnCompletion: true, DelayMs: 21 / speedup}, {Parent: 2, OnCompletion: true, DelayMs: 1 / speedup}}},
	}
}

func TestDynamoAgentic(t *testing.T) {
	for _, name := range []string{"dynamo_agentic.jsonl", "dynamo_agentic_inferred.jsonl"} {
		t.Run(name, func(t *testing.T) {
			s := trSrc(spec.FormatDynamo, name)
			l := trTS(2)
			l.AgenticLanes = trInt(1)
			w := trLoad(t, s, l, trTestdata)
			if w.Graph == nil {
				t.Fatal("agentic dynamo trace must give a graph")
			}
			if d := cmp.Diff(wantDynamoAgentic(2), w.Graph.Nodes); d != "" {
				t.Fatalf("nodes (-want +got):\n%s", d)
			}
			if w.Graph.Lanes != 1 {
				t.Fatalf("Lanes = %d", w.Graph.Lanes)
			}
		})
	}
}

func TestDynamoAgenticRootsNotBefore(t *testing.T) {
	rec := func(id, sess string, recv int) string {
		return fmt.Sprintf(`{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "agent_context": {"session_id": %q}, "request": {"request_id": %q, "output_tokens": 1, "request_received_ms": %d, "total_time_ms": 4, "replay": {"trace_block_size": 2, "input_length": 2, "input_sequence_hashes": [1]}}}`+"\n", sess, id, recv)
	}
	data := rec("b1", "b", 1050) + rec("a1", "a", 1000) + rec("a2", "a", 1010)
	w := trLoad(t, trSrc(spec.FormatDynamo, "x.jsonl"), trTS(1), fstest.MapFS{"x.jsonl": {Data: []byte(data)}})
	n := w.Graph.Nodes
	if n[0].RequestID != "a1" || n[1].RequestID != "a2" || n[2].RequestID != "b1" {
		t.Fatalf("node order %s %s %s", n[0].RequestID, n[1].RequestID, n[2].RequestID)
	}
	if n[0].NotBeforeMs != 0 || n[2].NotBeforeMs != 50 || n[2].PlayID != "b" || len(n[1].Deps) != 1 || n[1].Deps[0].DelayMs != 6 {
		t.Fatalf("nodes: %+v", n)
	}
}

func trGzip(t *testing.T, data string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(data))
	zw.Close()
	return b.Bytes()
}

func dynRec(id string, recv, bs, input int, hashes ...int) string {
	var hs []string
	for _, h := range hashes {
		hs = append(hs, fmt.Sprint(h))
	}
	return fmt.Sprintf(`{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "request": {"request_id": %q, "output_tokens": 2, "request_received_ms": %d, "total_time_ms": 3, "replay": {"trace_block_size": %d, "input_length": %d, "input_sequence_hashes": [%s]}}}`+"\n",
		id, recv, bs, input, strings.Join(hs, ", "))
}

// countingFS records how many files are open at once.
type countingFS struct {
	fs.FS
	open, maxOpen, opened int
}

type countingFile struct {
	fs.File
	c *countingFS
}

func (f *countingFile) Close() error { f.c.open--; return f.File.Close() }

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	c.open++
	c.opened++
	if c.open > c.maxOpen {
		c.maxOpen = c.open
	}
	return &countingFile{f, c}, nil
}

func TestDynamoManyShardsStreaming(t *testing.T) {
	const shards, per = 200, 5
	files := fstest.MapFS{}
	var paths []string
	for s := 0; s < shards; s++ {
		var b strings.Builder
		for k := 0; k < per; k++ {
			// Shards are written newest first so the loader must merge by time.
			i := (shards-1-s)*per + k
			b.WriteString(dynRec(fmt.Sprintf("r%04d", i), 1000+2*i, 8, 10, 7, 1000+i))
		}
		name := fmt.Sprintf("shards/part-%03d.jsonl", s)
		data := []byte(b.String())
		if s%2 == 1 {
			name += ".gz"
			data = trGzip(t, b.String())
		}
		files[name] = &fstest.MapFile{Data: data}
		paths = append(paths, name)
	}
	cfs := &countingFS{FS: files}
	w := trLoad(t, trSrc(spec.FormatDynamo, paths...), trTS(1), cfs)
	if cfs.maxOpen != 1 || cfs.opened != shards || cfs.open != 0 {
		t.Fatalf("open files: max %d, opened %d, still open %d; want 1, %d, 0", cfs.maxOpen, cfs.opened, cfs.open, shards)
	}
	got := trDrain(t, w)
	if len(got) != shards*per {
		t.Fatalf("sessions = %d, want %d", len(got), shards*per)
	}
	for i, s := range got {
		tr := s.Turns[0]
		if tr.RequestID != fmt.Sprintf("r%04d", i) || s.ArrivalMs != float64(2*i) {
			t.Fatalf("session %d: %s at %v", i, tr.RequestID, s.ArrivalMs)
		}
		// Hash 7 is seen first, so it is token 0; the i-th unique hash follows.
		if d := cmp.Diff([]Segment{{Token: 0, Count: 8}, {Token: uint32(i + 1), Count: 2}}, tr.Prompt); d != "" {
			t.Fatalf("session %d prompt:\n%s", i, d)
		}
	}
}

func TestGzipMooncake(t *testing.T) {
	files := fstest.MapFS{"m.jsonl.gz": {Data: trGzip(t, `{"timestamp": 5, "input_length": 3, "output_length": 1, "hash_ids": [2]}`+"\n")}}
	got := trDrain(t, trLoad(t, trSrc(spec.FormatMooncake, "m.jsonl.gz"), trTS(1), files))
	if len(got) != 1 || got[0].Turns[0].InputLength != 3 {
		t.Fatalf("got %+v", got)
	}
}

func TestLongLine(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"timestamp": 0, "output_length": 1, "hash_ids": [`)
	for i := 0; i < 50000; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, i)
	}
	b.WriteString("]}\n")
	s := trSrc(spec.FormatMooncake, "l.jsonl")
	s.BlockSize = trInt(1)
	got := trDrain(t, trLoad(t, s, trTS(1), fstest.MapFS{"l.jsonl": {Data: []byte(b.String())}}))
	if got[0].Turns[0].InputLength != 50000 || len(got[0].Turns[0].Prompt) != 50000 {
		t.Fatalf("long line: input %d", got[0].Turns[0].InputLength)
	}
}

func TestTraceErrors(t *testing.T) {
	const v2h = `{"schema": "dynamo.agentic_mooncake", "version": 2, "block_size": 512}` + "\n"
	ok := `{"timestamp": 0, "output_length": 1, "hash_ids": [1]}` + "\n"
	dyn := func(id string, bs int) string { return dynRec(id, 10, bs, 4, 1) }
	cases := []struct {
		name, format, data string
		load               spec.Load
		block              *int
		want               string
	}{
		{"empty", spec.FormatMooncake, "\n\n", trTS(1), nil, "t.jsonl: did not contain any requests"},
		{"bad json", spec.FormatMooncake, ok + "{nope\n", trTS(1), nil, "t.jsonl:2: invalid JSON record"},
		{"wrong type", spec.FormatMooncake, ok + `{"output_length": "x", "hash_ids": [1]}` + "\n", trTS(1), nil, "t.jsonl:2: invalid JSON record"},
		{"no output", spec.FormatMooncake, `{"timestamp": 0, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:1: output_length (alias output_tokens) is required"},
		{"negative output", spec.FormatMooncake, `{"timestamp": 0, "output_length": -1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:1: output_length must be between"},
		{"no hash ids", spec.FormatMooncake, `{"timestamp": 0, "output_length": 1}`, trTS(1), nil, "t.jsonl:1: hash_ids is required"},
		{"empty hash ids", spec.FormatMooncake, "\n" + `{"timestamp": 0, "output_length": 1, "hash_ids": []}`, trTS(1), nil, "t.jsonl:2: hash_ids must not be empty"},
		{"zero input", spec.FormatMooncake, `{"timestamp": 0, "input_length": 0, "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:1: input_length must be > 0"},
		{"alias conflict", spec.FormatMooncake, `{"timestamp": 0, "input_length": 3, "input_tokens": 4, "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:1: input_length and its alias input_tokens disagree"},
		{"first turn delay", spec.FormatMooncake, `{"session_id": "s", "timestamp": 0, "delay": 3, "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, `t.jsonl:1: the first turn of session "s" has delay 3`},
		{"negative delay", spec.FormatMooncake, ok + `{"delay_ms": -1, "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:2: delay must be a finite number"},
		{"missing first timestamp", spec.FormatMooncake, ok + `{"output_length": 1, "hash_ids": [1]}`, trTS(1), nil, `t.jsonl:2: the first turn of session "request_2" has no timestamp`},
		{"time goes back", spec.FormatMooncake, `{"session_id": "s", "timestamp": 9, "output_length": 1, "hash_ids": [1]}` + "\n" + `{"session_id": "s", "timestamp": 3, "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:2: timestamp 3 is before the previous turn"},
		{"output ids length", spec.FormatMooncake, `{"timestamp": 0, "output_length": 2, "hash_ids": [1], "output_token_ids": [1]}`, trTS(1), nil, "t.jsonl:1: output_token_ids has 1 ids but output_length is 2"},
		{"agentic no request id", spec.FormatAgenticMooncake, ok, trTS(1), nil, "t.jsonl:1: request_id is required"},
		{"agentic duplicate", spec.FormatAgenticMooncake, `{"request_id": "a", "output_length": 1, "hash_ids": [1]}` + "\n" + `{"request_id": "a", "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, `t.jsonl:2: duplicate request_id "a" (first at line 1)`},
		{"agentic unknown dep", spec.FormatAgenticMooncake, `{"request_id": "a", "output_length": 1, "hash_ids": [1], "wait_for": ["zz"]}`, trTS(1), nil, `t.jsonl:1: request "a" depends on unknown request_id "zz"`},
		{"agentic self dep", spec.FormatAgenticMooncake, `{"request_id": "a", "output_length": 1, "hash_ids": [1], "wait_for": ["a"]}`, trTS(1), nil, `t.jsonl:1: request "a" depends on itself`},
		{"agentic cycle", spec.FormatAgenticMooncake, `{"request_id": "a", "output_length": 1, "hash_ids": [1], "wait_for": ["b"]}` + "\n" + `{"request_id": "b", "output_length": 1, "hash_ids": [1], "wait_for": ["a"]}`, trTS(1), nil, "is part of a dependency cycle"},
		{"agentic v2 block size", spec.FormatAgenticMooncake, v2h, trTS(1), trInt(4), "t.jsonl:1: header block_size 512 differs from traffic.source.block_size 4"},
		{"agentic v2 version", spec.FormatAgenticMooncake, `{"schema": "dynamo.agentic_mooncake", "version": 3, "block_size": 512}`, trTS(1), nil, "t.jsonl:1: unsupported agentic_mooncake header version"},
		{"agentic v2 only header", spec.FormatAgenticMooncake, v2h, trTS(1), nil, "t.jsonl: did not contain any requests"},
		{"agentic v2 hash count", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "play_id": "p", "input_length": 600, "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:2: hash_ids has 1 ids but input_length 600 needs exactly 2 blocks"},
		{"agentic v2 trigger", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "play_id": "p", "output_length": 1, "hash_ids": [1]}` + "\n" + `{"request_id": "b", "play_id": "p", "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "soon"}]}`, trTS(1), nil, `t.jsonl:3: dependencies[0] has trigger "soon"`},
		{"agentic v2 join on dispatch", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "play_id": "p", "output_length": 1, "hash_ids": [1]}` + "\n" + `{"request_id": "b", "play_id": "p", "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "dispatch", "relation": "join"}]}`, trTS(1), nil, `t.jsonl:3: dependencies[0] has relation "join" with trigger "dispatch"; a join dependency fires on its parent's completion, so use trigger: completion (only spawn may use dispatch)`},
		{"agentic v2 sequence on dispatch", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "play_id": "p", "output_length": 1, "hash_ids": [1]}` + "\n" + `{"request_id": "b", "play_id": "p", "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "dispatch", "relation": "sequence"}]}`, trTS(1), nil, `t.jsonl:3: dependencies[0] has relation "sequence" with trigger "dispatch"`},
		{"agentic v2 barrier on dispatch", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "play_id": "p", "output_length": 1, "hash_ids": [1]}` + "\n" + `{"request_id": "b", "play_id": "p", "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "dispatch", "relation": "replay_barrier"}]}`, trTS(1), nil, `t.jsonl:3: dependencies[0] has relation "replay_barrier" with trigger "dispatch"`},
		{"agentic v2 cross play", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "play_id": "p", "output_length": 1, "hash_ids": [1]}` + "\n" + `{"request_id": "b", "play_id": "q", "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "completion"}]}`, trTS(1), nil, "t.jsonl:3: request \"b\" (play \"q\") depends on \"a\" of play \"p\""},
		{"agentic v2 no play", spec.FormatAgenticMooncake, v2h + `{"request_id": "a", "output_length": 1, "hash_ids": [1]}`, trTS(1), nil, "t.jsonl:2: play_id is required"},
		{"agentic legacy with deps", spec.FormatAgenticMooncake, `{"request_id": "a", "output_length": 1, "hash_ids": [1], "dependencies": []}`, trTS(1), nil, "t.jsonl:1: dependencies/not_before_ms/play_id need the v2 header"},
		{"applied lists", spec.FormatAppliedComputeAgentic, `{"num_turns": 2, "input_prompt_length": 3, "assistant_response_length": [1], "tool_call_output_length": [1, 1], "tool_call_latency": [0, 0], "final_assistant_response_length": 1}`, trConc(1), nil, "t.jsonl:1: assistant_response_length, tool_call_output_length and tool_call_latency must each have num_turns = 2 entries"},
		{"applied prompt", spec.FormatAppliedComputeAgentic, `{"num_turns": 0, "input_prompt_length": 0, "final_assistant_response_length": 1}`, trConc(1), nil, "t.jsonl:1: input_prompt_length is required and must be > 0"},
		{"applied latency", spec.FormatAppliedComputeAgentic, `{"num_turns": 1, "input_prompt_length": 3, "assistant_response_length": [1], "tool_call_output_length": [1], "tool_call_latency": [-0.5], "final_assistant_response_length": 1}`, trConc(1), nil, "t.jsonl:1: tool_call_latency[0] = -0.5 must be a finite number of seconds"},
		{"applied huge", spec.FormatAppliedComputeAgentic, `{"num_turns": 0, "input_prompt_length": 99999999999, "final_assistant_response_length": 1}`, trConc(1), nil, "t.jsonl:1: the episode's context grows past"},
		{"dynamo empty", spec.FormatDynamo, `{"event_type": "tool_start"}`, trTS(1), nil, "t.jsonl: did not contain any requests"},
		{"dynamo event type", spec.FormatDynamo, `{"schema": "dynamo.request.trace.v1", "event_type": "request_start"}`, trTS(1), nil, `t.jsonl:1: unknown event_type "request_start"`},
		{"dynamo schema", spec.FormatDynamo, `{"event_type": "request_end"}`, trTS(1), nil, "t.jsonl:1: schema is none"},
		{"dynamo mixed block sizes", spec.FormatDynamo, dyn("a", 4) + dyn("b", 8), trTS(1), nil, "t.jsonl:2: trace_block_size 8 differs from 4 used at t.jsonl:1"},
		{"dynamo explicit block size", spec.FormatDynamo, dyn("a", 4), trTS(1), trInt(16), "t.jsonl:1: trace_block_size 4 differs from traffic.source.block_size 16"},
		{"dynamo duplicate", spec.FormatDynamo, dyn("a", 4) + "\n" + dyn("a", 4), trTS(1), nil, `t.jsonl:3: duplicate request_id "a" (first at t.jsonl:1)`},
		{"dynamo hash count", spec.FormatDynamo, dynRec("a", 1, 4, 9, 1, 2), trTS(1), nil, "t.jsonl:1: request.replay.input_sequence_hashes has 2 hashes but input_length 9 needs ceil(9/4) = 3"},
		{"dynamo output", spec.FormatDynamo, strings.Replace(dyn("a", 4), `"output_tokens": 2`, `"output_tokens": 0`, 1), trTS(1), nil, "t.jsonl:1: request.output_tokens is required"},
		{"dynamo input tokens", spec.FormatDynamo, strings.Replace(dyn("a", 4), `"output_tokens": 2`, `"output_tokens": 2, "input_tokens": 5`, 1), trTS(1), nil, "t.jsonl:1: request.input_tokens 5 differs from request.replay.input_length 4"},
		{"dynamo mixed context", spec.FormatDynamo, dyn("a", 4) + strings.Replace(dyn("b", 4), `"event_type"`, `"agent_context": {"session_id": "s"}, "event_type"`, 1), trTS(1), nil, "t.jsonl:2: agent_context is present here but absent at t.jsonl:1"},
		{"dynamo unknown source", spec.FormatDynamo, strings.Replace(dyn("a", 4), `"event_type"`, `"agent_context": {"session_id": "s"}, "event_type"`, 1) + `{"schema": "dynamo.request.trace.v1", "event_type": "tool_end", "tool": {"claude": {"source_request_id": "q"}}}`, trTS(1), nil, `t.jsonl:2: tool.claude.source_request_id "q" names no request_end record`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := trSrc(tc.format, "t.jsonl")
			s.BlockSize = tc.block
			_, err := LoadTrace(s, tc.load, fstest.MapFS{"t.jsonl": {Data: []byte(tc.data)}})
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			var te *Error
			if !errors.As(err, &te) {
				t.Fatalf("error %T %v is not a *traffic.Error", err, err)
			}
			if !strings.Contains(te.Msg, tc.want) {
				t.Fatalf("error %q does not contain %q", err, tc.want)
			}
		})
	}
}

func TestTracePathErrors(t *testing.T) {
	_, err := LoadTrace(trSrc(spec.FormatMooncake, "missing.jsonl"), trTS(1), fstest.MapFS{})
	var te *Error
	if !errors.As(err, &te) || te.BlockSize || !strings.HasPrefix(te.Msg, "missing.jsonl: cannot open trace file") {
		t.Fatalf("missing file: %v", err)
	}
	_, err = LoadTrace(trSrc(spec.FormatMooncake, "bad.gz"), trTS(1), fstest.MapFS{"bad.gz": {Data: []byte("plain")}})
	if err == nil || !strings.Contains(err.Error(), "bad.gz: not a valid gzip file") {
		t.Fatalf("bad gzip: %v", err)
	}
}

// A dynamo trace whose block size contradicts traffic.source.block_size is that key's fault.
func TestDynamoBlockSizeErrorField(t *testing.T) {
	s := trSrc(spec.FormatDynamo, "t.jsonl")
	s.BlockSize = trInt(16)
	_, err := LoadTrace(s, trTS(1), fstest.MapFS{"t.jsonl": {Data: []byte(dynRec("a", 10, 4, 4, 1))}})
	var te *Error
	if !errors.As(err, &te) || !te.BlockSize {
		t.Fatalf("err %v, want a block-size *traffic.Error", err)
	}
}

func TestDynamoAgenticConcurrency(t *testing.T) {
	w := trLoad(t, trSrc(spec.FormatDynamo, "dynamo_agentic.jsonl"), trConc(3), trTestdata)
	if w.Graph == nil || w.Graph.Lanes != 3 || w.OpenLoop || w.Concurrency != 3 {
		t.Fatalf("graph %v, open loop %v, concurrency %d", w.Graph != nil, w.OpenLoop, w.Concurrency)
	}
	want := wantDynamoAgentic(1)
	if d := cmp.Diff(want, w.Graph.Nodes); d != "" {
		t.Fatalf("nodes (-want +got):\n%s", d)
	}
}

func TestNumericIDs(t *testing.T) {
	data := `{"session_id": "", "timestamp": 1, "output_length": 1, "hash_ids": [3]}` + "\n" +
		`{"session_id": 12, "request_id": 7, "timestamp": 1, "output_length": 1, "hash_ids": [3]}` + "\n" +
		`{"session_id": "12", "delay": 2, "output_length": 1, "hash_ids": [3]}` + "\n"
	s := trSrc(spec.FormatMooncakeDelta, "n.jsonl")
	w := trLoad(t, s, trTS(1), fstest.MapFS{"n.jsonl": {Data: []byte(data)}})
	got := trDrain(t, w)
	// An empty session_id counts as absent.
	if len(got) != 2 || got[0].ID != "request_1" || got[1].ID != "12" || got[1].Turns[0].RequestID != "7" || len(got[1].Turns) != 2 {
		t.Fatalf("sessions %+v", got)
	}
	if got[1].Turns[1].InputLength != 512+1+512 {
		t.Fatalf("delta input %d, want 1025", got[1].Turns[1].InputLength)
	}
}

// A row without session_id is the session "request_<line>", and a row that names that id
// joins it, whether the named row comes after it (line 2 joins line 1) or before it (line 4
// joins the session line 3 opened).
func TestMooncakeDefaultSessionIDsJoin(t *testing.T) {
	data := `{"timestamp": 0, "input_length": 4, "output_length": 1, "hash_ids": [1]}` + "\n" +
		`{"session_id": "request_1", "delay": 5, "input_length": 4, "output_length": 1, "hash_ids": [2]}` + "\n" +
		`{"session_id": "request_4", "timestamp": 3, "input_length": 4, "output_length": 1, "hash_ids": [3]}` + "\n" +
		`{"delay": 7, "input_length": 4, "output_length": 1, "hash_ids": [4]}` + "\n" +
		`{"timestamp": 9, "input_length": 4, "output_length": 1, "hash_ids": [5]}` + "\n"
	w := trLoad(t, trSrc(spec.FormatMooncake, "j.jsonl"), trTS(1), fstest.MapFS{"j.jsonl": {Data: []byte(data)}})
	got := trDrain(t, w)
	var ids []string
	var turns []int
	for _, s := range got {
		ids = append(ids, s.ID)
		turns = append(turns, len(s.Turns))
	}
	if d := cmp.Diff([]string{"request_1", "request_4", "request_5"}, ids); d != "" {
		t.Fatalf("session ids (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]int{2, 2, 1}, turns); d != "" {
		t.Fatalf("turns per session (-want +got):\n%s", d)
	}
	if got[0].Turns[1].DelayMs != 5 || got[1].Turns[1].DelayMs != 7 {
		t.Fatalf("delays %v and %v, want 5 and 7", got[0].Turns[1].DelayMs, got[1].Turns[1].DelayMs)
	}
}
