package host

import (
	"encoding/json"
	"sync"
)

// workQueue hands a round's request indices to the URLs' senders and collects the outcomes;
// a request whose URL was dropped goes back into the queue for another URL.
type workQueue struct {
	mu       sync.Mutex
	cond     *sync.Cond
	pending  []int
	inFlight int
	results  []json.RawMessage
	sources  []string // the URL that answered each result ("" a local instance)
	err      error
}

func newWorkQueue(n int) *workQueue {
	q := &workQueue{results: make([]json.RawMessage, n), sources: make([]string, n)}
	q.cond = sync.NewCond(&q.mu)
	for i := range n {
		q.pending = append(q.pending, i)
	}
	return q
}

// next is the next request for u; false when none is left for it (all done, the round failed,
// or u was dropped). It waits while requests in flight elsewhere may still come back.
func (q *workQueue) next(u *remoteURL) (int, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.pending) == 0 && q.inFlight > 0 && q.err == nil && !u.dead.Load() {
		q.cond.Wait()
	}
	if len(q.pending) == 0 || q.err != nil || u.dead.Load() {
		return 0, false
	}
	i := q.pending[0]
	q.pending = q.pending[1:]
	q.inFlight++
	return i, true
}

// done records request i's outcome and who answered it.
func (q *workQueue) done(i int, out []byte, source string) {
	q.mu.Lock()
	q.results[i] = out
	q.sources[i] = source
	q.inFlight--
	q.mu.Unlock()
	q.cond.Broadcast()
}

// requeue puts request i back for another URL.
func (q *workQueue) requeue(i int) {
	q.mu.Lock()
	q.pending = append(q.pending, i)
	q.inFlight--
	q.mu.Unlock()
	q.cond.Broadcast()
}

// fail ends the round with err (the first failure wins).
func (q *workQueue) fail(err error) {
	q.mu.Lock()
	if q.err == nil {
		q.err = err
	}
	q.mu.Unlock()
	q.cond.Broadcast()
}
