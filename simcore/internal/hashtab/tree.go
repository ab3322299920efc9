package hashtab

import "aisimulate/simcore/internal/grow"

// Tree is a prefix tree whose nodes are numbered in order of creation — Root is 0, the
// nodes under it 1, 2, … — for structures walked along the same paths again and again
// (block hash chains, prompt tries). A node's children are told apart by nonzero 64-bit
// keys. Each node remembers the child it last returned, so walking a path that was walked
// before, or extending a path with new nodes, reads only the node array, in creation order.
// Only the children of nodes that have had several children (the root's always) are
// entered in a table of (parent, key) pairs: a walk through a table of hundreds of
// thousands of nodes costs a cache miss per step. The zero Tree is empty and ready to use.
type Tree struct {
	slots []treeSlot // open addressing, linear probing; node 0 marks an empty slot
	used  int
	nodes []treeNode // by node number
}

// treeSlot is one entry of a Tree's table: the child node of parent with key.
type treeSlot struct {
	key    uint64
	parent int32
	node   int32
}

// Root is the root node, the parent of every path's first node.
const Root int32 = 0

// treeNode is one node and the child it last returned.
type treeNode struct {
	key       uint64
	lastKey   uint64 // the last child's key, 0 none
	lastChild int32
	branched  bool // it has had several children, all in byKey
}

// Child returns the child of parent with key (nonzero), creating it if it is new (a new node
// is numbered Len()−1).
func (t *Tree) Child(parent int32, key uint64) int32 {
	if parent > Root && t.nodes[parent].lastKey == key {
		return t.nodes[parent].lastChild
	}
	return t.child(parent, key)
}

// child is Child when the child is not parent's last one (Child itself stays small enough
// to be inlined into walking loops).
func (t *Tree) child(parent int32, key uint64) int32 {
	if len(t.nodes) == 0 {
		t.nodes = append(t.nodes, treeNode{branched: true}) // Root
	}
	p := &t.nodes[parent]
	if p.lastKey == key {
		return p.lastChild // a root's last child
	}
	var id int32
	switch {
	case p.lastKey == 0 && !p.branched: // the first child: not in the table while it is the only one
		id = t.add(key)
	case !p.branched:
		// A second child: the parent's children go in the table from now on.
		p.branched = true
		t.enter(parent, p.lastKey, p.lastChild)
		id = t.lookup(parent, key)
	default:
		id = t.lookup(parent, key)
	}
	p = &t.nodes[parent] // add may have moved the nodes
	p.lastChild, p.lastKey = id, key
	return id
}

// lookup finds the child of parent with key in the table, creating and entering it if new.
func (t *Tree) lookup(parent int32, key uint64) int32 {
	if len(t.slots) == 0 {
		t.slots = make([]treeSlot, 1<<12)
	}
	mask := uint64(len(t.slots) - 1)
	i := slotOf(parent, key) & mask
	for t.slots[i].node != 0 {
		if e := t.slots[i]; e.key == key && e.parent == parent {
			return e.node
		}
		i = (i + 1) & mask
	}
	id := t.add(key)
	t.enter(parent, key, id)
	return id
}

// enter puts node, the child of parent with key, in the table (it is not there yet).
func (t *Tree) enter(parent int32, key uint64, node int32) {
	if len(t.slots) == 0 || 2*(t.used+1) > len(t.slots) {
		old := t.slots
		t.slots = make([]treeSlot, max(1<<12, 2*len(old)))
		t.used = 0
		for _, e := range old {
			if e.node != 0 {
				t.enter(e.parent, e.key, e.node)
			}
		}
	}
	mask := uint64(len(t.slots) - 1)
	i := slotOf(parent, key) & mask
	for t.slots[i].node != 0 {
		i = (i + 1) & mask
	}
	t.slots[i] = treeSlot{key: key, parent: parent, node: node}
	t.used++
}

// add creates a node.
func (t *Tree) add(key uint64) int32 {
	t.nodes = append(grow.Room(t.nodes, 1), treeNode{key: key})
	return int32(len(t.nodes) - 1)
}

// slotOf is the home slot (before masking) of the child of parent with key.
func slotOf(parent int32, key uint64) uint64 {
	return Spread(key + uint64(uint32(parent))*0x9e3779b97f4a7c15)
}

// Key is node's key (0 for Root).
func (t *Tree) Key(node int32) uint64 { return t.nodes[node].key }

// Len is the number of nodes, Root included once a child was asked for.
func (t *Tree) Len() int { return len(t.nodes) }
