package engine

// Steady decode cohort. In a vLLM or TensorRT-LLM pass most running requests just decode:
// one token scheduled, one token emitted, no new block, no registration, no completion. The
// rank does not visit those requests every pass. A request that emitted a token and whose
// next passes are of that kind becomes *steady*: its progress is implied by the worker's pass
// index (computed = sComputed + (pass − sBase), likewise generated and tokens), the rank keeps
// Σ known over steady requests in closed form for the timing model, and the request is woken
// — materialised and processed by the exact algorithm — at the first pass in which something
// else happens to it: it needs a new block, a block becomes full (registration), or it emits
// its last token. If a pass could run out of budget or KV blocks (the only cases where the
// position of a steady request in the running order matters), every steady request is
// materialised first and the pass runs exactly. Observable results are identical to visiting
// every request every pass (simulation.md: "any shortcut … as long as every observable result
// is identical").

type wake struct {
	pass int64
	seq  int64
	r    *Request
}

// wakeHeap is a min-heap of wake-ups by (pass, admission sequence).
type wakeHeap []wake

func (h wakeHeap) less(i, j int) bool {
	if h[i].pass != h[j].pass {
		return h[i].pass < h[j].pass
	}
	return h[i].seq < h[j].seq
}

func (h *wakeHeap) push(x wake) {
	*h = append(*h, x)
	a := *h
	i := len(a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *wakeHeap) pop() wake {
	a := *h
	top := a[0]
	n := len(a) - 1
	a[0] = a[n]
	a[n] = wake{}
	a = a[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a.less(r, l) {
			m = r
		}
		if !a.less(m, i) {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// steadyKnown is Σ known over steady requests at the given pass.
func (k *Rank) steadyKnown(pass int64) int64 {
	return k.steadySumKnown + int64(k.steadyN)*pass - k.steadySumBase
}

// enterSteady moves requests that just emitted and will only decode for at least one pass
// out of the active list; next is the pass index they decode in next.
func (k *Rank) enterSteady(next int64) {
	cfg := k.cfg
	if cfg.Policy == SGLang || cfg.Exact {
		return
	}
	bs := cfg.BlockSize
	kept := k.active[:0]
	for _, r := range k.active {
		if !r.inRunning || r.prefilling || r.Tokens < 2 || r.scheduled != 1 || !r.pinned || r.L+r.generated-r.computed != 1 {
			kept = append(kept, r)
			continue
		}
		c := r.computed
		off := int64(len(r.blocks)*bs - c) // passes until a new block is needed
		// Passes until the block being filled becomes full: a shareable block must be
		// registered in that very pass (another request may look it up); a unique one only
		// changes how it is released, so its registration waits for the next wake-up.
		if cfg.PrefixCaching && c/bs < r.Shareable(bs) {
			if n := int64((bs - 1 - c%bs + bs) % bs); n < off {
				off = n
			}
		}
		if n := int64(r.remainingOut(cfg.MaxModelLen) - 1); n < off {
			off = n // passes until the last token
		}
		if off < 1 {
			kept = append(kept, r)
			continue
		}
		r.steady = true
		r.sBase, r.sWake = next, next+off
		r.sComputed, r.sGen, r.sTokens = r.computed, r.generated, r.Tokens
		k.steadyN++
		k.steadySumKnown += int64(r.Known())
		k.steadySumBase += next
		k.wakes.push(wake{pass: r.sWake, seq: r.admSeq, r: r})
	}
	for i := len(kept); i < len(k.active); i++ {
		k.active[i] = nil
	}
	k.active = kept
}

// materialize brings a steady request's state up to the start of pass and returns it to the
// active list.
func (k *Rank) materialize(r *Request, pass int64, w *Worker) {
	n := int(pass - r.sBase)
	k.steadyN--
	k.steadySumKnown -= int64(r.sComputed + 1)
	k.steadySumBase -= r.sBase
	r.steady = false
	r.computed = r.sComputed + n
	r.generated = r.sGen + n
	r.Tokens = r.sTokens + n
	if k.cfg.PrefixCaching {
		k.registerFull(r) // unique blocks filled while steady
	}
	if n > 0 {
		r.LastToken = w.PassEnds[pass-1]
		r.runLast = int32(pass - 1)
		if r.runWorker != w {
			r.runWorker, r.runStart = w, int32(r.sBase)
		}
	}
	// Reinsert into the active list at its admission position.
	i := len(k.active)
	for i > 0 && k.active[i-1].admSeq > r.admSeq {
		i--
	}
	k.active = append(k.active, nil)
	copy(k.active[i+1:], k.active[i:])
	k.active[i] = r
}

// wakeDue materialises every steady request whose wake-up pass has come.
func (k *Rank) wakeDue(pass int64, w *Worker) {
	for len(k.wakes) > 0 && k.wakes[0].pass <= pass {
		x := k.wakes.pop()
		if x.r.steady && x.r.sWake == x.pass {
			k.materialize(x.r, pass, w)
		}
	}
}

// materializeAll returns every steady request to the active list (exact pass).
func (k *Rank) materializeAll(pass int64, w *Worker) {
	for len(k.wakes) > 0 {
		x := k.wakes.pop()
		if x.r.steady && x.r.sWake == x.pass {
			k.materialize(x.r, pass, w)
		}
	}
}

// steadyFits reports whether this pass can leave steady requests unvisited: every running
// request gets all the tokens it asks for and every block reservation succeeds.
func (k *Rank) steadyFits() bool {
	cfg := k.cfg
	demand := k.steadyN
	fresh := 0
	for _, r := range k.active {
		d := r.Known() - r.computed
		demand += d
		have := len(r.blocks)
		if !r.pinned {
			have = r.hitBlocks
		}
		if f := ceilDiv(r.computed+d, cfg.BlockSize) - have; f > 0 {
			fresh += f
		}
	}
	return demand <= cfg.MaxBatchedTokens && fresh <= k.KV.Free()+k.KV.Inactive()
}

// Settle materialises every steady request of every rank (end of run, worker removal).
func (w *Worker) Settle() {
	pass := int64(len(w.PassEnds))
	for _, k := range w.Ranks {
		k.materializeAll(pass, w)
	}
}
