package engine

// HistoryLog holds the capture history of every request of a run (admissions, routes and
// pressure ordinals, by request ordinal) in chunked tables that hold no pointers: one list
// per request and kind, linked by table index. A history per request as three slices cost
// four allocations and four pointers per request, all of which the collector marked on
// every cycle of a long captured run and the write barrier tracked while it marked
// (docs/performance.md, "Per-request capture"). The zero value is an empty log.
type HistoryLog struct {
	heads      chunked[historyHead]
	admissions chunked[listNode[Admission]]
	routes     chunked[listNode[Route]]
	pressure   chunked[listNode[int]]
}

// historyHead is the first and last table index (1-based, 0 = none) of a request's lists.
type historyHead struct {
	admissions, routes, pressure listEnds
}

// listEnds is the first and last table index of a list (0 = empty).
type listEnds struct{ first, last int32 }

// listNode is an entry of a list and the table index of the next one (0 = the last).
type listNode[T any] struct {
	v    T
	next int32
}

// AddAdmission appends an admission to the history of the request with this ordinal.
func (l *HistoryLog) AddAdmission(ordinal int32, a Admission) {
	push(&l.admissions, &l.heads.grow(ordinal).admissions, a)
}

// AddRoute appends a route to the history of the request with this ordinal.
func (l *HistoryLog) AddRoute(ordinal int32, r Route) {
	push(&l.routes, &l.heads.grow(ordinal).routes, r)
}

// AddPressure appends a pressure-record ordinal to the history of the request with this
// ordinal.
func (l *HistoryLog) AddPressure(ordinal int32, pressure int) {
	push(&l.pressure, &l.heads.grow(ordinal).pressure, pressure)
}

// LastRoute is the latest route of the request with this ordinal (nil when it has none).
func (l *HistoryLog) LastRoute(ordinal int32) *Route {
	if ordinal > l.heads.n {
		return nil
	}
	if i := l.heads.at(ordinal).routes.last; i != 0 {
		return &l.routes.at(i).v
	}
	return nil
}

// Load sets h to the history of the request with this ordinal, reusing h's slices (empty
// lists for a nil log or a request without history).
func (l *HistoryLog) Load(ordinal int32, h *History) {
	h.Admissions, h.Routes, h.Pressure = h.Admissions[:0], h.Routes[:0], h.Pressure[:0]
	if l == nil || ordinal < 1 || ordinal > l.heads.n {
		return
	}
	hd := l.heads.at(ordinal)
	h.Admissions = collect(&l.admissions, hd.admissions, h.Admissions)
	h.Routes = collect(&l.routes, hd.routes, h.Routes)
	h.Pressure = collect(&l.pressure, hd.pressure, h.Pressure)
}

// Of is the history of the request with this ordinal, in new slices.
func (l *HistoryLog) Of(ordinal int32) History {
	var h History
	l.Load(ordinal, &h)
	return h
}

// push appends v to the list e of table c.
func push[T any](c *chunked[listNode[T]], e *listEnds, v T) {
	i := c.add(listNode[T]{v: v})
	if e.last != 0 {
		c.at(e.last).next = i
	} else {
		e.first = i
	}
	e.last = i
}

// collect appends the entries of list e of table c to dst.
func collect[T any](c *chunked[listNode[T]], e listEnds, dst []T) []T {
	for i := e.first; i != 0; {
		n := c.at(i)
		dst = append(dst, n.v)
		i = n.next
	}
	return dst
}

// chunked is a table of T indexed from 1, stored in fixed chunks so it grows without
// copying (a doubling slice of a million entries would hold both copies at its last growth).
type chunked[T any] struct {
	chunks [][]T
	n      int32
}

// historyChunk is the entries per chunk of a HistoryLog table.
const historyChunk = 4096

// at is entry i (1 ≤ i ≤ n).
func (c *chunked[T]) at(i int32) *T {
	return &c.chunks[(i-1)/historyChunk][(i-1)%historyChunk]
}

// add appends v and returns its index.
func (c *chunked[T]) add(v T) int32 {
	*c.grow(c.n + 1) = v
	return c.n
}

// grow extends the table to at least i entries (new ones zero) and returns entry i.
func (c *chunked[T]) grow(i int32) *T {
	for int32(len(c.chunks))*historyChunk < i {
		c.chunks = append(c.chunks, make([]T, historyChunk))
	}
	c.n = max(c.n, i)
	return c.at(i)
}
