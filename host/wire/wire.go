// Package wire is the contract between the native host (host/) and the wasip1 module it runs
// for `recommend`'s parallel and remote evaluation (docs/recommend.md, "Parallel and remote
// evaluation"): the host functions the module imports, the JSON messages passed through them,
// and the length-prefixed frames of the evaluator instances. It imports neither the host nor
// the simulator, so both sides share one definition.
package wire

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
)

// Module is the import module name of the host functions (distinct from the name of the
// module instance itself, "aisimulate", since one runtime holds both).
const Module = "aisimulate_host"

// The two host functions: Call(ptr, len) takes a Call message in guest memory, runs it and
// returns the byte length of its Reply; Result(ptr) copies that Reply to ptr (a two-step read,
// since the guest cannot know the length of a reply in advance).
const (
	FuncCall   = "call"
	FuncResult = "result"
)

// EvaluateCommand is the hidden subcommand of an evaluator instance: it reads frames holding
// one simcore.EvaluationRequest JSON each from standard input and writes a frame holding the
// outcome's canonical JSON (simcore.Evaluate) to standard output for each, until end of input.
const EvaluateCommand = "__evaluate"

// The operations of a Call.
const (
	// OpStart prepares the evaluators of one recommendation (Start says how); the reply says
	// whether to evaluate in the module itself (InProcess) or how many local instances the
	// host will use.
	OpStart = "start"
	// OpEvaluate evaluates one round's requests; the reply holds their outcomes in request
	// order.
	OpEvaluate = "evaluate"
	// OpDistrust tells the host that the remote Call.Remote answered wrong outcomes
	// (Call.Reason says how): it sends it no more requests.
	OpDistrust = "distrust"
	// OpFinish stops the evaluators; the reply counts the evaluations moved from remote
	// workers to local instances because they were over a worker's limits.
	OpFinish = "finish"
)

// Call is one message from the module to the host.
type Call struct {
	Op    string `json:"op"`
	Start *Start `json:"start,omitempty"`
	// Requests are simcore.EvaluationRequest JSON objects (OpEvaluate).
	Requests []json.RawMessage `json:"requests,omitempty"`
	// Files are the files the requests read (trace paths, a local model directory's files),
	// named as the configuration names them, relative to the working directory (OpEvaluate,
	// sent to remote workers as multipart parts).
	Files []string `json:"files,omitempty"`
	// Local evaluates the requests on trusted evaluators only (local instances), never on a
	// remote worker (OpEvaluate): to check remote outcomes.
	Local bool `json:"local,omitempty"`
	// Remote and Reason name the distrusted remote URL and why (OpDistrust).
	Remote string `json:"remote,omitempty"`
	Reason string `json:"reason,omitempty"`
}

// Start configures the evaluators of one recommendation.
type Start struct {
	// Parallelism is optimizer.parallelism: local instances are min(Parallelism, cores).
	Parallelism int `json:"parallelism"`
	// Remote are the --remote URLs (empty: local instances only).
	Remote []string `json:"remote,omitempty"`
	// RemoteConcurrency is the number of requests in flight per remote URL.
	RemoteConcurrency int `json:"remote_concurrency,omitempty"`
	// ModuleVersion is simcore.Version of the module: remote workers must report the same.
	ModuleVersion string `json:"module_version"`
	// RemoteTimeoutSeconds bounds one request to a remote worker (--remote-timeout): past it
	// the URL is dropped and the request goes to another evaluator.
	RemoteTimeoutSeconds float64 `json:"remote_timeout_seconds,omitempty"`
}

// Reply is the host's answer to a Call.
type Reply struct {
	// InProcess tells the module to evaluate itself, one candidate after the other (a single
	// core, or a runner without evaluator instances).
	InProcess bool `json:"in_process,omitempty"`
	// Instances is the number of local evaluator instances the host uses (OpStart).
	Instances int `json:"instances,omitempty"`
	// Error is what went wrong; Usage makes it a usage error (exit 2) rather than a failure.
	Error string `json:"error,omitempty"`
	Usage bool   `json:"usage,omitempty"`
	// Outcomes are simcore.Evaluate's bytes per request, in request order (OpEvaluate).
	Outcomes []json.RawMessage `json:"outcomes,omitempty"`
	// Sources name, per outcome, the remote URL that answered it ("" for a local instance);
	// absent when no remote worker is used (OpEvaluate).
	Sources []string `json:"sources,omitempty"`
	// LocalFallbacks counts requests a remote worker refused as over its limits and a local
	// instance evaluated instead (OpFinish).
	LocalFallbacks int `json:"local_fallbacks,omitempty"`
}

// EnvMemoryBytes, in the module's environment, is the size in bytes of the memory the host
// could reserve for it when an address-space limit leaves less than 4 GiB: the module sizes
// its memory estimate to it (docs/robustness.md, "Address-space limits").
const EnvMemoryBytes = "AISIMULATE_MEMORY_BYTES"

// MaxFrame bounds a frame's length (a request holds one configuration, an outcome one
// summary: both are a few kilobytes).
const MaxFrame = 64 << 20

// WriteFrame writes b preceded by its length as a 4-byte big-endian integer.
func WriteFrame(w io.Writer, b []byte) error {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// ReadFrame reads one frame written by WriteFrame; io.EOF when the input ends before it.
func ReadFrame(r io.Reader) ([]byte, error) {
	var n [4]byte
	if _, err := io.ReadFull(r, n[:]); err != nil {
		return nil, err
	}
	size := binary.BigEndian.Uint32(n[:])
	if size > MaxFrame {
		return nil, fmt.Errorf("frame of %d bytes exceeds the limit of %d", size, MaxFrame)
	}
	b := make([]byte, size)
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return b, nil
}
