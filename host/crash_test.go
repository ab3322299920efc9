package host

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A panic in the module is one line and exit 1, not a goroutine dump and exit 2; what the
// module wrote before it still reaches stderr.
func TestPanicIsOneLineAndExit1(t *testing.T) {
	code, _, errOut := runGuest(t, context.Background(), "", nil, "panic")
	want := "progress 50%\naisimulate failed: internal error: boom\n"
	if code != ExitFailure || errOut != want {
		t.Fatalf("code %d stderr %q; want 1 and %q", code, errOut, want)
	}
}

// Running out of the module's memory says so in one line, with exit 1.
func TestOutOfMemoryIsOneLineAndExit1(t *testing.T) {
	code, _, errOut := runGuest(t, context.Background(), "", nil, "oom")
	if code != ExitFailure || strings.Count(errOut, "\n") != 1 ||
		!strings.HasPrefix(errOut, "aisimulate failed: out of memory: ") {
		t.Fatalf("code %d stderr %q", code, errOut)
	}
}

// AISIMULATE_TRACEBACK=1 keeps the runtime's report for debugging.
func TestTracebackOnRequest(t *testing.T) {
	code, _, errOut := runGuest(t, context.Background(), "", []string{EnvTraceback + "=1"}, "panic")
	if code != ExitFailure || !strings.Contains(errOut, "panic: boom") || !strings.Contains(errOut, "goroutine 1") ||
		!strings.HasSuffix(errOut, "aisimulate failed: internal error: boom\n") {
		t.Fatalf("code %d stderr %q", code, errOut)
	}
}

func TestFailurePrefixNamesTheCommand(t *testing.T) {
	for args, want := range map[string]string{"predict --config x": "aisimulate predict failed",
		"recommend": "aisimulate recommend failed", "--help": "aisimulate failed", "": "aisimulate failed"} {
		if got := failurePrefix(strings.Fields(args)); got != want {
			t.Errorf("%q: %q, want %q", args, got, want)
		}
	}
}

// The filter passes ordinary output through unchanged and at once, whatever the write
// boundaries, and holds back only what could still start a crash line.
func TestCrashFilterPassesOrdinaryOutput(t *testing.T) {
	text := "aisimulate: error: x.yaml: engine.model: unknown\r12/40 trials\rpan\npanics are fine mid-line: panic: \nrun"
	for chunk := 1; chunk <= len(text); chunk++ {
		var out bytes.Buffer
		f := &crashFilter{w: &out}
		for i := 0; i < len(text); i += chunk {
			f.Write([]byte(text[i:min(i+chunk, len(text))]))
		}
		if chunk == 1 && out.String() != strings.TrimSuffix(text, "run") {
			t.Errorf("held back too much before flush: %q", out.String())
		}
		f.flush()
		if out.String() != text || f.crashed {
			t.Fatalf("chunk %d: %q crashed=%v", chunk, out.String(), f.crashed)
		}
	}
}

func TestCrashFilterCatchesSplitMarker(t *testing.T) {
	var out bytes.Buffer
	f := &crashFilter{w: &out}
	for _, p := range []string{"ok\nfat", "al err", "or: out of memory\n\ngoroutine 1 [running]:\n"} {
		f.Write([]byte(p))
	}
	f.flush()
	if out.String() != "ok\n" || !f.crashed || !strings.HasPrefix(crashMessage(f.report, nil), "out of memory: ") {
		t.Fatalf("out %q crashed %v report %q", out.String(), f.crashed, f.report)
	}
}

// The out-of-memory advice fits the command: capture only when it was asked for, the search's
// sizes for recommend.
func TestOutOfMemoryAdvice(t *testing.T) {
	report := []byte("fatal error: out of memory\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"predict", "-c", "x.yaml"}, "; simulate fewer requests, replicas or KV blocks"},
		{[]string{"predict", "-c", "x.yaml", "--capture"}, "; simulate fewer requests, replicas or KV blocks, or leave out --capture-per-request"},
		{[]string{"recommend", "-c", "x.yaml"}, "; search fewer GPUs (optimization.constraints.max_candidate_gpus), shorter preset lists or fewer simulated requests per candidate"},
	} {
		if got := crashMessage(report, c.args); !strings.HasSuffix(got, c.want) {
			t.Errorf("%v: %q", c.args, got)
		}
	}
	if got := crashMessage([]byte("panic: bad key \x1b]0;PWN\a\n"), nil); got != `internal error: bad key \x1b]0;PWN\a` {
		t.Errorf("escaped panic: %q", got)
	}
}
