package host

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	"aisimulate/host/wire"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// evalHost answers the module's calls for `recommend`'s evaluators (host/wire; docs/recommend.md,
// "Parallel and remote evaluation"): it starts local evaluator instances of the same compiled
// module and sends requests to remote edge workers.
type evalHost struct {
	// startInstance starts evaluator instance i; nil when this runner has none (the module
	// then evaluates in process).
	startInstance func(i int) (*instance, error)
	// cores caps the local instances (Config.Evaluators; 0: runtime.NumCPU).
	cores int
	// dir is the directory relative file names resolve against (the module's PWD).
	dir string

	mu     sync.Mutex // one call at a time (the module is single-threaded; this is for safety)
	reply  []byte     // the reply of the last call, until the module reads it
	local  *localPool
	remote *remotePool
}

// DefineImports instantiates the host functions the module imports (module wire.Module) in r,
// without evaluator instances: `recommend` then evaluates in process and refuses --remote.
// Every runner of the module that is not Run (tools/wasmexec) calls it.
func DefineImports(ctx context.Context, r wazero.Runtime) error {
	return (&evalHost{}).define(ctx, r)
}

// define instantiates h's functions as the module wire.Module in r.
func (h *evalHost) define(ctx context.Context, r wazero.Runtime) error {
	_, err := r.NewHostModuleBuilder(wire.Module).
		NewFunctionBuilder().WithFunc(h.call).Export(wire.FuncCall).
		NewFunctionBuilder().WithFunc(h.result).Export(wire.FuncResult).
		Instantiate(ctx)
	return err
}

// call is wire.FuncCall: it reads a wire.Call of size bytes at ptr, handles it and returns the
// length of the reply the module then reads with result.
func (h *evalHost) call(_ context.Context, m api.Module, ptr, size uint32) uint32 {
	h.mu.Lock()
	defer h.mu.Unlock()
	var reply wire.Reply
	var c wire.Call
	if b, ok := m.Memory().Read(ptr, size); !ok {
		reply.Error = "internal error: a host call outside the module's memory"
	} else if err := json.Unmarshal(b, &c); err != nil {
		reply.Error = "internal error: malformed host call: " + err.Error()
	} else {
		reply = h.handle(c)
	}
	h.reply, _ = json.Marshal(reply)
	return uint32(len(h.reply))
}

// result is wire.FuncResult: it copies the last reply to ptr.
func (h *evalHost) result(_ context.Context, m api.Module, ptr uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m.Memory().Write(ptr, h.reply)
	h.reply = nil
}

// handle runs one call.
func (h *evalHost) handle(c wire.Call) wire.Reply {
	switch c.Op {
	case wire.OpStart:
		if c.Start == nil {
			return wire.Reply{Error: "internal error: a start call without its settings"}
		}
		return h.start(*c.Start)
	case wire.OpEvaluate:
		var out []json.RawMessage
		var sources []string
		var err error
		switch {
		case h.remote != nil && !c.Local:
			out, sources, err = h.remote.evaluate(c.Requests, c.Files)
		case h.local != nil:
			out, err = h.local.evaluateAll(c.Requests)
		default:
			err = fmt.Errorf("internal error: evaluation requested before the evaluators were started")
		}
		if err != nil {
			return wire.Reply{Error: err.Error()}
		}
		return wire.Reply{Outcomes: out, Sources: sources}
	case wire.OpDistrust:
		if h.remote != nil {
			h.remote.distrust(c.Remote, c.Reason)
		}
		return wire.Reply{}
	case wire.OpFinish:
		fallbacks := 0
		if h.remote != nil {
			fallbacks = int(h.remote.fallbacks.Load())
		}
		h.close()
		return wire.Reply{LocalFallbacks: fallbacks}
	}
	return wire.Reply{Error: fmt.Sprintf("internal error: unknown host call %q", c.Op)}
}

// start prepares the evaluators: min(parallelism, cores) local instances, and the remote
// workers after checking each one's health and version. With one local instance and no
// remote, the module evaluates in process (an instance would only add its start-up).
func (h *evalHost) start(s wire.Start) wire.Reply {
	h.close()
	if len(s.Remote) > 0 && h.startInstance == nil {
		return wire.Reply{Error: "argument --remote: this runner of the module has no HTTP client; use the aisimulate binary", Usage: true}
	}
	cores := h.cores
	if cores == 0 {
		cores = runtime.NumCPU()
	}
	// Under an address-space limit only as many instances as have room for a whole memory
	// (at least one with --remote, for the candidates over a worker's limits, which then gets
	// what room there is).
	n := min(max(1, min(s.Parallelism, cores)), instancesThatFit(s.Parallelism))
	if len(s.Remote) == 0 && (n <= 1 || h.startInstance == nil) {
		return wire.Reply{InProcess: true}
	}
	n = max(n, 1)
	h.local = newLocalPool(n, h.startInstance)
	if len(s.Remote) > 0 {
		remote, err := newRemotePool(s, h.local, h.dir)
		if err != nil {
			h.close()
			return wire.Reply{Error: err.Error(), Usage: true}
		}
		h.remote = remote
	}
	return wire.Reply{Instances: n}
}

// close stops the local instances and forgets the remote workers.
func (h *evalHost) close() {
	if h.local != nil {
		h.local.close()
	}
	h.local, h.remote = nil, nil
}
