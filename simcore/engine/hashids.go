package engine

import (
	"aisimulate/simcore/grow"
	"aisimulate/simcore/hashtab"
)

// HashIDs numbers the distinct block sequence hashes of one run densely — hash ids 0, 1, 2,
// … in the order they are first computed — so that the KV pools and the routers keep
// per-block state in arrays indexed by hash id instead of hash tables keyed by hash. A
// request computes each of its block hashes once and numbers it here once; every later
// lookup (prefix match, registration, eviction, KV events, router index and reference
// counts) is an array access. Ids follow the simulation, which is deterministic, and never
// reach outputs. One HashIDs is shared by every pool and router of a run.
//
// The numbering is a prefix tree: a sequence hash extends its parent block's, so a hash is
// looked up among its parent's children. Most parents have one child (a conversation's
// later turns re-walk its earlier turns' chain, new blocks extend a chain), and a parent
// remembers the child it last gave: numbering a chain is then a walk over arrays in
// creation order, with no hash table probe (a probe into a table of hundreds of thousands
// of random hashes is a cache miss). Only roots and the children of parents with several
// children go in the table.
type HashIDs struct {
	byHash *hashtab.Table // roots, and every child of a branched node
	nodes  []hashNode     // by hash id
}

// hashNode is one numbered sequence hash and the child last numbered under it.
type hashNode struct {
	hash      uint64
	lastHash  uint64 // the last child's hash, 0 none
	lastChild int32  // the last child's hash id, −1 none
	branched  bool   // it has had several children, all in byHash
}

// NewHashIDs makes an empty numbering.
func NewHashIDs() *HashIDs { return &HashIDs{byHash: hashtab.New(1 << 12)} }

// ID returns the hash id of sequence hash h (nonzero), whose parent block has hash id parent
// (−1 for a sequence's first block), numbering it if it is new.
func (b *HashIDs) ID(parent int32, h uint64) int32 {
	if parent >= 0 && b.nodes[parent].lastHash == h {
		return b.nodes[parent].lastChild
	}
	return b.newChild(parent, h)
}

// newChild is ID when h is not parent's last child; ID itself stays small enough to be
// inlined into the hashing loop.
func (b *HashIDs) newChild(parent int32, h uint64) int32 {
	if parent < 0 {
		return b.lookup(h)
	}
	p := &b.nodes[parent]
	last := p.lastChild
	var id int32
	switch {
	case last < 0: // the first child: not in the table while it is the only one
		id = b.add(h)
	case !p.branched:
		// A second child: the parent's children go in the table from now on.
		p.branched = true
		b.byHash.Insert(p.lastHash, last)
		id = b.lookup(h)
	default:
		id = b.lookup(h)
	}
	p = &b.nodes[parent] // add may have moved the nodes
	p.lastChild, p.lastHash = id, h
	return id
}

// lookup returns the hash id of h from the table, numbering and entering it if it is new.
func (b *HashIDs) lookup(h uint64) int32 {
	id, ok := b.byHash.Insert(h, int32(len(b.nodes)))
	if ok {
		return id
	}
	return b.add(h)
}

// add numbers a new hash.
func (b *HashIDs) add(h uint64) int32 {
	b.nodes = append(grow.Room(b.nodes, 1), hashNode{hash: h, lastChild: -1})
	return int32(len(b.nodes) - 1)
}

// Hash is the sequence hash with hash id id.
func (b *HashIDs) Hash(id int32) uint64 { return b.nodes[id].hash }

// Len is the number of hash ids given.
func (b *HashIDs) Len() int { return len(b.nodes) }
