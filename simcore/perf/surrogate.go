package perf

// The steady-state surrogate: a replay of one rank under a closed loop with fixed lengths
// (SimAgg) and an analytic disaggregated estimate (SimDisagg), fast enough to price every
// point of a recommendation space (docs/recommend.md, "screened") and linear in the backend
// coefficients, which is what calibration fits on (docs/timing.md, "Fit").

import "aisimulate/simcore/spec"

// Vec is a linear form in the group coefficients: time = Prefill·v[0] + PrefillMs·v[1]
// + Decode·v[2] + DecodeMs·v[3] + PrefillSeqMs·v[4] + DecodeSeqMs·v[5] + FrontendMs·v[6] +
// FrontendKTokMs·v[7]. The closed-loop schedule of a concurrency load does not depend on
// pass durations, so one replay gives mean TTFT and TPOT as such forms and the fit can move
// the coefficients without replaying again. (The frontend latency also delays each closed-loop
// release by the same amount, docs/semantics/simulation.md §5.3; the surrogate keeps the release at the
// engine completion, so its TTFT is the engine's plus the frontend latency.)
type Vec [8]float64

// Coefs lists g's coefficients in Vec order.
func Coefs(g GroupCoef) [8]float64 {
	return [8]float64{g.Prefill, g.PrefillMs, g.Decode, g.DecodeMs, g.PrefillSeqMs, g.DecodeSeqMs, g.FrontendMs, g.FrontendKTokMs}
}

// Eval evaluates the form at g.
func (v Vec) Eval(g GroupCoef) float64 {
	c := Coefs(g)
	var s float64
	for i := range v {
		s += float64(v[i] * c[i])
	}
	return s
}

// decodePasses sets v's decode terms to k passes of a decode batch of bd sequences holding
// active KV tokens at the first: the raw decode time priced at the stretch's mean context
// (active plus bd tokens a pass, halfway through), the k pass overheads and the k·bd
// per-sequence overheads.
func (v *Vec) decodePasses(d *Default, bd, k int, active int64) {
	mid := active + int64(bd)*int64(k-1)/2
	v[2] = float64(k) * d.DecodeRawMs(bd, mid, int(mid/int64(bd)))
	v[3] = float64(k)
	v[5] = float64(k * bd)
}

func (v Vec) add(w Vec) Vec {
	for i := range v {
		v[i] += w[i]
	}
	return v
}

func (v Vec) sub(w Vec) Vec {
	for i := range v {
		v[i] -= w[i]
	}
	return v
}

func (v Vec) scale(f float64) Vec {
	for i := range v {
		v[i] *= f
	}
	return v
}

// AggResult is the surrogate replay of an aggregated row: mean TTFT and TPOT as linear forms.
type AggResult struct {
	TTFT, TPOT Vec
	Passes     int
}

type cohort struct {
	n      int // requests in the cohort
	done   int // prompt tokens computed per request
	gen    int // output tokens produced per request
	arrive int // boundary index at arrival
	first  int // boundary index after the first token
	admit  bool
}

// SimAgg replays one attention-DP rank of an aggregated worker under a closed loop of conc
// requests in flight (10 requests per slot), fixed isl/osl, no prefix caching, following the
// vLLM/TRT-LLM chunked-prefill pass (decodes first, prompt chunks in the remaining token
// budget) or the SGLang pass (a prefill-only extend pass whenever prompts wait, else a decode
// pass). KV capacity bounds the requests in flight (mean footprint, whole sequence for
// TensorRT-LLM; no preemption modelled).
func SimAgg(d *Default, backend string, conc, isl, osl int, kvTokens int64, budget int) AggResult {
	if budget <= 0 {
		budget = 8192
	}
	maxActive := MaxInFlight(backend, kvTokens, isl, osl)
	total := 10 * conc
	released := conc
	cohorts := []*cohort{{n: conc}}
	cum := []Vec{{}}
	var sumTTFT, sumTPOT Vec
	completed, nTPOT := 0, 0
	admitted := 0
	passes := 0
	for completed < total && passes < 10000000 {
		lump := len(cum) - 1
		// Prompt scheduling.
		var decoding []*cohort
		decTokens := 0
		for _, c := range cohorts {
			if c.done == isl && c.gen >= 1 && c.gen < osl {
				decoding = append(decoding, c)
				decTokens += c.n
			}
		}
		room := budget
		if backend != "sglang" {
			room -= decTokens
		}
		var sched []*cohort // cohorts computing prompt tokens this pass
		var chunk []int     // tokens per request
		for i := 0; i < len(cohorts) && room > 0; i++ {
			c := cohorts[i]
			if c.done == isl {
				continue
			}
			if !c.admit {
				free := maxActive - admitted
				if free <= 0 {
					break
				}
				if c.n > free {
					rest := &cohort{n: c.n - free, arrive: c.arrive}
					c.n = free
					cohorts = insertAfter(cohorts, i, rest)
				}
				c.admit = true
				admitted += c.n
			}
			rem := isl - c.done
			if c.n*rem <= room {
				sched = append(sched, c)
				chunk = append(chunk, rem)
				room -= c.n * rem
				continue
			}
			whole := room / rem
			if whole > 0 {
				rest := &cohort{n: c.n - whole, done: c.done, arrive: c.arrive, admit: true}
				c.n = whole
				cohorts = insertAfter(cohorts, i, rest)
				sched = append(sched, c)
				chunk = append(chunk, rem)
				room -= whole * rem
				continue
			}
			// One request takes a partial chunk.
			if c.n > 1 {
				rest := &cohort{n: c.n - 1, done: c.done, arrive: c.arrive, admit: true}
				c.n = 1
				cohorts = insertAfter(cohorts, i, rest)
			}
			sched = append(sched, c)
			chunk = append(chunk, room)
			room = 0
		}
		var v Vec
		k := 1
		if len(sched) > 0 {
			bp, sumISL, sumPre := 0, 0, 0
			for j, c := range sched {
				bp += c.n
				sumISL += c.n * (c.done + chunk[j])
				sumPre += c.n * c.done
			}
			v[0] = d.PrefillRawMs(bp, sumISL/bp, sumPre/bp)
			v[1] = 1
			v[4] = float64(bp)
		}
		// Decode part.
		var ready []*cohort
		if backend != "sglang" || len(sched) == 0 {
			ready = append(ready, decoding...)
		}
		if backend != "sglang" {
			for j, c := range sched {
				if c.done+chunk[j] == isl {
					ready = append(ready, c)
				}
			}
		}
		if len(ready) > 0 {
			bd := 0
			var active int64
			for _, c := range ready {
				bd += c.n
				active += int64(c.n) * int64(isl+c.gen)
			}
			if len(sched) == 0 {
				// Nothing changes until the next completion: lump the decode passes.
				k = osl
				for _, c := range ready {
					if osl-c.gen < k {
						k = osl - c.gen
					}
				}
				if k < 1 {
					k = 1
				}
			}
			v.decodePasses(d, bd, k, active)
		}
		if len(sched) == 0 && len(ready) == 0 {
			break // nothing can run (should not happen)
		}
		cum = append(cum, cum[lump].add(v))
		passes += k
		end := lump + 1
		// Advance state.
		for _, c := range ready {
			if c.done == isl && c.gen >= 1 {
				c.gen += k
			}
		}
		for j, c := range sched {
			c.done += chunk[j]
			if c.done == isl {
				c.gen = 1
				c.first = end
				ttft := cum[end].sub(cum[c.arrive]).scale(float64(c.n))
				sumTTFT = sumTTFT.add(ttft)
			}
		}
		// Completions and replacements.
		out := cohorts[:0]
		var arrivals []*cohort
		for _, c := range cohorts {
			if c.done == isl && c.gen >= osl {
				completed += c.n
				admitted -= c.n
				if osl > 1 {
					tp := cum[end].sub(cum[c.first]).scale(float64(c.n) / float64(osl-1))
					sumTPOT = sumTPOT.add(tp)
					nTPOT += c.n
				}
				if released < total {
					n := c.n
					if released+n > total {
						n = total - released
					}
					released += n
					arrivals = append(arrivals, &cohort{n: n, arrive: end})
				}
				continue
			}
			out = append(out, c)
		}
		cohorts = append(out, arrivals...)
	}
	res := AggResult{Passes: passes}
	if completed > 0 {
		res.TTFT = sumTTFT.scale(1 / float64(completed))
	}
	// Every first token becomes visible after the frontend latency.
	res.TTFT[6], res.TTFT[7] = 1, float64(isl)/1000
	if nTPOT > 0 {
		res.TPOT = sumTPOT.scale(1 / float64(nTPOT))
	}
	return res
}

// MaxInFlight is the number of requests a rank of kvTokens KV tokens holds at once: the KV
// cache bounds them at their mean footprint isl + osl/2 (the scheduler preempts or holds back
// the excess); TensorRT-LLM admits a request only with room for its whole sequence, isl + osl
// (docs/semantics/simulation.md §7). At least 1.
func MaxInFlight(backend string, kvTokens int64, isl, osl int) int {
	n := int(kvTokens / int64(Footprint(backend, isl, osl)))
	if n < 1 {
		n = 1
	}
	return n
}

// Footprint is the KV tokens the surrogate charges a request in flight: its mean footprint
// isl + osl/2, or its whole sequence isl + osl on TensorRT-LLM (MaxInFlight).
func Footprint(backend string, isl, osl int) int {
	if backend == "trtllm" {
		return isl + osl
	}
	return isl + osl/2
}

// PassBudget is the prompt-token budget of one pass on a rank: 8192 tokens, which SGLang
// shares among a worker's dp attention-DP ranks.
func PassBudget(backend string, dp int) int {
	if backend == "sglang" && dp > 1 {
		return 8192 / dp
	}
	return 8192
}

func insertAfter(s []*cohort, i int, c *cohort) []*cohort {
	s = append(s, nil)
	copy(s[i+2:], s[i+1:])
	s[i+1] = c
	return s
}

// SurrogateRole is one disaggregated role as the surrogate sees it: its workers and their
// parallelism.
type SurrogateRole struct {
	Workers int
	Par     spec.Parallelism
}

// CleanParallelism is p with every unset (0) knob at 1.
func CleanParallelism(p spec.Parallelism) spec.Parallelism {
	for _, v := range []*int{&p.Tensor, &p.Pipeline, &p.AttentionData, &p.MoeTensor, &p.MoeExpert, &p.Replicas} {
		if *v < 1 {
			*v = 1
		}
	}
	return p
}

// SimDisagg estimates a disaggregated row analytically: decode ranks run a steady batch of
// ceil(conc / decode ranks) sequences at mean context isl + osl/2; prefill ranks see the first
// wave of conc/prefill-ranks prompts at once (in passes of up to PassBudget tokens) and
// afterwards a desynchronised closed-loop stream (closedLoopPrefill: M/D/1 queueing at the
// utilisation the loop's own throughput gives, bounded by the rank's prompt rate). Every first
// token becomes visible after the hand-off latency handoffMs (docs/semantics/simulation.md §11.4) and the
// frontend latency. kvTokens is a decode rank's KV capacity: a source-first backend (vLLM,
// TensorRT-LLM: the hand-off lands before the decode rank admits it, docs/semantics/simulation.md §7, §11.3)
// runs at most maxInFlight of its batch at once and the rest wait after their first token, so
// each request's decode lasts batch / maxInFlight times as long; SGLang reserves the blocks
// before the hand-off (destination-first), and the surrogate does not bound its batch.
func SimDisagg(pre, dec *Default, backend string, conc, isl, osl int, pr, dr SurrogateRole, kvTokens int64, handoffMs float64) (ttft, tpot float64) {
	return simDisagg(pre, dec, backend, conc, isl, osl, pr, dr, kvTokens, handoffMs, 0, false)
}

// SimDisaggLoop is SimDisagg whose closed loop also spends outsideMs of every client's cycle
// outside the prefill and decode ranks (the frontend and hand-off latencies): that time is
// added to the decode time of the prefill rank's closed loop (closedLoopPrefill), so below
// saturation it thins the prompt stream a little and at saturation the queue shrinks by as
// much as the latency grows (the rank's throughput fixes the cycle). Its decode ranks run
// the loop's own decode population rather than every client (decodePopulation): when the
// prefill ranks are saturated most clients wait there, the decode batch is smaller and its
// TPOT lower; SGLang's decode ranks hold at most what their KV cache fits (destination-first:
// the rest wait before their first token); and a prompt longer than the pass budget takes
// one pass per chunk (chunkedPrefillMs). The calibration takes its steps on it (docs/calibration.md,
// "Steps from the surrogate"); SimDisagg (outsideMs 0, every client decoding) is the
// screen's surrogate as recommend.md calibrates it.
func SimDisaggLoop(pre, dec *Default, backend string, conc, isl, osl int, pr, dr SurrogateRole, kvTokens int64, handoffMs, outsideMs float64) (ttft, tpot float64) {
	return simDisagg(pre, dec, backend, conc, isl, osl, pr, dr, kvTokens, handoffMs, outsideMs, true)
}

// simDisagg is SimDisagg (loop false) and SimDisaggLoop (loop true).
func simDisagg(pre, dec *Default, backend string, conc, isl, osl int, pr, dr SurrogateRole, kvTokens int64, handoffMs, outsideMs float64, loop bool) (ttft, tpot float64) {
	pr.Par, dr.Par = CleanParallelism(pr.Par), CleanParallelism(dr.Par)
	if pr.Workers < 1 {
		pr.Workers = 1
	}
	if dr.Workers < 1 {
		dr.Workers = 1
	}
	budget := PassBudget(backend, pr.Par.AttentionData)
	dRanks := dr.Workers * dr.Par.AttentionData
	bd := (conc + dRanks - 1) / dRanks
	ctx := isl + osl/2
	// decodeAt is the TPOT of b sequences per decode rank: a source-first backend runs at
	// most MaxInFlight of them at once, the rest waiting their turn.
	decodeAt := func(b int) float64 {
		run, wait := b, 1.0
		if backend != "sglang" {
			if c := MaxInFlight(backend, kvTokens, isl, osl); c < b {
				run, wait = c, float64(b)/float64(c)
			}
		}
		return wait * dec.DecodeMs(run, int64(run)*int64(ctx), ctx, 0)
	}
	pRanks := float64(pr.Workers * pr.Par.AttentionData)
	cp := float64(conc) / pRanks
	k := budget / isl
	if k < 1 {
		k = 1
	}
	if float64(k) > cp {
		k = int(cp + 0.999999)
		if k < 1 {
			k = 1
		}
	}
	tk := pre.PrefillMs(k, isl, 0)
	n := float64(int((cp + float64(k) - 1) / float64(k)))
	if n < 1 {
		n = 1
	}
	wave := tk * (n + 1) / 2
	t1 := pre.PrefillMs(1, isl, 0)
	mu := float64(k) / tk
	if loop && isl > budget {
		// A prompt longer than the pass budget is prefilled in chunks of the budget, each
		// on top of the chunks before it (chunked prefill), one pass each.
		t1 = chunkedPrefillMs(pre, isl, budget)
		tk, mu = t1, 1/t1
		wave = tk * (n + 1) / 2
	}
	if !loop {
		tpot = decodeAt(bd)
		steady := closedLoopPrefill(cp, t1, mu, float64(osl-1)*tpot)
		return 0.1*wave + 0.9*steady + handoffMs + pre.FrontendMs(isl), tpot
	}
	// SGLang reserves a request's decode blocks before its hand-off (destination-first), so
	// a decode rank holds at most MaxInFlight of them and the rest wait before their first
	// token.
	held := bd
	if backend == "sglang" {
		held = min(bd, MaxInFlight(backend, kvTokens, isl, osl))
	}
	b := decodePopulation(held, func(b int) float64 {
		d := float64(osl-1) * decodeAt(b)
		cycle := closedLoopPrefill(cp, t1, mu, d+outsideMs) + d + outsideMs
		return float64(conc) * d / cycle / float64(dRanks)
	})
	tpot = decodeAt(b)
	d := float64(osl-1) * tpot
	steady := closedLoopPrefill(cp, t1, mu, d+outsideMs)
	if b == held && held < bd {
		// The decode ranks bound the loop's throughput to dRanks·b requests per decode
		// time, so a cycle lasts at least conc over that; what of it is not decode or
		// outside the ranks is spent before the first token.
		steady = max(steady, float64(conc)*d/float64(dRanks*b)-d-outsideMs)
	}
	ttft = 0.1*wave + 0.9*steady + handoffMs + pre.FrontendMs(isl)
	return ttft, tpot
}

// chunkedPrefillMs is one prompt of isl tokens prefilled alone in passes of at most budget
// tokens, each computing its chunk on top of the tokens before it.
func chunkedPrefillMs(pre *Default, isl, budget int) float64 {
	var t float64
	for done := 0; done < isl; done += budget {
		t += pre.PrefillMs(1, min(done+budget, isl), done)
	}
	return t
}

// decodePopulation is the decode batch per rank of a closed loop, at most bd (every client
// decoding): the largest b whose loop keeps b sequences decoding per rank, to the nearest
// sequence, where held(b) is that number when each rank decodes b (Little's law: the loop's
// throughput, clients over their cycle, times the decode time). held grows with b slower
// than b does once the decode passes' cost per sequence is small against the prefill
// queue's share of the cycle, so the crossing is one; integer bisection, deterministic.
func decodePopulation(bd int, held func(b int) float64) int {
	lo, hi := 1, bd
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if held(mid)+0.5 >= float64(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// closedLoopPrefill is the steady-state prefill time (queueing + pass) of a prompt on a
// prefill rank that cp closed-loop clients share, after the first wave: the fixed point of
// T = max(M/D/1(ρ), cp/μ − decode) with ρ = X/μ and X = cp/(T + decode). t1 is a lone
// prompt's pass (the M/D/1 service time), mu the rank's prompt rate in full passes (k
// prompts per pass of tk ms: a queue is served k at a time), decode the rest of a client's
// cycle (its time after the first token, plus SimDisaggLoop's time outside the ranks). Below saturation the wait is M/D/1's t1·(1 + ρ/(2(1 − ρ))); at saturation
// the closed loop's own bound holds: the rank serves mu prompts per ms, so a cycle lasts cp/mu
// and the prefill part of it is cp/mu − decode (docs/timing.md, "Row repairs"). g(T) falls as
// T grows, so the fixed point is unique: bisection, deterministic.
func closedLoopPrefill(cp, t1, mu, decode float64) float64 {
	g := func(t float64) float64 {
		rho := cp / (t + decode) / mu
		q := t1 * (1 + 0.95/(2*0.05))
		if rho < 0.95 {
			q = t1 * (1 + rho/(2*(1-rho)))
		}
		return max(q, cp/mu-decode, t1)
	}
	lo, hi := t1, g(t1)
	for i := 0; i < 64; i++ {
		mid := (lo + hi) / 2
		if g(mid) > mid {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}
