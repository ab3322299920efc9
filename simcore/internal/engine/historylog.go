package engine

// HistoryLog holds the capture history of every request of a run (admissions, routes and
// pressure ordinals, by request ordinal) in chunked tables that hold no pointers: one list
// per request and kind, linked by table index. A history per request as three slices cost
// four allocations and four pointers per request, all of which the collector marked on
// every cycle of a long captured run and the write barrier tracked while it marked
// (docs/performance.md, "Per-request capture"). The zero value is an empty log.
type HistoryLog struct {
	heads      chunked[historyHead]
	admissions chunked[admissionNode]
	routes     chunked[routeNode]
	pressure   chunked[pressureNode]
}

// historyHead is the first and last table index (1-based, 0 = none) of a request's lists.
type historyHead struct {
	admFirst, admLast     int32
	routeFirst, routeLast int32
	pressFirst, pressLast int32
}

type admissionNode struct {
	a    Admission
	next int32
}

type routeNode struct {
	r    Route
	next int32
}

type pressureNode struct {
	ordinal int
	next    int32
}

// AddAdmission appends an admission to the history of the request with this ordinal.
func (l *HistoryLog) AddAdmission(ordinal int32, a Admission) {
	h := l.heads.grow(ordinal)
	i := l.admissions.add(admissionNode{a: a})
	if h.admLast != 0 {
		l.admissions.at(h.admLast).next = i
	} else {
		h.admFirst = i
	}
	h.admLast = i
}

// AddRoute appends a route to the history of the request with this ordinal.
func (l *HistoryLog) AddRoute(ordinal int32, r Route) {
	h := l.heads.grow(ordinal)
	i := l.routes.add(routeNode{r: r})
	if h.routeLast != 0 {
		l.routes.at(h.routeLast).next = i
	} else {
		h.routeFirst = i
	}
	h.routeLast = i
}

// LastRoute is the latest route of the request with this ordinal (nil when it has none).
func (l *HistoryLog) LastRoute(ordinal int32) *Route {
	if ordinal > l.heads.n {
		return nil
	}
	if i := l.heads.at(ordinal).routeLast; i != 0 {
		return &l.routes.at(i).r
	}
	return nil
}

// AddPressure appends a pressure-record ordinal to the history of the request with this
// ordinal.
func (l *HistoryLog) AddPressure(ordinal int32, pressure int) {
	h := l.heads.grow(ordinal)
	i := l.pressure.add(pressureNode{ordinal: pressure})
	if h.pressLast != 0 {
		l.pressure.at(h.pressLast).next = i
	} else {
		h.pressFirst = i
	}
	h.pressLast = i
}

// Load sets h to the history of the request with this ordinal, reusing h's slices (empty
// lists for a nil log or a request without history).
func (l *HistoryLog) Load(ordinal int32, h *History) {
	h.Admissions, h.Routes, h.Pressure = h.Admissions[:0], h.Routes[:0], h.Pressure[:0]
	if l == nil || ordinal < 1 || ordinal > l.heads.n {
		return
	}
	hd := l.heads.at(ordinal)
	for i := hd.admFirst; i != 0; {
		n := l.admissions.at(i)
		h.Admissions = append(h.Admissions, n.a)
		i = n.next
	}
	for i := hd.routeFirst; i != 0; {
		n := l.routes.at(i)
		h.Routes = append(h.Routes, n.r)
		i = n.next
	}
	for i := hd.pressFirst; i != 0; {
		n := l.pressure.at(i)
		h.Pressure = append(h.Pressure, n.ordinal)
		i = n.next
	}
}

// Of is the history of the request with this ordinal, in new slices.
func (l *HistoryLog) Of(ordinal int32) History {
	var h History
	l.Load(ordinal, &h)
	return h
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
