package outputs

import (
	"cmp"
	"math"
	"slices"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/hashtab"
	"aisimulate/simcore/report"
)

// Dist is a multiset of float samples, each with a count, for the distribution statistics of
// docs/semantics/outputs.md §4.2. Weighted samples let the pooled ITL hold one entry per pass instead of one
// per token; the statistics are defined on the sorted multiset, so both give the same bits.
// Long runs repeat values a lot (the dense benchmark's 131,072 TTFTs take 169 values; the
// Mooncake conversation trace's 2.7 million pass gaps, 290 thousand), so samples are merged
// into groups of equal values as they arrive, in an open-addressing table whose slots hold
// key and count together (one cache miss per sample); the groups are sorted once, when a
// statistic is first asked for. The zero Dist is empty and ready to use.
type Dist struct {
	tab     []mergeSlot // by floatKey; key 0 marks an empty slot
	used    int         // occupied slots
	n       int64
	grouped bool // vals/counts hold the sorted groups; no samples may be added
	vals    []float64
	counts  []int64
}

// mergeSlot is one slot of a Dist's table: a value's key (floatKey) and its summed count.
type mergeSlot struct {
	key   uint64
	count int64
}

// compareSlots orders slots by key (the order of their values).
func compareSlots(a, b mergeSlot) int { return cmp.Compare(a.key, b.key) }

// NewDist makes a distribution for about n samples.
func NewDist(n int) *Dist {
	size := 16
	for size < 2*min(n, 1<<12) {
		size <<= 1
	}
	return &Dist{tab: make([]mergeSlot, size)}
}

// Add adds one sample.
func (d *Dist) Add(v float64) { d.add(floatKey(v), 1) }

// AddN adds count copies of v.
func (d *Dist) AddN(v float64, count int64) {
	if count > 0 {
		d.add(floatKey(v), count)
	}
}

// add merges count samples of key k. Keys are never 0 (only a NaN with every bit set maps
// to 0, and samples are never NaN).
func (d *Dist) add(k uint64, count int64) {
	if d.tab == nil {
		d.grow()
	}
	d.n += count
	mask := uint64(len(d.tab) - 1)
	i := hashtab.Spread(k) & mask
	for d.tab[i].key != k && d.tab[i].key != 0 {
		i = (i + 1) & mask
	}
	if d.tab[i].key == k {
		d.tab[i].count += count
		return
	}
	d.insert(i, k, count)
}

// insert puts a new key in the empty slot i, growing the table when 5/8 full: probes stay
// short (four 16-byte slots share a cache line), and the pooled ITL's table of the Mooncake
// trace is 8 MB instead of 16 (18 MB less peak memory).
func (d *Dist) insert(i uint64, k uint64, count int64) {
	d.tab[i] = mergeSlot{k, count}
	d.used++
	if 8*d.used > 5*len(d.tab) {
		d.grow()
	}
}

// grow rehashes the slots into a table twice the size (16 slots from empty).
func (d *Dist) grow() {
	tab := make([]mergeSlot, max(16, 2*len(d.tab)))
	mask := uint64(len(tab) - 1)
	for _, e := range d.tab {
		if e.key != 0 {
			i := hashtab.Spread(e.key) & mask
			for tab[i].key != 0 {
				i = (i + 1) & mask
			}
			tab[i] = e
		}
	}
	d.tab = tab
}

// group sorts the groups of equal values, ascending, and drops the table.
func (d *Dist) group() {
	if d.grouped {
		return
	}
	d.grouped = true
	// The occupied slots, moved to the front of the table (each lands at or before its own
	// index), are the groups to sort.
	groups := d.tab[:0]
	for _, e := range d.tab {
		if e.key != 0 {
			groups = append(groups, e)
		}
	}
	d.tab = nil
	if len(groups) >= radixMin {
		sortSlots(groups)
	} else {
		slices.SortFunc(groups, compareSlots)
	}
	gv, gc := make([]float64, len(groups)), make([]int64, len(groups))
	for i, e := range groups {
		gv[i], gc[i] = keyFloat(e.key), e.count
	}
	d.vals, d.counts = gv, gc
}

// Reciprocal is the distribution of k/v over the samples v > 0, built from the sorted groups
// (k/v is decreasing in v, so the groups reversed are sorted; values that become equal after
// the division are merged, as a fresh grouping would).
func (d *Dist) Reciprocal(k float64) *Dist {
	d.group()
	// Built in local slices of the exact capacity, the Dist written once at the end (fields
	// are memory stores in WebAssembly; this runs over every group of the pooled ITL).
	src, srcC := d.vals, d.counts[:len(d.vals)]
	vals, counts := make([]float64, 0, len(src)), make([]int64, 0, len(src))
	var n int64
	for i := len(src) - 1; i >= 0; i-- {
		v := src[i]
		if v <= 0 {
			break
		}
		x, c := k/v, srcC[i]
		if m := len(vals); m > 0 && vals[m-1] == x {
			counts[m-1] += c
		} else {
			vals = append(vals, x)
			counts = append(counts, c)
		}
		n += c
	}
	return &Dist{grouped: true, vals: vals, counts: counts, n: n}
}

// AddPassGaps adds the pooled consecutive-pass token gaps of worker w: one weighted sample
// per pass gap that completed requests spanned (engine.Worker.GapCounts).
func (d *Dist) AddPassGaps(w *engine.Worker) {
	if d.tab == nil {
		d.grow()
	}
	ends, diff := w.PassEnds, w.GapCounts()
	m := min(len(ends), len(diff))
	if m < 2 {
		return
	}
	// Both slices cut to one length and the previous end kept in a local: fewer bounds
	// checks and loads per pass, which in WebAssembly each cost about a dozen instructions
	// (this loop runs once per pass, 2.7 million times for the Mooncake trace; with both,
	// 14 % fewer instructions in it).
	ends, diff = ends[:m], diff[:m]
	// The table and the sample count live in locals (fields of d are memory loads and
	// stores in WebAssembly), reloaded after an insert, which may grow the table.
	tab, mask := d.tab, uint64(len(d.tab)-1)
	var c, n int64
	prev := ends[0]
	for p := 1; p < len(ends); p++ {
		e := ends[p]
		c += int64(diff[p])
		k := nonNegKey(e - prev)
		prev = e
		if c <= 0 {
			continue
		}
		// add, written out: this loop runs once per pass (millions in long runs), and a call
		// per sample costs more in WebAssembly than the probe (calling add here: +2.3 % of
		// the Mooncake trace's instructions, +8 million mispredicted branches).
		n += c
		i := hashtab.Spread(k) & mask
		for tab[i].key != k && tab[i].key != 0 {
			i = (i + 1) & mask
		}
		if tab[i].key == k {
			tab[i].count += c
		} else {
			d.insert(i, k, c)
			tab, mask = d.tab, uint64(len(d.tab)-1)
		}
	}
	d.n += n
}

// nonNeg is max(0, x) for the non-NaN values here, without the runtime call that max on
// floats compiles to in WebAssembly (negative values and −0 give +0, as max does).
func nonNeg(x float64) float64 {
	if x > 0 {
		return x
	}
	return 0
}

// N is the number of samples.
func (d *Dist) N() int64 { return d.n }

// Stats are the nine statistics written for a distribution.
type Stats struct {
	Mean, Min, Max, Median, P75, P90, P95, P99, Std float64
}

// radixMin is the size from which sortSlots beats the library's comparison sort.
const radixMin = 4096

// fixupBits is how many low key bits sortSlots leaves to its fix-up pass.
const fixupBits = 16

// sortSlots sorts slots by key, ascending, stably: an LSD radix sort on the high 48 bits
// of the keys only (a digit at which every key agrees skipped), then a fix-up of the runs
// whose high 48 bits tie (sortLow). Such runs are values within about 1e-10 of each other.
// Linear, with three quarters of the data movement of a radix sort on all 64 bits, which
// matters for the hundreds of thousands of distinct pass gaps of long runs. (Pass times of a
// steady batch creep up by far less than 2^-20 of their value per pass, so a split at 32 bits
// is not enough.)
func sortSlots(s []mergeSlot) {
	// 12-bit digits: four passes, but a count table that stays in cache, and scatters into
	// 4096 streams, not 65536 (the Mooncake trace's 286 thousand gap values sort 13 %
	// faster in WebAssembly than with three passes of 16-bit digits); 16-bit digits for
	// millions of keys.
	bits := uint(12)
	if len(s) >= 1<<21 {
		bits = 16
	}
	sortSlotsDigits(s, bits)
}

// sortSlotsDigits is sortSlots with digits of the given width (at most 16). Key and count
// move together, and digits are uint16 indices of a 65536-entry array: in WebAssembly every
// slice access is a bounds check and a load of its own, so one slice of pairs and an index
// that needs no check make each element's step about a third cheaper than two slices and a
// checked count table.
func sortSlotsDigits(s []mergeSlot, bits uint) {
	n := len(s)
	src, dst := s, make([]mergeSlot, n)
	mask := uint16(1<<bits - 1)
	count := new([1 << 16]int32)
	for shift := uint(fixupBits); shift < 64; shift += bits {
		clear(count[:1<<bits])
		for _, e := range src {
			count[uint16(e.key>>shift)&mask]++
		}
		if int(count[uint16(src[0].key>>shift)&mask]) == n {
			continue // every key has the same digit here
		}
		var pos int32
		for i, c := range count[:1<<bits] {
			count[i] = pos
			pos += c
		}
		for _, e := range src {
			d := uint16(e.key>>shift) & mask
			at := count[d]
			dst[at] = e
			count[d] = at + 1
		}
		src, dst = dst, src
	}
	for i := 0; i < n; {
		j := i + 1
		for j < n && src[j].key>>fixupBits == src[i].key>>fixupBits {
			j++
		}
		if j-i > 1 && !slices.IsSortedFunc(src[i:j], compareSlots) {
			sortLow(src[i:j], dst[:j-i])
		}
		i = j
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// sortLow sorts slots whose keys agree above the low fixupBits, stably: insertion sort for
// short runs, two 8-bit LSD passes (tmp is scratch of the same length) for long ones.
func sortLow(s, tmp []mergeSlot) {
	if len(s) <= 32 {
		for i := 1; i < len(s); i++ {
			e := s[i]
			j := i
			for j > 0 && s[j-1].key > e.key {
				s[j] = s[j-1]
				j--
			}
			s[j] = e
		}
		return
	}
	src, dst := s, tmp
	for shift := uint(0); shift < fixupBits; shift += 8 {
		var count [256]int32
		for _, e := range src {
			count[uint8(e.key>>shift)]++
		}
		var pos int32
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, e := range src {
			d := uint8(e.key >> shift)
			at := count[d]
			dst[at] = e
			count[d] = at + 1
		}
		src, dst = dst, src
	}
	// Two passes: the result is back in s.
}

// nonNegKey is floatKey(nonNeg(x)) computed on x's bits: negative values, −0 and NaN give
// the key of +0, as nonNeg maps them to it. Without floatKey's branches and without the
// float select of nonNeg, which the Go compiler for WebAssembly passes through a stack slot
// (Float64bits is a store and a load there); in the pooled-ITL loop, a WebAssembly loop over
// millions of pass gaps.
func nonNegKey(x float64) uint64 {
	b := math.Float64bits(x)
	if b > 0x7ff0000000000000 { // sign bit set, or a NaN
		b = 0
	}
	return b | 1<<63
}

// floatKey maps a float to a uint64 whose unsigned order is the float's order (negative
// values have every bit flipped, positive ones the sign bit set); −0 maps like +0, so the two
// zeros tie, as they do in a comparison sort.
func floatKey(v float64) uint64 {
	if v == 0 {
		v = 0
	}
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

// keyFloat is the inverse of floatKey (−0 comes back as +0).
func keyFloat(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// Stats computes the statistics: nearest-rank percentiles with rank
// round_half_away((N−1)·p/100), mean and population std summed over groups of equal values in
// ascending order (docs/semantics/outputs.md §4.2). Empty → all zero.
func (d *Dist) Stats() Stats {
	if d.n == 0 {
		return Stats{}
	}
	d.group()
	gv, gc := d.vals, d.counts
	n := float64(d.n)
	// The percentiles' ranks ascend with p, so one walk of the cumulative counts, with the
	// sum, finds all five (instead of a walk per percentile: 4 of them over the pooled ITL's
	// hundreds of thousands of groups, twice with its reciprocal).
	percents := [5]float64{50, 75, 90, 95, 99}
	var ranks [5]int64
	for j, p := range percents {
		ranks[j] = min(int64(math.Round(float64(float64(d.n-1)*p)/100)), d.n-1)
	}
	var at [5]float64
	var s float64
	var cum int64
	j := 0
	for i, v := range gv {
		s += float64(v * float64(gc[i]))
		cum += gc[i]
		for j < len(ranks) && ranks[j] < cum {
			at[j] = v
			j++
		}
	}
	mean := s / n
	var q float64
	for i, v := range gv {
		dv := v - mean
		q += float64(gc[i]) * float64(dv*dv)
	}
	return Stats{
		Mean: mean, Min: gv[0], Max: gv[len(gv)-1],
		Median: at[0], P75: at[1], P90: at[2], P95: at[3], P99: at[4],
		Std: math.Sqrt(q / n),
	}
}

// put writes the nine statistics of a distribution into m as {stat}_{name} (docs/semantics/outputs.md §3.2).
func (s Stats) put(m map[string]any, d report.Distribution) {
	m[d.Key(report.Mean)] = s.Mean
	m[d.Key(report.Min)] = s.Min
	m[d.Key(report.Max)] = s.Max
	m[d.Key(report.Median)] = s.Median
	m[d.Key(report.P75)] = s.P75
	m[d.Key(report.P90)] = s.P90
	m[d.Key(report.P95)] = s.P95
	m[d.Key(report.P99)] = s.P99
	m[d.Key(report.Std)] = s.Std
}
