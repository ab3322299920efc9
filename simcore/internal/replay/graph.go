package replay

import (
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/traffic"
)

// graphState drives an agentic dependency graph (docs/semantics/simulation.md §12.4).
type graphState struct {
	g        *traffic.Graph
	pending  []int     // unfired dependencies per node
	readyAt  []float64 // max trigger time + delay seen so far
	children [][]childDep
	released []bool
	nodeOf   map[*engine.Request]int
	// Lanes: plays in authored order; a lane starts its next play when the current one ends.
	playOf     []int
	plays      []playState
	nextPlay   int
	activePlay int
	// playOfOrdinal is the play of every registered request, by ordinal − 1 (the report's
	// trajectories, docs/semantics/outputs.md §4.6).
	playOfOrdinal []int32
}

// Trajectories are the plays of an agentic graph run, for the trajectory metrics of
// docs/semantics/outputs.md §4.6.
type Trajectories struct {
	// Requests is the number of requests (graph nodes) of each play, in play order.
	Requests []int32
	// PlayOf is the play of every registered request, by ordinal − 1.
	PlayOf []int32
}

// trajectories reports the plays and which play each registered request belongs to.
func (gs *graphState) trajectories() *Trajectories {
	t := &Trajectories{Requests: make([]int32, len(gs.plays)), PlayOf: gs.playOfOrdinal}
	for p := range gs.plays {
		t.Requests[p] = int32(len(gs.plays[p].nodes))
	}
	return t
}

// notePlay records the play of node i's freshly registered request r.
func (gs *graphState) notePlay(r *engine.Request, i int) {
	for int(r.Ordinal) > len(gs.playOfOrdinal) {
		gs.playOfOrdinal = append(gs.playOfOrdinal, -1)
	}
	gs.playOfOrdinal[r.Ordinal-1] = int32(gs.playOf[i])
}

type childDep struct {
	child        int
	onCompletion bool
	delay        float64
}

type playState struct {
	nodes   []int
	open    int // nodes not yet terminal
	started bool
}

func (c *cluster) startGraph() {
	g := c.plan.Workload.Graph
	n := len(g.Nodes)
	gs := &graphState{g: g, pending: make([]int, n), readyAt: make([]float64, n), children: make([][]childDep, n),
		released: make([]bool, n), nodeOf: map[*engine.Request]int{}, playOf: make([]int, n)}
	c.graph = gs
	playIdx := map[string]int{}
	for i := range g.Nodes {
		nd := &g.Nodes[i]
		gs.pending[i] = len(nd.Deps)
		gs.readyAt[i] = nd.NotBeforeMs
		for _, d := range nd.Deps {
			gs.children[d.Parent] = append(gs.children[d.Parent], childDep{child: i, onCompletion: d.OnCompletion, delay: d.DelayMs})
		}
		p, ok := playIdx[nd.PlayID]
		if !ok || nd.PlayID == "" && g.Lanes == 0 {
			p = len(gs.plays)
			playIdx[nd.PlayID] = p
			gs.plays = append(gs.plays, playState{})
		}
		gs.playOf[i] = p
		gs.plays[p].nodes = append(gs.plays[p].nodes, i)
		gs.plays[p].open++
	}
	for c.startNextPlay() {
	}
}

// startNextPlay starts the next play if a lane is free; it reports whether it did.
func (c *cluster) startNextPlay() bool {
	gs := c.graph
	if gs.nextPlay >= len(gs.plays) || gs.g.Lanes > 0 && gs.activePlay >= gs.g.Lanes {
		return false
	}
	p := &gs.plays[gs.nextPlay]
	gs.nextPlay++
	gs.activePlay++
	p.started = true
	for _, i := range p.nodes {
		if gs.pending[i] == 0 {
			at := gs.readyAt[i]
			if at < c.now {
				at = c.now
			}
			c.events.push(event{at: at, phase: phaseRelease, kind: relNode, tie: int64(i), a: int32(i)})
		}
	}
	return true
}

func (c *cluster) releaseNode(i int) {
	gs := c.graph
	nd := &gs.g.Nodes[i]
	gs.released[i] = true
	c.countRelease(&nd.Turn)
	r := c.newRequest(&nd.Turn)
	gs.notePlay(r, i)
	r.Session, r.Turn = -1, int32(nd.TurnIndex)
	r.SessionRef, r.PlayRef, r.HasTurn = c.str(nd.SessionID), c.str(nd.PlayID), nd.SessionID != ""
	gs.nodeOf[r] = i
	c.fire(i, false, c.now)
	c.route(c.entry(), r)
}

// fire propagates a parent's dispatch or completion to its children.
func (c *cluster) fire(parent int, completion bool, at float64) {
	gs := c.graph
	for _, d := range gs.children[parent] {
		if d.onCompletion != completion {
			continue
		}
		if t := at + d.delay; t > gs.readyAt[d.child] {
			gs.readyAt[d.child] = t
		}
		gs.pending[d.child]--
		if gs.pending[d.child] == 0 && gs.plays[gs.playOf[d.child]].started {
			c.events.push(event{at: gs.readyAt[d.child], phase: phaseRelease, kind: relNode, tie: c.nextDynSeq(), a: int32(d.child)})
		}
	}
}

func (c *cluster) nodeTerminal(r *engine.Request) {
	gs := c.graph
	i := gs.nodeOf[r]
	delete(gs.nodeOf, r)
	if r.Status == engine.Completed {
		c.fire(i, true, r.Terminal)
	} else {
		c.cancelDescendants(i)
	}
	c.nodeDone(i)
}

func (c *cluster) cancelDescendants(i int) {
	gs := c.graph
	for _, d := range gs.children[i] {
		j := d.child
		if gs.released[j] {
			continue
		}
		gs.released[j] = true
		nd := &gs.g.Nodes[j]
		x := c.newRequest(&nd.Turn)
		gs.notePlay(x, j)
		x.Session, x.Turn = -1, int32(nd.TurnIndex)
		x.SessionRef, x.PlayRef, x.HasTurn = c.str(nd.SessionID), c.str(nd.PlayID), nd.SessionID != ""
		x.Status, x.Terminal = engine.Canceled, c.now
		c.retire(x)
		c.cancelDescendants(j)
		c.nodeDone(j)
	}
}

func (c *cluster) nodeDone(i int) {
	gs := c.graph
	p := &gs.plays[gs.playOf[i]]
	p.open--
	if p.open == 0 {
		gs.activePlay--
		c.finishedSess++
		c.startNextPlay()
	}
}
