// Package hashtab is an open-addressing hash table from nonzero 64-bit keys to int32 values,
// used where Go maps are too slow (per-pass KV bookkeeping, routers, trace analysis).
package hashtab

// Table maps nonzero 64-bit block hashes to int32 values with open addressing, linear
// probing and backward-shift deletion. Keys are already well mixed, so the low bits index
// the table directly. It replaces Go maps on the per-pass path (no hashing of the key, no
// iteration-order concerns, no per-entry allocation).
type Table struct {
	keys []uint64
	vals []int32
	mask uint64
	n    int
}

// New makes a table sized for about capacity keys.
func New(capacity int) *Table {
	size := 16
	for size < 2*capacity {
		size <<= 1
	}
	return &Table{keys: make([]uint64, size), vals: make([]int32, size), mask: uint64(size - 1)}
}

// Len is the number of keys.
func (t *Table) Len() int { return t.n }

// Get returns the value of k and whether it is present (k must be nonzero).
func (t *Table) Get(k uint64) (int32, bool) {
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case 0:
			return 0, false
		}
	}
}

// Has reports whether k is present.
func (t *Table) Has(k uint64) bool {
	_, ok := t.Get(k)
	return ok
}

// Put sets the value of k.
func (t *Table) Put(k uint64, v int32) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			t.vals[i] = v
			return
		case 0:
			t.keys[i], t.vals[i] = k, v
			t.n++
			return
		}
	}
}

// Insert adds k with value v unless k is present, and returns the value k had and whether it
// was present: a lookup and an insertion in one probe.
func (t *Table) Insert(k uint64, v int32) (int32, bool) {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			return t.vals[i], true
		case 0:
			t.keys[i], t.vals[i] = k, v
			t.n++
			return 0, false
		}
	}
}

// Find returns the slot of k, for At, SetAt and DeleteAt: a lookup and an update or removal
// of the same key in one probe. The slot is valid until the table next changes.
func (t *Table) Find(k uint64) (slot uint64, ok bool) {
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			return i, true
		case 0:
			return 0, false
		}
	}
}

// At is the value in a slot Find returned.
func (t *Table) At(slot uint64) int32 { return t.vals[slot] }

// SetAt sets the value in a slot Find returned.
func (t *Table) SetAt(slot uint64, v int32) { t.vals[slot] = v }

// DeleteAt removes the key in a slot Find returned.
func (t *Table) DeleteAt(slot uint64) { t.deleteAt(slot) }

// Inc adds one to the value of k (a missing key counts as 0 and is inserted) and returns the
// value before: a reference count in one probe instead of a Get and a Put.
func (t *Table) Inc(k uint64) int32 {
	if 2*(t.n+1) > len(t.keys) {
		t.grow()
	}
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			t.vals[i]++
			return t.vals[i] - 1
		case 0:
			t.keys[i], t.vals[i] = k, 1
			t.n++
			return 0
		}
	}
}

// Dec takes one from the value of k and returns the value before; a key whose value was at
// most 1 is removed, and a missing key (value 0) stays missing.
func (t *Table) Dec(k uint64) int32 {
	for i := k & t.mask; ; i = (i + 1) & t.mask {
		switch t.keys[i] {
		case k:
			v := t.vals[i]
			if v <= 1 {
				t.deleteAt(i)
			} else {
				t.vals[i] = v - 1
			}
			return v
		case 0:
			return 0
		}
	}
}

// Delete removes k if present.
func (t *Table) Delete(k uint64) {
	m := t.mask
	i := k & m
	for t.keys[i] != k {
		if t.keys[i] == 0 {
			return
		}
		i = (i + 1) & m
	}
	t.deleteAt(i)
}

// deleteAt removes the key in slot i, shifting later entries of its probe run back into the
// hole: an entry moves when the hole lies cyclically between its home slot and its slot.
func (t *Table) deleteAt(i uint64) {
	m := t.mask
	t.n--
	for j := (i + 1) & m; ; j = (j + 1) & m {
		kj := t.keys[j]
		if kj == 0 {
			break
		}
		// Home of kj is kj&m: distances from it to the hole and to j, cyclically.
		if (i-kj)&m < (j-kj)&m {
			t.keys[i], t.vals[i] = kj, t.vals[j]
			i = j
		}
	}
	t.keys[i] = 0
}

// Clear removes every key.
func (t *Table) Clear() {
	clear(t.keys)
	t.n = 0
}

func (t *Table) grow() {
	old, oldV := t.keys, t.vals
	t.keys = make([]uint64, 2*len(old))
	t.vals = make([]int32, 2*len(old))
	t.mask = uint64(len(t.keys) - 1)
	t.n = 0
	for i, k := range old {
		if k != 0 {
			t.Put(k, oldV[i])
		}
	}
}

// Spread turns a structured key (for example two small integers packed into 64 bits) into a
// well-mixed one for the table: MurmurHash3's 64-bit finaliser, a bijection (xor-shifts and
// odd multiplications are invertible), so distinct keys stay distinct and only 0 maps to 0.
func Spread(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
