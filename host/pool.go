package host

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"aisimulate/host/wire"
)

// localPool holds up to size evaluator instances of the module (`aisimulate __evaluate`),
// started on first use and reused for every later request.
type localPool struct {
	size  int
	start func(i int) (*instance, error)
	slots chan struct{} // one token per request being evaluated

	mu      sync.Mutex
	idle    []*instance
	started []*instance
	names   int // instances ever started: the next one's index (module names are unique)
}

func newLocalPool(size int, start func(i int) (*instance, error)) *localPool {
	return &localPool{size: size, start: start, slots: make(chan struct{}, size)}
}

// evaluateAll evaluates every request on the pool's instances at once and returns the
// outcomes in request order; the first failure is the error.
func (p *localPool) evaluateAll(reqs []json.RawMessage) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i], errs[i] = p.evaluate(r)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// evaluate evaluates one request on an idle instance (starting one while fewer than size
// run), waiting while all are busy.
func (p *localPool) evaluate(req []byte) ([]byte, error) {
	p.slots <- struct{}{}
	defer func() { <-p.slots }()
	p.mu.Lock()
	var inst *instance
	if n := len(p.idle); n > 0 {
		inst, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	next := p.names
	if inst == nil {
		p.names++
	}
	p.mu.Unlock()
	if inst == nil {
		var err error
		if inst, err = p.start(next); err != nil {
			return nil, err
		}
		p.mu.Lock()
		p.started = append(p.started, inst)
		p.mu.Unlock()
	}
	out, err := inst.roundTrip(req)
	if err != nil {
		inst.stop()
		return nil, err
	}
	p.mu.Lock()
	p.idle = append(p.idle, inst)
	p.mu.Unlock()
	return out, nil
}

// close ends every instance (their input ends, so their loops return) and waits for them.
func (p *localPool) close() {
	p.mu.Lock()
	started := p.started
	p.started, p.idle = nil, nil
	p.mu.Unlock()
	for _, inst := range started {
		inst.stop()
	}
}

// instance is one running evaluator: requests go to its standard input and outcomes come
// from its standard output, one frame each (host/wire).
type instance struct {
	name   string
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *syncBuffer
	done   chan struct{} // closed when the instance has returned
	err    error         // why it returned (after done)
}

// roundTrip sends one request and reads its outcome.
func (inst *instance) roundTrip(req []byte) ([]byte, error) {
	err := wire.WriteFrame(inst.stdin, req)
	var out []byte
	if err == nil {
		out, err = wire.ReadFrame(inst.stdout)
	}
	if err != nil {
		inst.stdin.Close()
		<-inst.done
		return nil, inst.failure()
	}
	return out, nil
}

// failure describes why the instance stopped answering: its exit and the last line it wrote
// on stderr (a Go runtime crash, an out-of-memory).
func (inst *instance) failure() error {
	msg := "internal error: evaluator " + inst.name + " stopped"
	if inst.err != nil {
		msg += " (" + trapOrExit(inst.err) + ")"
	}
	if last := lastLine(inst.stderr.String()); last != "" {
		msg += ": " + last
	}
	return fmt.Errorf("%s", msg)
}

// stop ends the instance's input and waits until it has returned.
func (inst *instance) stop() {
	inst.stdin.Close()
	<-inst.done
}

// trapOrExit is the first line of an instance's error.
func trapOrExit(err error) string {
	first, _, _ := strings.Cut(err.Error(), "\n")
	return first
}

// lastLine is the last non-empty line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// syncBuffer is a bytes.Buffer safe for one writer and concurrent readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
