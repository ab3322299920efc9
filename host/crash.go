package host

import (
	"aisimulate/internal/termsafe"
	"bytes"
	"fmt"
	"io"
	"strings"
)

// EnvTraceback, set to 1, passes the Go runtime's crash report (goroutine dump) of a crashed
// module through to stderr, for debugging. Without it a crash is reported in one line.
const EnvTraceback = "AISIMULATE_TRACEBACK"

// crashMarkers start the lines the Go runtime writes when a program panics or dies (an
// unrecovered panic, `fatal error: out of memory`, `runtime: out of memory: …`). The module's
// own messages never start a line with them.
var crashMarkers = []string{"panic: ", "fatal error: ", "runtime: "}

// maxCrashText bounds how much of a crash report is kept for its summary line.
const maxCrashText = 64 << 10

// crashFilter passes the module's stderr through until a line starts with a crash marker;
// from there on it keeps the report (up to maxCrashText) instead of printing it, so the host
// can say in one line what went wrong. Bytes that could still become a marker at the start of
// a line are held back until they cannot; everything else is written at once (progress lines
// that end in a carriage return are not delayed).
type crashFilter struct {
	w       io.Writer
	trace   bool   // also pass the crash report through (EnvTraceback)
	held    []byte // start of the current line, a prefix of some marker
	mid     bool   // inside a line that is not a crash line
	crashed bool
	report  []byte
}

func (f *crashFilter) Write(p []byte) (int, error) {
	n := len(p)
	if f.crashed {
		f.keep(p)
		return n, nil
	}
	for len(p) > 0 {
		if f.mid {
			end := bytes.IndexAny(p, "\n\r")
			if end < 0 {
				_, err := f.w.Write(p)
				return n, err
			}
			if _, err := f.w.Write(p[:end+1]); err != nil {
				return n, err
			}
			p, f.mid = p[end+1:], false
			continue
		}
		f.held = append(f.held, p[0])
		p = p[1:]
		switch markerState(f.held) {
		case markerFound:
			f.crashed = true
			f.keep(f.held)
			f.keep(p)
			f.held = nil
			return n, nil
		case markerPrefix:
			continue
		}
		last := f.held[len(f.held)-1]
		_, err := f.w.Write(f.held)
		f.held = f.held[:0]
		f.mid = last != '\n' && last != '\r'
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func (f *crashFilter) keep(p []byte) {
	if f.trace {
		f.w.Write(p)
	}
	if room := maxCrashText - len(f.report); room > 0 {
		f.report = append(f.report, p[:min(room, len(p))]...)
	}
}

// flush writes what is still held back (a line that ended while it could have been a marker).
func (f *crashFilter) flush() {
	if !f.crashed && len(f.held) > 0 {
		f.w.Write(f.held)
		f.held = nil
	}
}

type markerMatch int

const (
	markerNone markerMatch = iota
	markerPrefix
	markerFound
)

func markerState(line []byte) markerMatch {
	state := markerNone
	for _, m := range crashMarkers {
		switch {
		case bytes.HasPrefix(line, []byte(m)):
			return markerFound
		case bytes.HasPrefix([]byte(m), line):
			state = markerPrefix
		}
	}
	return state
}

// crashMessage turns a Go runtime crash report of the command args into the one-line reason
// the user sees, its text escaped (termsafe).
func crashMessage(report []byte, args []string) string {
	var fatal, panicMsg, runtimeMsg string
	for _, line := range strings.Split(string(report), "\n") {
		switch {
		case fatal == "" && strings.HasPrefix(line, "fatal error: "):
			fatal = strings.TrimPrefix(line, "fatal error: ")
		case panicMsg == "" && strings.HasPrefix(line, "panic: "):
			panicMsg = strings.TrimPrefix(line, "panic: ")
		case runtimeMsg == "" && strings.HasPrefix(line, "runtime: "):
			runtimeMsg = strings.TrimPrefix(line, "runtime: ")
		}
	}
	switch {
	case fatal == "out of memory" || strings.HasPrefix(runtimeMsg, "out of memory"):
		if lim := addressSpaceLimit(); lim > 0 && lim < instanceReservation+hostHeadroom+mappedBytes() {
			return fmt.Sprintf("out of memory: the run needs more than the simulator memory the address-space limit (ulimit -v) of %d MiB leaves; raise the limit, or ", lim>>20) + oomAdvice(args)
		}
		return "out of memory: the run needs more than the simulator's 4 GiB of WebAssembly memory; " + oomAdvice(args)
	case panicMsg != "":
		return "internal error: " + termsafe.Escape(panicMsg)
	case fatal != "":
		return "internal error: " + termsafe.Escape(fatal)
	default:
		return "internal error: " + termsafe.Escape(runtimeMsg)
	}
}

// oomAdvice says which sizes of the command args bring a run under the module's memory.
func oomAdvice(args []string) string {
	if len(args) > 0 && args[0] == "recommend" {
		return "search fewer GPUs (optimization.constraints.max_candidate_gpus), shorter preset lists or fewer simulated requests per candidate"
	}
	advice := "simulate fewer requests, replicas or KV blocks"
	for _, a := range args {
		if a == "--" {
			break
		}
		if strings.HasPrefix("--capture-per-request", a) && len(a) > len("--capt") {
			return advice + ", or leave out --capture-per-request"
		}
	}
	return advice
}

// failurePrefix is how the host names a failed command: `aisimulate predict failed` for the
// subcommands, as the module itself says it.
func failurePrefix(args []string) string {
	if len(args) > 0 && (args[0] == "predict" || args[0] == "recommend") {
		return fmt.Sprintf("aisimulate %s failed", args[0])
	}
	return "aisimulate failed"
}
