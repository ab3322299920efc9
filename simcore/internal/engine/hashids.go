package engine

import "aisimulate/simcore/internal/hashtab"

// HashIDs numbers the distinct block sequence hashes of one run densely — hash ids 1, 2, 3,
// … in the order they are first computed — so that the KV pools and the routers keep
// per-block state in arrays indexed by hash id instead of hash tables keyed by hash. A
// request computes each of its block hashes once and numbers it here once; every later
// lookup (prefix match, registration, eviction, KV events, router index and reference
// counts) is an array access. Ids follow the simulation, which is deterministic, and never
// reach outputs. One HashIDs is shared by every pool and router of a run.
//
// The numbering is a prefix tree (hashtab.Tree): a sequence hash extends its parent
// block's, so a hash is looked up among its parent's children, and a parent remembers the
// child it last gave. Numbering a chain that an earlier turn of a conversation numbered, or
// a chain of new blocks, then reads arrays in creation order with no hash table probe (a
// probe into a table of hundreds of thousands of random hashes is a cache miss).
type HashIDs struct {
	tree hashtab.Tree
}

// NewHashIDs makes an empty numbering.
func NewHashIDs() *HashIDs { return &HashIDs{} }

// ID returns the hash id of sequence hash h (nonzero), whose parent block has hash id parent
// (hashtab.Root for a sequence's first block), numbering it if it is new.
func (b *HashIDs) ID(parent int32, h uint64) int32 { return b.tree.Child(parent, h) }

// Hash is the sequence hash with hash id id (0 for hashtab.Root).
func (b *HashIDs) Hash(id int32) uint64 { return b.tree.Key(id) }

// Len bounds the hash ids given: every one is below it.
func (b *HashIDs) Len() int { return b.tree.Len() }
