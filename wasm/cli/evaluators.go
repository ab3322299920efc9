package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"

	"aisimulate/host/wire"
	"aisimulate/internal/termsafe"
	"aisimulate/simcore"
	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// hostCall sends one wire.Call to the native host and returns its wire.Reply; nil when the
// module does not run under a host that provides it (the package's native tests). Set by
// hostcall_wasip1.go.
var hostCall func(call []byte) []byte

// DefaultRemoteConcurrency is the --remote-concurrency default: requests in flight per URL.
const DefaultRemoteConcurrency = 4

// runEvaluator is the hidden `aisimulate __evaluate` of an evaluator instance: it answers
// every frame of standard input (a simcore.EvaluationRequest) with a frame holding
// simcore.Evaluate's bytes, until the input ends (host/wire).
func runEvaluator(stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewReader(stdin)
	out := bufio.NewWriter(stdout)
	for {
		b, err := wire.ReadFrame(in)
		if errors.Is(err, io.EOF) {
			return ExitOK
		}
		var req simcore.EvaluationRequest
		if err == nil {
			err = json.Unmarshal(b, &req)
		}
		if err != nil {
			fmt.Fprintf(stderr, "aisimulate %s: bad request: %v\n", wire.EvaluateCommand, err)
			return ExitFailure
		}
		if err := wire.WriteFrame(out, simcore.Evaluate(req, osFS{})); err != nil {
			return ExitFailure
		}
		if err := out.Flush(); err != nil {
			return ExitFailure
		}
		collectBetweenEvaluations()
	}
}

// evaluatorHeapCollect is the heap size from which an evaluator collects between two
// evaluations.
const evaluatorHeapCollect = 256 << 20

// collectBetweenEvaluations collects when the heap holds evaluatorHeapCollect bytes or more.
// Everything the last evaluation allocated is garbage now and little else is live, so a
// collection here is cheap, and the next candidates reuse memory already touched instead of
// growing the instance's memory towards the 1 GiB from which wasm/wasip1 lets the collector
// run: with two instances on the seed benchmark, page faults on fresh memory cost more system
// time than these collections cost (docs/recommend.md, "Parallel and remote evaluation").
func collectBetweenEvaluations() { simcore.CollectAbove(evaluatorHeapCollect) }

// evaluators are the host's evaluators of one recommendation (local module instances and
// remote edge workers); nil means the module evaluates every candidate itself.
type evaluators struct {
	files    []string
	filesSet bool
}

// startEvaluators asks the host for evaluators (docs/recommend.md, "Parallel and remote
// evaluation"): nil when the module evaluates in process (one core, parallelism 1, or no
// host). A remote URL that cannot be reached or runs another version is a usage error.
func startEvaluators(start wire.Start) (*evaluators, error) {
	if hostCall == nil {
		if len(start.Remote) > 0 {
			return nil, recommendErr("argument --remote: only the native aisimulate binary sends requests to remote workers")
		}
		return nil, nil
	}
	reply, err := callHost(wire.Call{Op: wire.OpStart, Start: &start})
	if err != nil || reply.InProcess {
		return nil, err
	}
	return &evaluators{}, nil
}

// evaluate evaluates a round of simcore.Recommender.Run, or RunChecked's recomputations: its
// requests to the host's local instances, which are trusted (never a remote worker).
func (e *evaluators) evaluate(reqs []simcore.EvaluationRequest) ([][]byte, error) {
	reply, err := e.call(reqs, true)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(reqs))
	for i, o := range reply.Outcomes {
		out[i] = o
	}
	return out, nil
}

// evaluateRemote is simcore.Remote.Evaluate: one round's requests to the remote
// workers, each outcome with the URL that answered it.
func (e *evaluators) evaluateRemote(reqs []simcore.EvaluationRequest) ([]simcore.RemoteOutcome, error) {
	reply, err := e.call(reqs, false)
	if err != nil {
		return nil, err
	}
	out := make([]simcore.RemoteOutcome, len(reqs))
	for i, o := range reply.Outcomes {
		out[i].Outcome = o
		if i < len(reply.Sources) {
			out[i].Remote = reply.Sources[i]
		}
	}
	return out, nil
}

// distrust is simcore.Remote.Distrust: the host sends the remote nothing more.
func (e *evaluators) distrust(remote, reason string) {
	callHost(wire.Call{Op: wire.OpDistrust, Remote: remote, Reason: reason})
}

// call sends one round's requests to the host: to the local instances only when local.
func (e *evaluators) call(reqs []simcore.EvaluationRequest, local bool) (wire.Reply, error) {
	call := wire.Call{Op: wire.OpEvaluate, Local: local, Requests: make([]json.RawMessage, len(reqs))}
	for i, r := range reqs {
		b, err := json.Marshal(r)
		if err != nil {
			return wire.Reply{}, err
		}
		call.Requests[i] = b
	}
	// Every candidate reads the same files: the traffic source and the model are concrete
	// (docs/recommend.md, "Domains").
	if !e.filesSet && len(reqs) > 0 {
		e.files, e.filesSet = requestFiles(reqs[0], osFS{}), true
	}
	call.Files = e.files
	reply, err := callHost(call)
	if err == nil && len(reply.Outcomes) != len(reqs) {
		err = fmt.Errorf("internal error: the host returned %d outcomes for %d evaluation requests", len(reply.Outcomes), len(reqs))
	}
	return reply, err
}

// finish stops the evaluators and returns how many candidates remote workers refused as over
// their limits (evaluated locally instead).
func (e *evaluators) finish() (int, error) {
	reply, err := callHost(wire.Call{Op: wire.OpFinish})
	return reply.LocalFallbacks, err
}

// callHost sends call and decodes the reply; a reply's error becomes an error (a usage error
// when the host says so).
func callHost(call wire.Call) (wire.Reply, error) {
	var reply wire.Reply
	b, err := json.Marshal(call)
	if err != nil {
		return reply, err
	}
	if err := json.Unmarshal(hostCall(b), &reply); err != nil {
		return reply, fmt.Errorf("internal error: malformed reply from the host: %v", err)
	}
	if reply.Error != "" {
		if reply.Usage {
			return reply, recommendErr(reply.Error)
		}
		return reply, errors.New(reply.Error)
	}
	return reply, nil
}

// requestFiles are the files an evaluation of req reads, named as its configuration names
// them: the trace paths of a trace source, and the files of a local model directory that
// the catalog's lookup opens (recorded, so the lookup's rule is not restated here).
func requestFiles(req simcore.EvaluationRequest, files fs.FS) []string {
	cfg, err := spec.LoadConfig([]byte(req.ConfigYAML), nil)
	if err != nil {
		return nil // the evaluation fails the same way everywhere, before reading a file
	}
	var names []string
	if cfg.Traffic.Source.Type == spec.SourceTrace {
		names = append(names, cfg.Traffic.Source.Paths...)
	}
	rec := &recordingFS{FS: files}
	catalog.LookupModel(cfg.Engine.Model, rec)
	return append(names, rec.read...)
}

// recordingFS remembers the names of the files read through it successfully.
type recordingFS struct {
	fs.FS
	read []string
}

// Open implements fs.FS.
func (r *recordingFS) Open(name string) (fs.File, error) {
	f, err := r.FS.Open(name)
	if err == nil {
		r.read = append(r.read, name)
	}
	return f, err
}

// maxRemoteTimeout is the largest --remote-timeout, in seconds (a day).
const maxRemoteTimeout = 86400

// parseRemoteTimeout reads --remote-timeout: seconds, more than 0 and at most a day.
func parseRemoteTimeout(value string) (float64, error) {
	sec, err := strconv.ParseFloat(value, 64)
	if err != nil || !(sec > 0 && sec <= maxRemoteTimeout) {
		return 0, recommendErr(fmt.Sprintf("argument --remote-timeout: must be a number of seconds in (0, %d], got '%s'", maxRemoteTimeout, termsafe.Escape(value)))
	}
	return sec, nil
}

// parseRemoteConcurrency reads --remote-concurrency: an integer of at least 1.
func parseRemoteConcurrency(value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 1 {
		return 0, recommendErr(fmt.Sprintf("argument --remote-concurrency: must be an integer >= 1, got '%s'", value))
	}
	return n, nil
}
