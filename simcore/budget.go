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
	// (Input.StreamOutputs): its place in the record order plus slack; records are encoded
	// one at a time.
	streamedCaptureBytes = 64
	// heldCaptureBytes is one captured request when the outputs are returned as bytes (the
	// browser and the edge): its pretty prediction.json record (about 2 KB) and its
	// requests.jsonl line (about 1.4 KB), held as bytes and copied once more into a string.
	heldCaptureBytes = 8 << 10
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
	pool := func(role string, p *replay.PoolPlan) {
		if p == nil {
			return
		}
		ranks := float64(p.Replicas) * float64(max(p.DP, 1))
		// A pool allocates state only for the blocks it identifies (engine.MaxStateBlocks:
		// none without prefix caching, up to its capacity with it).
		blocks := engine.MaxStateBlocks(p.Rank)
		if blocks == 0 {
			return
		}
		perRank := float64(blocks) * float64(engine.KVBlockBytes)
		base := "engine.workers." + role
		t := memoryTerm{bytes: ranks * perRank}
		detail := fmt.Sprintf("%d replicas × %d ranks × %d KV blocks × %d bytes of block state for prefix caching, none without it", p.Replicas, max(p.DP, 1), blocks, engine.KVBlockBytes)
		if p.Replicas > 1 && perRank*float64(max(p.DP, 1)) <= float64(budget)/2 {
			t.path, t.what = base+".parallelism.replicas", detail
			t.fit = func(room float64) string {
				return fmt.Sprintf("at most %.0f replicas fit", math.Floor(room/(perRank*float64(max(p.DP, 1)))))
			}
		} else {
			t.path, t.what = base+".kv_cache.capacity", detail
			t.fit = func(room float64) string {
				return fmt.Sprintf("at most %.0f KV blocks per rank fit", math.Floor(room/(ranks*float64(engine.KVBlockBytes))))
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
		terms = append(terms, memoryTerm{bytes: inFlight * float64(inFlightBytes), path: "traffic.load.concurrency",
			what: fmt.Sprintf("%.0f requests in flight × %d bytes of scheduling state", inFlight, int64(inFlightBytes)),
			fit: func(room float64) string {
				return fmt.Sprintf("a concurrency of at most %.0f fits", math.Floor(room/float64(inFlightBytes)))
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
