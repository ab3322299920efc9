package perf

import "container/heap"

// SimAggLengths is SimAgg with a length per request: the closed loop of conc slots takes the
// requests in order (request i has prompt isl[i] and output osl[i]; the first conc arrive at
// once, each completion releases the next), as the measuring client's length draw does
// (docs/timing.md, "What the measurements' client did"). Prompts that arrive one at a time
// break the closed loop's waves, so a prompt is mostly prefilled alone next to the running
// decodes instead of in a wave of its neighbours.
//
// The schedule is counted in passes and does not depend on their durations, so mean TTFT and
// TPOT are again linear forms in the backend coefficients. What the simulator's frontend
// latency F does to a released request (docs/semantics/simulation.md §5.3: it arrives F after
// the completion that released it, at the previous request's visible completion, and its
// TTFT runs from there to its own first token's visible time) is kept, with the pass
// durations and F of d's own coefficients deciding which of its cases applies:
//
//   - the first wave arrives at an idle engine at t = 0: TTFT = its passes + F;
//   - a request released at the end of pass a reaches the scheduler after the pass that starts
//     there (when F > 0) and is scheduled from the next boundary on;
//   - when nothing else runs, the engine waits for it: TTFT = F + its own passes;
//   - else, when F is shorter than half the pass d after a, its TTFT runs from a to its first
//     token (it waits out that pass: F itself is hidden in it); when F is longer, the request
//     reaches the scheduler F after a plus half a pass of waiting on average: TTFT = F +
//     d/2 + its passes from a+1 on.
//
// The KV cache bounds the requests in flight by the sum of their footprints (Footprint); at
// least one request runs.
func SimAggLengths(d *Default, backend string, conc int, isl, osl []int, kvTokens int64, budget int) AggResult {
	if budget <= 0 {
		budget = 8192
	}
	n := len(isl)
	if conc > n {
		conc = n
	}
	rq := make([]lenReq, n)
	ref := d.Effective()
	lag := 0
	if ref.Frontend(1) > 0 {
		lag = 1
	}
	var idle []bool // idle[b]: nothing ran from boundary b to b+1 (the engine waited)
	sglang := backend == "sglang"
	var (
		cum       = []Vec{{}}
		queue     []int // requests with prompt tokens left, in arrival order
		dec       decodeHeap
		nDec      int   // requests decoding
		decISL    int64 // Σ prompt lengths of the decoding requests
		decD0     int64 // Σ d0 of the decoding requests
		steps     int64 // decode steps every decoding request has taken (D)
		used      int64 // KV tokens the admitted requests hold (footprints)
		admitted  int
		released  = conc
		completed int
		nTPOT     int
		sumTTFT   Vec
		sumTPOT   Vec
		passes    int
	)
	for i := 0; i < conc; i++ {
		queue = append(queue, i)
	}
	type chunkOf struct{ req, tokens int }
	var sched []chunkOf
	for completed < n && passes < 10000000 {
		b := len(cum) - 1 // the pass about to run starts at boundary b
		sched = sched[:0]
		room := budget
		if !sglang {
			room -= nDec
		}
		// Prompt chunks, first come first served, in the token budget the decodes leave.
		qi := 0
		for ; qi < len(queue) && room > 0; qi++ {
			i := queue[qi]
			r := &rq[i]
			if r.eligible > b {
				break // released at the previous boundary: not yet at the scheduler
			}
			if !r.admit {
				fp := int64(Footprint(backend, isl[i], osl[i]))
				if admitted > 0 && used+fp > kvTokens {
					break // the KV cache is full: the queue waits for a completion
				}
				r.admit = true
				used += fp
				admitted++
			}
			rem := isl[i] - r.done
			if rem > room {
				sched = append(sched, chunkOf{i, room})
				room = 0
				break
			}
			sched = append(sched, chunkOf{i, rem})
			room -= rem
		}
		var v Vec
		k := 1
		if len(sched) > 0 {
			sumLen, sumPre := 0, 0
			for _, c := range sched {
				sumLen += rq[c.req].done + c.tokens
				sumPre += rq[c.req].done
			}
			bp := len(sched)
			v[0] = d.PrefillRawMs(bp, sumLen/bp, sumPre/bp)
			v[1] = 1
			v[4] = float64(bp)
		}
		// Decode part: the running decodes (SGLang: only in a pass without prompts) and, on
		// vLLM and TensorRT-LLM, the prompts finishing in this pass.
		runDec := nDec > 0 && (!sglang || len(sched) == 0)
		bd := 0
		var active int64
		if runDec {
			bd = nDec
			active = decISL + int64(nDec)*(1+steps) - decD0
		}
		if !sglang {
			for _, c := range sched {
				if rq[c.req].done+c.tokens == isl[c.req] {
					bd++
					active += int64(isl[c.req])
				}
			}
		}
		if bd > 0 {
			if len(sched) == 0 && !pendingAfter(rq, queue, b) {
				// Nothing changes until the next completion: lump the decode passes.
				k = int(dec[0].end - steps)
				if k < 1 {
					k = 1
				}
			}
			v.decodePasses(d, bd, k, active)
		}
		if len(sched) == 0 && bd == 0 {
			if qi < len(queue) && rq[queue[qi]].eligible > b {
				// Idle until the released requests reach the scheduler: an empty pass.
				cum = append(cum, cum[b])
				idle = markIdle(idle, b)
				continue
			}
			break // nothing can run (should not happen)
		}
		cum = append(cum, cum[b].add(v))
		passes += k
		end := b + 1
		if runDec {
			steps += int64(k)
		}
		// Prompt progress; a finished prompt's first token is stamped at the pass end.
		done, freed := 0, 0
		for _, c := range sched {
			r := &rq[c.req]
			r.done += c.tokens
			if r.done < isl[c.req] {
				continue
			}
			done++
			r.first = end
			sumTTFT = sumTTFT.add(releaseTTFT(cum, idle, r.arrive, end, r.eligible == 0, isl[c.req], ref))
			if osl[c.req] <= 1 {
				completed++
				admitted--
				used -= int64(Footprint(backend, isl[c.req], osl[c.req]))
				freed++
				continue
			}
			heap.Push(&dec, decodeEnd{req: c.req, end: steps + int64(osl[c.req]) - 1})
			nDec++
			decISL += int64(isl[c.req])
			decD0 += steps
		}
		queue = queue[done:]
		// Completions release the next requests of the closed loop.
		for len(dec) > 0 && dec[0].end <= steps {
			e := heap.Pop(&dec).(decodeEnd)
			i := e.req
			nDec--
			decISL -= int64(isl[i])
			decD0 -= e.end - int64(osl[i]) + 1
			completed++
			admitted--
			used -= int64(Footprint(backend, isl[i], osl[i]))
			sumTPOT = sumTPOT.add(cum[end].sub(cum[rq[i].first]).scale(1 / float64(osl[i]-1)))
			nTPOT++
			freed++
		}
		for ; freed > 0 && released < n; freed-- {
			rq[released].arrive = end
			rq[released].eligible = end + lag
			queue = append(queue, released)
			released++
		}
	}
	res := AggResult{Passes: passes}
	if completed > 0 {
		res.TTFT = sumTTFT.scale(1 / float64(completed))
	}
	if nTPOT > 0 {
		res.TPOT = sumTPOT.scale(1 / float64(nTPOT))
	}
	return res
}

// releaseTTFT is the TTFT form of a request released at boundary a whose first token is
// stamped at boundary first (SimAggLengths lists the cases); firstWave is a request of the
// first wave. ref prices passes and the frontend latency to choose the case.
func releaseTTFT(cum []Vec, idle []bool, a, first int, firstWave bool, isl int, ref GroupCoef) Vec {
	var f Vec
	f[6], f[7] = 1, float64(isl)/1000
	own := cum[first].sub(cum[a])
	if firstWave || (a < len(idle) && idle[a]) {
		return own.add(f)
	}
	pass := cum[a+1].sub(cum[a])
	if ref.Frontend(isl) <= pass.Eval(ref)/2 {
		return own
	}
	return own.sub(pass.scale(0.5)).add(f)
}

// markIdle records that boundary b was an idle wait.
func markIdle(idle []bool, b int) []bool {
	for len(idle) <= b {
		idle = append(idle, false)
	}
	idle[b] = true
	return idle
}

// lenReq is one request of SimAggLengths.
type lenReq struct {
	done     int  // prompt tokens computed
	admit    bool // holds its KV footprint
	arrive   int  // boundary of its release
	eligible int  // first boundary at which the scheduler sees it
	first    int  // boundary of its first token
}

// pendingAfter reports whether a queued request reaches the scheduler after boundary b (a
// lumped stretch of decode passes must not run past it). Requests join the queue in release
// order, so those are at its tail.
func pendingAfter(rq []lenReq, queue []int, b int) bool {
	return len(queue) > 0 && rq[queue[len(queue)-1]].eligible > b
}

// decodeEnd is a decoding request and the decode step count at which its last token is out.
type decodeEnd struct {
	req int
	end int64
}

// decodeHeap orders decoding requests by their last decode step, then by index.
type decodeHeap []decodeEnd

func (h decodeHeap) Len() int { return len(h) }
func (h decodeHeap) Less(i, j int) bool {
	if h[i].end != h[j].end {
		return h[i].end < h[j].end
	}
	return h[i].req < h[j].req
}
func (h decodeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *decodeHeap) Push(x any)   { *h = append(*h, x.(decodeEnd)) }
func (h *decodeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
