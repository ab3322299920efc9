package traffic

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
	"testing/fstest"

	"aisimulate/simcore/spec"
)

// checkLoadResult asserts the contract of LoadTrace on arbitrary input: a *traffic.Error, or a
// workload whose prompts cover exactly their input lengths and whose times are finite and
// non-negative.
func checkLoadResult(t *testing.T, w *Workload, err error) {
	t.Helper()
	if err != nil {
		var te *Error
		if !errors.As(err, &te) {
			t.Fatalf("error %T is not a *traffic.Error: %v", err, err)
		}
		if w != nil {
			t.Fatal("both a workload and an error")
		}
		return
	}
	good := func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }
	checkTurn := func(tr Turn) {
		if tr.InputLength <= 0 || trLen(tr.Prompt) != tr.InputLength {
			t.Fatalf("input %d, prompt %d tokens", tr.InputLength, trLen(tr.Prompt))
		}
		for _, s := range tr.Prompt {
			if s.Count <= 0 {
				t.Fatalf("segment with count %d", s.Count)
			}
		}
		if tr.OutputLength < 0 || !good(tr.DelayMs) {
			t.Fatalf("output %d, delay %v", tr.OutputLength, tr.DelayMs)
		}
		if tr.OutputTokens != nil && trLen(tr.OutputTokens) != tr.OutputLength {
			t.Fatalf("output tokens %d for output %d", trLen(tr.OutputTokens), tr.OutputLength)
		}
	}
	if w.Graph != nil {
		nodes := w.Graph.Nodes
		if len(nodes) == 0 {
			t.Fatal("empty graph without error")
		}
		for i, n := range nodes {
			checkTurn(n.Turn)
			if !good(n.NotBeforeMs) {
				t.Fatalf("node %d not_before %v", i, n.NotBeforeMs)
			}
			for _, d := range n.Deps {
				if d.Parent < 0 || d.Parent >= len(nodes) || d.Parent == i || !good(d.DelayMs) {
					t.Fatalf("node %d dep %+v", i, d)
				}
			}
		}
		if _, cyc := findCycle(nodes); cyc {
			t.Fatal("cyclic graph")
		}
		return
	}
	n := 0
	for {
		s, ok := w.Next()
		if !ok {
			break
		}
		n++
		if len(s.Turns) == 0 || !good(s.ArrivalMs) {
			t.Fatalf("session %q: %d turns, arrival %v", s.ID, len(s.Turns), s.ArrivalMs)
		}
		for _, tr := range s.Turns {
			checkTurn(tr)
		}
	}
	if n != w.Sessions || n == 0 {
		t.Fatalf("yielded %d sessions, Sessions = %d", n, w.Sessions)
	}
}

func fuzzLoad(format string, data []byte, timestamps bool, block int) (*Workload, error) {
	s := trSrc(format, "f.jsonl")
	if block > 0 {
		s.BlockSize = &block
	}
	l := trConc(2)
	if timestamps {
		l = trTS(1.5)
	}
	return LoadTrace(s, l, fstest.MapFS{"f.jsonl": {Data: data}})
}

func FuzzMooncake(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 32, "output_length": 4, "hash_ids": [5]}`+"\n"), false, true)
	f.Add([]byte(`{"session_id": "s", "timestamp": 0, "input_length": 16, "output_length": 4, "hash_ids": [1]}`+"\n"+`{"session_id": "s", "delay": 5, "input_length": 8, "output_length": 4, "hash_ids": [2]}`), true, false)
	f.Fuzz(func(t *testing.T, data []byte, delta, timestamps bool) {
		format := spec.FormatMooncake
		if delta {
			format = spec.FormatMooncakeDelta
		}
		for _, bs := range []int{0, 3} {
			w, err := fuzzLoad(format, data, timestamps, bs)
			checkLoadResult(t, w, err)
		}
	})
}

func FuzzAgentic(f *testing.F) {
	f.Add([]byte(`{"schema": "dynamo.agentic_mooncake", "version": 2, "block_size": 4}
{"request_id": "a", "play_id": "p", "input_length": 4, "output_length": 1, "hash_ids": [1]}
{"request_id": "b", "play_id": "p", "input_length": 4, "output_length": 1, "hash_ids": [1], "dependencies": [{"request_id": "a", "trigger": "dispatch", "delay_ms": 5}]}`), true)
	f.Add([]byte(`{"request_id": "r1", "output_length": 1, "hash_ids": [0]}
{"request_id": "r2", "output_length": 1, "hash_ids": [0], "wait_for": ["r1"], "tool_wait_ms": 3}`), false)
	f.Fuzz(func(t *testing.T, data []byte, timestamps bool) {
		w, err := fuzzLoad(spec.FormatAgenticMooncake, data, timestamps, 4)
		checkLoadResult(t, w, err)
	})
}

func FuzzAppliedCompute(f *testing.F) {
	f.Add([]byte(`{"num_turns": 2, "input_prompt_length": 16, "assistant_response_length": [4, 4], "tool_call_output_length": [8, 8], "tool_call_latency": [0.5, 1.25], "final_assistant_response_length": 4}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, bs := range []int{0, 5} {
			w, err := fuzzLoad(spec.FormatAppliedComputeAgentic, data, false, bs)
			checkLoadResult(t, w, err)
		}
	})
}

func FuzzDynamo(f *testing.F) {
	f.Add([]byte(dynRec("a", 10, 4, 6, 1, 2)), []byte(dynRec("b", 12, 4, 3, 1)), true)
	f.Add([]byte(`{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "event_time_unix_ms": 110, "agent_context": {"session_id": "p"}, "request": {"request_id": "a", "output_tokens": 2, "request_received_ms": 100, "total_time_ms": 10, "replay": {"trace_block_size": 4, "input_length": 4, "input_sequence_hashes": [11]}}}`),
		[]byte(`{"schema": "dynamo.request.trace.v1", "event_type": "request_end", "event_time_unix_ms": 130, "agent_context": {"session_id": "c", "parent_session_id": "p"}, "request": {"request_id": "b", "output_tokens": 2, "request_received_ms": 105, "total_time_ms": 10, "replay": {"trace_block_size": 4, "input_length": 4, "input_sequence_hashes": [12]}}}`), false)
	f.Fuzz(func(t *testing.T, a, b []byte, timestamps bool) {
		s := trSrc(spec.FormatDynamo, "a.jsonl", "b.jsonl.gz")
		l := trConc(2)
		if timestamps {
			l = trTS(2)
		}
		// The second shard is read gzip-compressed and as plain text; both must agree.
		files := fstest.MapFS{"a.jsonl": {Data: a}, "b.jsonl.gz": {Data: trGzip(t, string(b))}, "b.jsonl": {Data: b}}
		w, err := LoadTrace(s, l, files)
		checkLoadResult(t, w, err)
		s.Paths[1] = "b.jsonl"
		w2, err2 := LoadTrace(s, l, files)
		checkLoadResult(t, w2, err2)
		if (err == nil) != (err2 == nil) {
			t.Fatalf("gzip shard: %v, plain shard: %v", err, err2)
		}
	})
}

func TestInternerFirstSeen(t *testing.T) {
	in := newInterner()
	seq := []uint64{5, 1 << 40, 5, 3, 100000, 1 << 40, 7000, 3, 2, 100000, 4000}
	want := []uint32{0, 1, 0, 2, 3, 1, 4, 2, 5, 3, 6}
	for i, h := range seq {
		if got := in.id(h); got != want[i] {
			t.Fatalf("id(%d) at %d = %d, want %d", h, i, got, want[i])
		}
	}
}

// FuzzFastRow checks the reflection-free row decoder against encoding/json: whenever it
// accepts a line, encoding/json accepts it too and decodes the same row.
func FuzzFastRow(f *testing.F) {
	f.Add([]byte(`{"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2, 3]}`))
	f.Add([]byte(`{"session_id": 12, "request_id": "r-1", "created_time": 1.5e3, "input_tokens": null, "output_tokens": 7, "hash_ids": [], "delay_ms": 0.25, "priority": -3, "flag": true, "x": "y", "output_token_ids": [1, 18446744073709551615]}`))
	// Around the largest uint64: in range, one past it, a last digit past it, a digit more.
	f.Add([]byte(`{"hash_ids": [18446744073709551610, 18446744073709551615]}`))
	f.Add([]byte(`{"hash_ids": [18446744073709551616]}`))
	f.Add([]byte(`{"hash_ids": [18446744073709551619]}`))
	f.Add([]byte(`{"hash_ids": [184467440737095516150]}`))
	f.Add([]byte(`{"Timestamp": 4, "hash_ids": [1]}`))
	f.Add([]byte(`{"hash_ids": [18446744073709551616]}`)) // one past the largest uint64
	f.Add([]byte(`{"wait_for": ["a"], "hash_ids": [1, 2]} `))
	f.Fuzz(func(t *testing.T, line []byte) {
		var fr mooncakeRowDecoder
		var got mooncakeRow
		if !fr.decode(line, &got) {
			return
		}
		var want mooncakeRow
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("fast decoder accepted %q, encoding/json: %v", line, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("fast decoder differs on %q:\n got %+v\nwant %+v", line, got, want)
		}
		// The reused storage decodes a second line correctly too.
		var again mooncakeRow
		if !fr.decode(line, &again) || !reflect.DeepEqual(again, want) {
			t.Fatalf("second decode of %q differs", line)
		}
	})
}

// FuzzWeka reads arbitrary bytes as a weka .json trace and as a .jsonl corpus file, under
// each nested timestamp basis.
func FuzzWeka(f *testing.F) {
	f.Add([]byte(`{"id": "p", "block_size": 4, "hash_id_scope": "local", "requests": [{"t": 0, "type": "s", "model": "m", "in": 8, "out": 1, "hash_ids": [1, 2], "api_time": 1}, {"t": 0.3, "type": "subagent", "agent_id": "a", "status": "completed", "duration_ms": 400, "requests": [{"t": 0.3, "type": "s", "model": "m", "in": 6, "out": 0, "hash_ids": [3]}]}, {"t": 1, "type": "n", "model": "m", "in": 9, "out": 1, "hash_ids": [1, 2, 5]}]}`), uint8(0))
	f.Add([]byte(`{"id": "p", "block_size": 4, "hash_id_scope": "local", "requests": [{"t": 0, "type": "s", "model": "m", "in": 8, "out": 1, "hash_ids": [1, 2], "api_time": 2}, {"t": 0.5, "type": "s", "model": "m", "in": 8, "out": 1, "hash_ids": [1, 3]}, {"t": 2, "type": "s", "model": "m", "in": 12, "out": 1, "hash_ids": [1, 2, 5]}]}`), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		basis := []string{"", "absolute", "relative"}[mode%3]
		for _, name := range []string{"f.json", "f.jsonl"} {
			s := trSrc(spec.FormatWeka, name)
			s.NestedTimestampBasis = basis
			w, err := LoadTrace(s, trTS(1.5), fstest.MapFS{name: {Data: data}})
			checkLoadResult(t, w, err)
		}
	})
}
