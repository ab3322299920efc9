package simcore

import (
	"fmt"
	"math"

	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/spec"
)

// DefaultMemoryBudget is the simulator memory a run may need, estimated before it starts, when
// Input.MemoryBudget is 0: 3 GiB of the module's 4 GiB of WebAssembly memory (the ceiling of
// 32-bit WebAssembly), leaving 1 GiB for the runtime, the configuration, traces and garbage
// collection slack (docs/robustness.md, "Memory").
const DefaultMemoryBudget = 3 << 30

// Per-request memory of a run, in bytes (docs/robustness.md, "Memory"). The outcome row is kept
// for the whole run and the summary's latency samples are built from it: twice the row covers
// both and the collector's slack (measured: 1,000,000 requests of the quickstart example at
// concurrency 10 take about 330 MB). An in-flight request holds its scheduling state, prompt
// segments and hash ids besides: twice the state plus 1 KiB.
const (
	requestBytes  = 2 * engine.OutcomeBytes
	inFlightBytes = 2*engine.RequestBytes + 1024
	// streamedCaptureBytes is one captured request when the outputs are streamed
	// (Input.StreamOutputs): its entries in the engine's history log (about 140 bytes for one
	// admission and one route, engine.CapturedHistoryBytes) and its place in the record
	// order, with room for a second admission; records are encoded one at a time.
	streamedCaptureBytes = 256
	// heldCaptureBytes is one captured request when the outputs are returned as bytes (the
	// browser and the edge): its pretty prediction.json record (about 2 KB) and its
	// requests.jsonl line (about 1.4 KB), held as bytes and copied once more into a string.
	heldCaptureBytes = 8 << 10
	// rankBytes is one rank's own state besides its block state: scheduler, queues, pool and
	// router headers, its worker's share (measured: 400,000 replicas of the worked example E2
	// take about 1.4 KB each of resident memory, 640 bytes of it block state), with margin.
	rankBytes = 4 << 10
)

// memoryTerm is one part of the estimate and the configuration field that sets its size.
type memoryTerm struct {
	bytes float64
	path  string
	// what says, for the message, what the bytes are made of.
	what string
	// fit says how large the field may be for the whole run to fit, given the other terms.
	fit func(room float64) string
}

// checkMemory estimates the memory the run of plan needs (KV block state of every rank that
// keeps any, engine.MaxStateBlocks; per-request state, in-flight requests, captured records)
// and refuses with a *spec.Error naming the field of the largest term when the total exceeds
// budget (0 = DefaultMemoryBudget). requests is the number of requests the workload releases
// and requestsPath the field that sets it. Sizes are float64 so that no product of configured
// values can overflow.
func checkMemory(cfg *spec.Config, plan *replay.Plan, requests float64, requestsPath string, captureBytes int64, budget int64) error {
	if budget <= 0 {
		budget = DefaultMemoryBudget
	}
	var terms []memoryTerm
	sizes := plan.Workload.Sizes
	pool := func(role string, p *replay.PoolPlan) {
		if p == nil {
			return
		}
		ranks := float64(p.Replicas) * float64(max(p.DP, 1))
		base := "engine.workers." + role
		terms = append(terms, memoryTerm{bytes: ranks * rankBytes, path: base + ".parallelism.replicas",
			what: fmt.Sprintf("%d replicas × %d ranks × %d bytes of scheduler state", p.Replicas, max(p.DP, 1), rankBytes),
			fit: func(room float64) string {
				return fmt.Sprintf("at most %.0f replicas fit", math.Floor(room/(float64(max(p.DP, 1))*rankBytes)))
			}})
		blocks := stateBlocks(plan, p, role, requests)
		if blocks == 0 {
			return
		}
		perRank := float64(blocks) * float64(engine.KVBlockBytes)
		t := memoryTerm{bytes: ranks * perRank}
		if blocks < p.Rank.NumBlocks {
			// Bounded by the workload: fewer requests (or shorter shared prefixes) fit.
			t.path = requestsPath
			t.what = fmt.Sprintf("%d replicas × %d ranks × up to %d KV blocks × %d bytes of block state for prefix caching: twice the shareable blocks of all requests, as no request can be preempted", p.Replicas, max(p.DP, 1), blocks, engine.KVBlockBytes)
			t.fit = func(room float64) string {
				return fmt.Sprintf("at most %.0f requests fit", math.Floor(requests*room/t.bytes))
			}
			terms = append(terms, t)
			return
		}
		// Bounded by the capacity: fewer replicas or blocks fit; so does a running limit
		// under which no request can be preempted, which bounds the state by the workload.
		alt := "; or set prefix_caching: false (no block state)"
		if fit := engine.HoldersThatFit(p.Rank, sizes.MaxSequenceTokens); role == spec.RoleAggregated && fit >= 1 && fit < p.Rank.MaxSequences {
			alt = fmt.Sprintf("; or lower %s.scheduler.max_sequences to at most %d, so that no request can be preempted and the state is bounded by the workload's shareable blocks, or set prefix_caching: false (no block state)", base, fit)
		}
		detail := fmt.Sprintf("%d replicas × %d ranks × %d KV blocks × %d bytes of block state for prefix caching, none without it", p.Replicas, max(p.DP, 1), blocks, engine.KVBlockBytes)
		if p.Replicas > 1 && perRank*float64(max(p.DP, 1)) <= float64(budget)/2 {
			t.path, t.what = base+".parallelism.replicas", detail
			t.fit = func(room float64) string {
				return fmt.Sprintf("at most %.0f replicas fit%s", math.Floor(room/(perRank*float64(max(p.DP, 1)))), alt)
			}
		} else {
			t.path, t.what = base+".kv_cache.capacity", detail
			t.fit = func(room float64) string {
				return fmt.Sprintf("at most %.0f KV blocks per rank fit%s", math.Floor(room/(ranks*float64(engine.KVBlockBytes))), alt)
			}
		}
		terms = append(terms, t)
	}
	pool("aggregated", plan.Agg)
	pool("prefill", plan.Prefill)
	pool("decode", plan.Decode)
	perRequest := float64(requestBytes)
	what := fmt.Sprintf("%.0f requests × %d bytes of outcome state", requests, requestBytes)
	if captureBytes > 0 {
		perRequest += float64(captureBytes)
		what = fmt.Sprintf("%.0f requests × %d bytes of outcome state and per-request record (--capture-per-request)", requests, int64(perRequest))
	}
	terms = append(terms, memoryTerm{bytes: requests * perRequest, path: requestsPath, what: what,
		fit: func(room float64) string {
			return fmt.Sprintf("at most %.0f requests fit", math.Floor(room/perRequest))
		}})
	if w := plan.Workload; !w.OpenLoop && w.Graph == nil && w.Concurrency > 0 {
		inFlight := math.Min(float64(w.Concurrency), requests)
		// Besides its state, an in-flight request holds at most a hash id and a block id per
		// block of its sequence (engine.Request.Reserve: 4 + 4 bytes), cut at the context.
		entry := plan.Agg
		if entry == nil {
			entry = plan.Prefill
		}
		tokens := sizes.MaxSequenceTokens
		if entry.Rank.MaxModelLen > 0 {
			tokens = min(tokens, entry.Rank.MaxModelLen)
		}
		each := float64(inFlightBytes) + 8*float64(tokens/max(entry.Rank.BlockSize, 1)+2)
		terms = append(terms, memoryTerm{bytes: inFlight * each, path: "traffic.load.concurrency",
			what: fmt.Sprintf("%.0f requests in flight × %.0f bytes of scheduling state and block tables", inFlight, each),
			fit: func(room float64) string {
				return fmt.Sprintf("a concurrency of at most %.0f fits", math.Floor(room/each))
			}})
	}
	total, largest := 0.0, 0
	for i, t := range terms {
		total += t.bytes
		if t.bytes > terms[largest].bytes {
			largest = i
		}
	}
	if total <= float64(budget) {
		return nil
	}
	t := terms[largest]
	room := float64(budget) - (total - t.bytes)
	hint := "reduce it and the other sizes of the run"
	if room > 0 {
		hint = t.fit(room)
	}
	return &spec.Error{Path: t.path, Msg: fmt.Sprintf(
		"the run would need about %s of simulator memory (%s), more than the %s a run may use (docs/robustness.md); %s",
		byteSize(total), t.what, byteSize(float64(budget)), hint)}
}

// stateBlocks bounds the blocks whose state one rank of pool p (of role) allocates in the run
// of plan, whose workload releases requests: engine.MaxStateBlocks, none without prefix
// caching; with it, the shareable blocks of the workload when no request can be preempted,
// else the capacity. An aggregated rank holds blocks for its running requests only (at most
// max_sequences); a disaggregated rank also for hand-offs being sent or received, so every
// request in flight counts there: the closed loop's clients, else every request.
func stateBlocks(plan *replay.Plan, p *replay.PoolPlan, role string, requests float64) int {
	holders := requests
	if w := plan.Workload; !w.OpenLoop && w.Graph == nil && w.Concurrency > 0 {
		holders = math.Min(float64(w.Concurrency), requests)
	}
	if role == spec.RoleAggregated {
		holders = math.Min(holders, float64(p.Rank.MaxSequences))
	}
	sizes := plan.Workload.Sizes
	bs := float64(max(p.Rank.BlockSize, 1))
	shareable := sizes.ShareableTokens/bs + sizes.ShareableRequests
	return engine.MaxStateBlocks(p.Rank, int(math.Min(holders, math.MaxInt32)), sizes.MaxSequenceTokens, shareable)
}

// byteSize writes n bytes in binary units with one decimal.
func byteSize(n float64) string {
	units := []string{"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f bytes", n)
	}
	return fmt.Sprintf("%.1f %s", n, units[i])
}

// checkPlanMemory is checkMemory for a lowered plan: a synthetic workload counts the requests
// its stop rule releases (spec.Traffic.SyntheticRequests), a trace the requests it was read
// into.
func checkPlanMemory(cfg *spec.Config, plan *replay.Plan, in *Input) error {
	requests, path, ok := cfg.Traffic.SyntheticRequests()
	if !ok {
		path = "traffic.source.paths"
		requests = float64(plan.Workload.Requests)
		if g := plan.Workload.Graph; g != nil {
			requests = float64(len(g.Nodes))
		}
	}
	if in.MaxRequests > 0 && requests > float64(in.MaxRequests) {
		return &LimitError{Path: path, Msg: fmt.Sprintf("the configuration simulates %.0f requests (traces counted after decompression and expansion); this service simulates at most %d requests per call", requests, in.MaxRequests)}
	}
	var capture int64
	switch {
	case in.CapturePerRequest && in.StreamOutputs:
		capture = streamedCaptureBytes
	case in.CapturePerRequest:
		capture = heldCaptureBytes
	}
	return checkMemory(cfg, plan, requests, path, capture, in.MemoryBudget)
}
