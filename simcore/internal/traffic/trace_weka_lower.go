package traffic

import (
	"fmt"
	"math"
	"sort"
)

// The lowering of one weka play into agentic graph nodes follows the reference reader's rules
// (docs/traces.md, "weka"): the parent's requests are split into streams by hash-prefix
// continuation, subagents become child streams spawned by the parent request before them, and
// the recorded times become typed dependencies.

// Weka seam rule: a fork that starts after its parent's tail finished continues that tail's
// stream unless it comes more than an hour later and shares less than half of its blocks.
const (
	wekaSeamMaxGapSeconds  = 3600.0
	wekaSeamMinOverlap     = 0.5
	wekaPreambleMaxOutputs = 64
)

// wreq is one source request during lowering.
type wreq struct {
	id     string // "outer:<i>" or "outer:<i>:inner:<j>"
	order  int    // index in its requests list
	seq    int    // position in the play's source order (node order)
	t      float64
	end    float64 // t + api_time (a null api_time counts as 0)
	model  string
	in     int
	out    int
	hashes []uint64
}

// wreqLess orders requests by time, then source order, then id.
func wreqLess(a, b *wreq) bool {
	if a.t != b.t {
		return a.t < b.t
	}
	if a.order != b.order {
		return a.order < b.order
	}
	return a.id < b.id
}

// wchain is a run of requests each extending the previous one's hash prefix.
type wchain struct {
	reqs       []*wreq
	forked     bool
	forkSource *wreq // the request whose prefix the chain's first request extends
	depth      int   // shared prefix length with forkSource
	forkTime   float64
	spliced    bool
	tail       *wreq // last request with hash ids
}

// wstream is a session of the lowered play.
type wstream struct {
	session    string
	reqs       []*wreq
	forkSource *wreq
	scope      string
}

// wdep is a lowered dependency; relation is kept to deduplicate as the reference does.
type wdep struct {
	parent       *wreq
	onCompletion bool
	relation     string
	delayMs      float64
}

// secondsToMs converts a recorded interval to milliseconds at nanosecond resolution, clamped
// at 0 (recorded intervals are never negative).
func secondsToMs(s float64) float64 {
	return math.Round(math.Max(s, 0)*1e9) / 1e6
}

func lcp(a, b []uint64) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// lowerWekaPlay appends the nodes of one play.
// ids numbers the trace blocks; each play starts a new hash-id scope.
func (c *traceCtx) lowerWekaPlay(p *wekaPlay, blockSize int, relative bool, ids *wekaBlockIDs, nodes []Node) ([]Node, error) {
	t := &p.trace
	ns := "weka:" + p.source
	playID := ns + ":play:" + *t.ID
	var all []*wreq
	newReq := func(e *wekaEntry, id string, order int, ts float64) *wreq {
		r := &wreq{id: id, order: order, seq: len(all), t: ts, model: *e.Model, in: int(*e.In), out: int(*e.Out), hashes: e.HashIDs}
		r.end = r.t
		if e.APITime != nil {
			r.end += *e.APITime
		}
		all = append(all, r)
		return r
	}
	var top []*wreq
	type marker struct {
		outer int
		e     *wekaEntry
	}
	var subagents []marker
	for i := range t.Requests {
		e := &t.Requests[i]
		if *e.Type == "subagent" {
			subagents = append(subagents, marker{i, e})
			continue
		}
		top = append(top, newReq(e, fmt.Sprintf("outer:%d", i), i, *e.T))
	}
	if len(top) == 0 {
		return nil, fileError(p.at, "trace %q has no parent requests (only subagents)", *t.ID)
	}
	preamble, rest := wekaPreamble(top)
	streams := wekaStreams(ns, "root", wekaChains(rest), preamble)
	parents := len(streams)
	type join struct {
		target    *wreq
		terminals []*wreq
	}
	var joins []join
	for _, m := range subagents {
		// The owner is the parent request written last before the marker.
		var owner *wreq
		ownerStream := -1
		for si := 0; si < parents; si++ {
			for _, r := range streams[si].reqs {
				if r.order < m.outer && (owner == nil || r.order > owner.order) {
					owner, ownerStream = r, si
				}
			}
		}
		if owner == nil {
			return nil, fileError(p.at, "trace %q: requests[%d]: subagent %q comes before any parent request", *t.ID, m.outer, *m.e.AgentID)
		}
		var inner []*wreq
		end := *m.e.T
		for j := range m.e.Requests {
			e := &m.e.Requests[j]
			ts := *e.T
			if relative {
				ts += *m.e.T
			} else {
				if ts < *m.e.T-wekaJoinEpsilon {
					return nil, fileError(p.at, "trace %q: requests[%d].requests[%d] of subagent %q starts at %s s, before its marker at %s s, under nested_timestamp_basis absolute; use relative (or auto)", *t.ID, m.outer, j, *m.e.AgentID, fmtMs(ts), fmtMs(*m.e.T))
				}
				ts = math.Max(ts, *m.e.T)
			}
			if math.IsInf(ts, 0) {
				return nil, fileError(p.at, "trace %q: requests[%d].requests[%d]: timestamp out of range", *t.ID, m.outer, j)
			}
			r := newReq(e, fmt.Sprintf("outer:%d:inner:%d", m.outer, j), j, ts)
			inner = append(inner, r)
			end = math.Max(end, r.end)
		}
		if len(inner) == 0 {
			continue
		}
		pre, rest := wekaPreamble(inner)
		child := wekaStreams(ns, fmt.Sprintf("subagent:%d:%s", m.outer, *m.e.AgentID), wekaChains(rest), pre)
		child[0].forkSource = owner
		for _, s := range child {
			s.scope = child[0].session
		}
		if *m.e.Status == wekaBlocking {
			if m.e.DurationMs != nil {
				end = *m.e.T + *m.e.DurationMs/1000
			}
			// The parent resumes with its first request after the marker that starts once
			// the subagent ended.
			var target *wreq
			for _, r := range streams[ownerStream].reqs {
				if r.order > m.outer && r.t+wekaJoinEpsilon >= end && (target == nil || r.order < target.order) {
					target = r
				}
			}
			if target != nil {
				j := join{target: target}
				for _, s := range child {
					j.terminals = append(j.terminals, s.reqs[len(s.reqs)-1])
				}
				joins = append(joins, j)
			}
		}
		streams = append(streams, child...)
	}

	rootTime := math.Inf(1)
	for _, r := range all {
		rootTime = math.Min(rootTime, r.t)
	}
	deps := make([][]wdep, len(all))
	push := func(child *wreq, d wdep) {
		for _, e := range deps[child.seq] {
			if e.parent == d.parent && e.onCompletion == d.onCompletion && e.relation == d.relation {
				return
			}
		}
		deps[child.seq] = append(deps[child.seq], d)
	}
	for _, s := range streams {
		for k := 1; k < len(s.reqs); k++ {
			prev, r := s.reqs[k-1], s.reqs[k]
			push(r, wdep{parent: prev, onCompletion: true, relation: "sequence", delayMs: secondsToMs(r.t - prev.end)})
		}
	}
	for _, s := range streams {
		if s.forkSource == nil {
			continue
		}
		first, parent := s.reqs[0], s.forkSource
		if first.t < parent.end {
			push(first, wdep{parent: parent, relation: "spawn", delayMs: secondsToMs(first.t - parent.t)})
		} else {
			push(first, wdep{parent: parent, onCompletion: true, relation: "spawn", delayMs: secondsToMs(first.t - parent.end)})
		}
	}
	wekaFrontiers(streams, push)
	for _, j := range joins {
		for _, term := range j.terminals {
			push(j.target, wdep{parent: term, onCompletion: true, relation: "join", delayMs: secondsToMs(j.target.t - term.end)})
		}
	}
	// A stream with no fork (found by the chain detection without a shared prefix) is
	// spawned at the play root's dispatch, so the play keeps one causal root.
	root := streams[0].reqs[0]
	for _, s := range streams {
		first := s.reqs[0]
		if first == root || len(deps[first.seq]) > 0 {
			continue
		}
		push(first, wdep{parent: root, relation: "spawn", delayMs: secondsToMs(first.t - root.t)})
	}

	session := make([]string, len(all))
	turn := make([]int, len(all))
	for _, s := range streams {
		for k, r := range s.reqs {
			session[r.seq], turn[r.seq] = s.session, k
		}
	}
	base := len(nodes)
	ids.shared = map[uint64]uint32{}
	for _, r := range all {
		blocks := ids.prompt(r, blockSize)
		n := Node{
			Turn: Turn{
				InputLength:  r.in,
				OutputLength: r.out,
				Prompt:       synthPrompt(make([]Segment, 0, len(blocks)), blocks, blockSize, r.in),
				RequestID:    ns + ":request:" + r.id,
			},
			PlayID:      playID,
			SessionID:   session[r.seq],
			TurnIndex:   turn[r.seq],
			NotBeforeMs: secondsToMs(r.t-rootTime) / c.speedup,
		}
		for _, d := range deps[r.seq] {
			n.Deps = append(n.Deps, Dep{Parent: base + d.parent.seq, OnCompletion: d.onCompletion, DelayMs: d.delayMs / c.speedup})
		}
		nodes = append(nodes, n)
	}
	return nodes, nil
}

// wekaBlockIDs gives the trace blocks of a corpus their token ids, in first-seen order: a
// full block named by a hash id shares its id with every block of the same play with that
// hash id (hash_id_scope "local": plays share no cache); a block past the authored hash ids
// and a partial last block are private to their request (docs/traces.md).
type wekaBlockIDs struct {
	shared map[uint64]uint32
	next   uint32
}

// prompt returns the block ids of r's prompt: ⌈in / blockSize⌉ ids.
func (b *wekaBlockIDs) prompt(r *wreq, blockSize int) []uint32 {
	full := r.in / blockSize
	out := make([]uint32, 0, full+1)
	for k := 0; k < full; k++ {
		if k < len(r.hashes) {
			id, ok := b.shared[r.hashes[k]]
			if !ok {
				id = b.next
				b.next++
				b.shared[r.hashes[k]] = id
			}
			out = append(out, id)
			continue
		}
		out = append(out, b.next)
		b.next++
	}
	if r.in%blockSize != 0 {
		out = append(out, b.next)
		b.next++
	}
	return out
}

// wekaPreamble splits off a first request that shares nothing with the others (a system
// preamble recorded before the conversation), which then joins the main stream without
// starting a chain of its own.
func wekaPreamble(reqs []*wreq) (preamble, rest []*wreq) {
	sort.SliceStable(reqs, func(a, b int) bool { return wreqLess(reqs[a], reqs[b]) })
	if len(reqs) < 2 || len(reqs[0].hashes) == 0 {
		return nil, reqs
	}
	first := reqs[0]
	for _, o := range reqs[1:] {
		if lcp(first.hashes, o.hashes) > 0 {
			return nil, reqs
		}
	}
	if first.out > wekaPreambleMaxOutputs {
		seen := map[uint64]bool{}
		for _, o := range reqs[1:] {
			for _, h := range o.hashes {
				seen[h] = true
			}
		}
		for _, h := range first.hashes {
			if seen[h] {
				return nil, reqs
			}
		}
	}
	return []*wreq{first}, reqs[1:]
}

// wekaChains splits requests into chains: a request extends the chain whose last hashed
// request's ids are a prefix of its own (same model, finished before it started), else it
// forks a new chain from the chain sharing the longest prefix. Chains that fork from a
// finished tail are then spliced back into it (seams). It returns the chains in use, the
// main one (earliest first request) first, the others by their first request.
func wekaChains(reqs []*wreq) []*wchain {
	var chains []*wchain
	chainOf := map[*wreq]*wchain{}
	add := func(ch *wchain, r *wreq) {
		chainOf[r] = ch
		if len(r.hashes) > 0 {
			ch.tail = r
		}
		ch.reqs = append(ch.reqs, r)
	}
	forks := map[*wreq][]*wchain{}
	for _, r := range reqs {
		if len(r.hashes) == 0 || len(chains) == 0 {
			if len(chains) == 0 {
				chains = append(chains, &wchain{})
			}
			add(chains[0], r)
			continue
		}
		if ch := wekaExtendedChain(chains, r); ch != nil {
			add(ch, r)
			continue
		}
		anyTail := false
		for _, ch := range chains {
			anyTail = anyTail || ch.tail != nil
		}
		if !anyTail {
			add(chains[0], r)
			continue
		}
		parent, depth := wekaLongestPrefix(chains, r.hashes)
		ch := &wchain{forked: true, depth: depth, forkTime: r.t}
		if parent != nil {
			ch.forkSource = parent.tail
		}
		chains = append(chains, ch)
		add(ch, r)
		if ch.forkSource != nil && depth > 0 {
			forks[ch.forkSource] = append(forks[ch.forkSource], ch)
		}
	}
	wekaSeams(chains, forks, chainOf)
	var live []*wchain
	for _, ch := range chains {
		if !ch.spliced {
			live = append(live, ch)
		}
	}
	sort.SliceStable(live, func(a, b int) bool { return wreqLess(live[a].reqs[0], live[b].reqs[0]) })
	return live
}

// wekaExtendedChain returns the chain with the longest tail whose hash ids r's ids extend.
func wekaExtendedChain(chains []*wchain, r *wreq) *wchain {
	var best *wchain
	bestLen := 0
	for _, ch := range chains {
		if ch.tail == nil {
			continue
		}
		n := len(ch.tail.hashes)
		if n > len(r.hashes) || n <= bestLen || ch.tail.model != r.model || ch.tail.end > r.t+wekaJoinEpsilon ||
			lcp(ch.tail.hashes, r.hashes) != n {
			continue
		}
		best, bestLen = ch, n
	}
	return best
}

// wekaLongestPrefix returns the chain whose tail shares the longest prefix with hashes (ties:
// the longer tail, then the earlier chain) and that prefix length.
func wekaLongestPrefix(chains []*wchain, hashes []uint64) (*wchain, int) {
	var best *wchain
	bestDepth, bestLen := 0, 0
	for _, ch := range chains {
		if ch.tail == nil {
			continue
		}
		d := lcp(ch.tail.hashes, hashes)
		if d > 0 && (d > bestDepth || d == bestDepth && len(ch.tail.hashes) > bestLen) {
			best, bestDepth, bestLen = ch, d, len(ch.tail.hashes)
		}
	}
	return best, bestDepth
}

// wekaSeams splices into a chain the fork that continues its tail (the deepest eligible
// fork, then the earliest), repeatedly, in the order of the tail requests' ids.
func wekaSeams(chains []*wchain, forks map[*wreq][]*wchain, chainOf map[*wreq]*wchain) {
	index := map[*wchain]int{}
	for i, ch := range chains {
		index[ch] = i
	}
	pending := map[*wreq]bool{}
	for src := range forks {
		pending[src] = true
	}
	processed := map[*wreq]bool{}
	for len(pending) > 0 {
		var src *wreq
		for s := range pending {
			if src == nil || s.id < src.id {
				src = s
			}
		}
		delete(pending, src)
		if processed[src] {
			continue
		}
		processed[src] = true
		owner := chainOf[src]
		if owner.tail != src {
			continue
		}
		var registered []*wchain
		for _, ch := range forks[src] {
			if !ch.spliced {
				registered = append(registered, ch)
			}
		}
		var elected *wchain
		for _, ch := range registered {
			if !wekaSeamEligible(ch, src) {
				continue
			}
			if elected == nil || ch.depth > elected.depth ||
				ch.depth == elected.depth && (ch.forkTime < elected.forkTime || ch.forkTime == elected.forkTime && index[ch] < index[elected]) {
				elected = ch
			}
		}
		if elected == nil {
			continue
		}
		for _, r := range elected.reqs {
			chainOf[r] = owner
		}
		owner.reqs = append(owner.reqs, elected.reqs...)
		owner.tail = elected.tail
		elected.reqs, elected.spliced = nil, true
		tail := owner.tail
		if tail == nil {
			continue
		}
		for _, ch := range registered {
			if ch == elected || ch.spliced {
				continue
			}
			first := ch.reqs[0]
			if tail.t > first.t+wekaJoinEpsilon {
				continue
			}
			d := lcp(tail.hashes, first.hashes)
			if d == 0 {
				continue
			}
			ch.forkSource, ch.depth = tail, d
			forks[tail] = append(forks[tail], ch)
			delete(processed, tail)
			pending[tail] = true
		}
	}
}

// wekaSeamEligible says whether a fork continues the finished tail it forked from.
func wekaSeamEligible(ch *wchain, tail *wreq) bool {
	if !ch.forked || ch.depth == 0 || len(ch.reqs) == 0 {
		return false
	}
	first := ch.reqs[0]
	gap := first.t - tail.end
	overlap := float64(ch.depth) / float64(max(len(tail.hashes), 1))
	return tail.end <= first.t+wekaJoinEpsilon && first.model == tail.model &&
		!(gap > wekaSeamMaxGapSeconds && overlap < wekaSeamMinOverlap)
}

// wekaStreams turns chains into sessions: the main chain with the preamble, then one worker
// session per other chain.
func wekaStreams(ns, prefix string, chains []*wchain, preamble []*wreq) []*wstream {
	scope := ns + ":scope:" + prefix
	main := &wstream{session: ns + ":session:" + prefix, scope: scope}
	if len(chains) > 0 {
		main.reqs = append(main.reqs, chains[0].reqs...)
		main.forkSource = chains[0].forkSource
	}
	main.reqs = append(main.reqs, preamble...)
	sort.SliceStable(main.reqs, func(a, b int) bool { return wreqLess(main.reqs[a], main.reqs[b]) })
	out := []*wstream{main}
	for k, ch := range chains[min(1, len(chains)):] {
		out = append(out, &wstream{session: fmt.Sprintf("%s:session:%s:worker:%d", ns, prefix, k), reqs: ch.reqs, forkSource: ch.forkSource, scope: scope})
	}
	return out
}

// wekaFrontiers makes a request wait, with a zero-delay replay barrier, for the latest
// request of every other stream of its scope that finished before it started (keeping only
// the latest of such requests that follow one another).
func wekaFrontiers(streams []*wstream, push func(*wreq, wdep)) {
	var scopes []string
	byScope := map[string][]*wstream{}
	for _, s := range streams {
		if _, ok := byScope[s.scope]; !ok {
			scopes = append(scopes, s.scope)
		}
		byScope[s.scope] = append(byScope[s.scope], s)
	}
	sort.Strings(scopes)
	// byEnd holds each stream's requests ordered by (end, t, id): the latest request that
	// ended by a time is found by binary search instead of a scan.
	byEnd := map[*wstream][]*wreq{}
	for _, s := range streams {
		rs := append([]*wreq(nil), s.reqs...)
		sort.Slice(rs, func(a, b int) bool { return wekaEndsBefore(rs[a], rs[b]) })
		byEnd[s] = rs
	}
	for _, sc := range scopes {
		group := byScope[sc]
		for _, ts := range group {
			for _, target := range ts.reqs {
				var frontier []*wreq
				for _, os := range group {
					if os == ts {
						continue
					}
					rs := byEnd[os]
					// The last request that ended in time and also started before the target.
					k := sort.Search(len(rs), func(i int) bool { return rs[i].end > target.t+wekaJoinEpsilon }) - 1
					for k >= 0 && rs[k].t >= target.t {
						k--
					}
					if k >= 0 {
						frontier = append(frontier, rs[k])
					}
				}
				for _, cand := range frontier {
					dominated := false
					for _, later := range frontier {
						if cand.t < later.t && cand.end <= later.t+wekaJoinEpsilon {
							dominated = true
							break
						}
					}
					if !dominated {
						push(target, wdep{parent: cand, onCompletion: true, relation: "replay_barrier"})
					}
				}
			}
		}
	}
}

// wekaEndsBefore orders requests by end, then start, then id (the latest is the frontier).
func wekaEndsBefore(a, b *wreq) bool {
	if a.end != b.end {
		return a.end < b.end
	}
	if a.t != b.t {
		return a.t < b.t
	}
	return a.id < b.id
}
