// Package rows reads measured serving runs (calibration/measured.csv format), maps each row
// to a deployment the default timing model can price, replays it with a fast steady-state
// surrogate of the scheduler, and scores predictions (MAPE, coverage). It is shared by
// tools/calibrate (fitting) and tools/accuracy (reporting); it never stores measured values.
package rows

import (
	"hash/fnv"
	"io"
	"math"
	"regexp"
	"strconv"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/measure"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// Row is one measured run: a row of the measured-runs CSV as the core reads it
// (measure.Row), with the methods the tools use.
type Row measure.Row

// Campaign names the measurement campaign of a row for leave-one-group-out
// cross-validation: the month it was measured in, or its model where the date is missing.
func (r *Row) Campaign() string {
	if len(r.MeasuredOn) >= 7 {
		return r.MeasuredOn[:7]
	}
	return "model " + r.Model
}

// Slices names the accuracy slices of the measured rows, in report order: aggregated rows,
// disaggregated rows that record their worker counts, and disaggregated rows that do not
// (whose pools the harness infers, docs/timing.md "Row repairs").
var Slices = [...]string{"aggregated", "disaggregated, pools recorded", "disaggregated, pools not recorded"}

// Slice is the accuracy slice of r (one of Slices).
func (r *Row) Slice() string {
	switch {
	case r.Mode != "disagg":
		return Slices[0]
	case r.Prefill.Workers > 0 && r.Decode.Workers > 0:
		return Slices[1]
	}
	return Slices[2]
}

// Role is one worker pool of a row.
type Role = measure.Role

// Read parses a measured CSV (header row names the columns) with the core's reader
// (measure.ParseCSV), which refuses non-finite or negative numbers and oversized files.
func Read(r io.Reader) ([]Row, error) {
	data, err := io.ReadAll(io.LimitReader(r, measure.MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	ms, err := measure.ParseCSV("measured CSV", data)
	if err != nil {
		return nil, err
	}
	out := make([]Row, len(ms))
	for i := range ms {
		out[i] = Row(ms[i])
	}
	return out, nil
}

// Group is the reporting group of a row: "<system>/<backend>".
func (r *Row) Group() string { return r.System + "/" + r.Backend }

// HeldOut reports whether the row's curve is held out from fitting (1 curve in 4 by a hash
// of curve_id, so a whole concurrency sweep is either fitted or held out).
func (r *Row) HeldOut() bool {
	h := fnv.New32a()
	h.Write([]byte(r.CurveID))
	return h.Sum32()%4 == 0
}

// KVFP8 makes rows with 8-bit or 4-bit weights replay with an FP8 KV cache (the CSV does
// not record the KV dtype; low-precision serving recipes normally quantise the cache too).
var KVFP8 = true

// Quant is the row's quantisation: explicit gemm/moe modes, the rest from the model.
func (r *Row) Quant() perf.Quant {
	q := perf.Quant{Gemm: r.GemmQuant, MoE: r.MoEQuant}
	if KVFP8 && r.GemmQuant != "" && r.GemmQuant != "bf16" {
		q.KVCache = "fp8"
	}
	return q
}

// Timings builds the default timing models of the row's roles with calibration c.
type Timings struct {
	Model    *catalog.Model
	HW       *catalog.Hardware
	Agg      *perf.Default
	Prefill  *perf.Default
	Decode   *perf.Default
	KVTokens int64 // per-rank KV capacity of the aggregated/decode role
	// AggPar, PrefillPar, DecodePar are the repaired parallelisms the roles were built with.
	AggPar, PrefillPar, DecodePar spec.Parallelism
	// AggWorkers is the aggregated role's replica count (1 unless ranksFromBatch repairs it).
	AggWorkers int
	// PrefillWorkers and DecodeWorkers are a disaggregated row's worker counts: the recorded
	// ones, else the decode pool of a measured deployment (decodeWorkers) and the
	// prefill pool rate-matched to it (ratedPrefillWorkers).
	PrefillWorkers, DecodeWorkers int
	// AggFraction, PrefillFraction, DecodeFraction are the roles' capacity.memory_fraction:
	// 0 (the backend default) unless an SGLang row needs a larger one (sglangFractions).
	AggFraction, PrefillFraction, DecodeFraction float64
	lastPar                                      spec.Parallelism
	lastFraction                                 float64
	// Inferred is true when the row's parallelism was missing and inferred (see Build).
	Inferred bool
}

// Simulated reports whether the accuracy harness can replay the row as built: a worker of
// more than MaxSimulatedDP attention-DP ranks (aggregated, prefill or decode) exceeds the
// harness's per-row memory limit; only the surrogate prices those. Every backend's
// disaggregated rows, with or without attention DP in a role, are simulated
// (docs/semantics/simulation.md §7, §11.5).
func (t *Timings) Simulated() bool {
	if t.Agg != nil {
		return t.AggPar.AttentionData <= MaxSimulatedDP
	}
	return t.PrefillPar.AttentionData <= MaxSimulatedDP && t.DecodePar.AttentionData <= MaxSimulatedDP
}

// MaxSimulatedDP is the most attention-DP ranks per worker the accuracy harness replays
// within its per-row memory limit.
const MaxSimulatedDP = 64

var idTP = regexp.MustCompile(`_tp(\d+)_`)

// idPar reconciles an aggregated row's parallelism with the GPU count its id records
// ("…_tp8_…"): some rows store tensor or attention-DP sizes squared (tp·ep).
func idPar(id string, p spec.Parallelism) spec.Parallelism {
	m := idTP.FindStringSubmatch(id)
	if m == nil {
		return p
	}
	n, _ := strconv.Atoi(m[1])
	if n <= 1 || p.Tensor*p.AttentionData == n {
		return p
	}
	switch {
	case p.Tensor == n*n:
		p.Tensor = n / p.AttentionData
		if p.Tensor < 1 {
			p.Tensor, p.AttentionData = n, 1
		}
		if p.MoeExpert > 1 && p.MoeExpert <= n {
			p.MoeTensor = n / p.MoeExpert
		}
	case p.AttentionData == n*n:
		p.AttentionData = n / p.Tensor
		if p.AttentionData < 1 {
			p.Tensor, p.AttentionData = 1, n
		}
		if p.MoeExpert > 1 && p.MoeExpert <= n {
			p.MoeTensor = n / p.MoeExpert
		}
	}
	return p
}

func allOnes(p spec.Parallelism) bool {
	return p.Tensor == 1 && p.Pipeline == 1 && p.AttentionData == 1 && p.MoeTensor == 1 && p.MoeExpert == 1
}

// inferPar is the parallelism assumed for a row without one: n GPUs, attention data
// parallel + expert parallel for MLA models (the usual wide-EP layout), tensor parallel
// (experts sharded by TP) otherwise.
func inferPar(m *catalog.Model, n int) spec.Parallelism {
	p := spec.Parallelism{Replicas: 1, Tensor: n, Pipeline: 1, AttentionData: 1, MoeTensor: 1, MoeExpert: 1}
	if m.Experts > 0 {
		p.MoeTensor = n
	}
	if m.Family == catalog.FamilyMLA {
		p.Tensor, p.AttentionData, p.MoeTensor, p.MoeExpert = 1, n, 1, n
	}
	return p
}

// fixPar repairs inconsistent parallelism columns of measured rows: a tensor size above
// the head count (or equal to ep²) with expert parallelism, when moe_tp × moe_ep does not
// already equal it, means TP = EP (SGLang's ep inside tp; tp = 4, moe_tp = 2, moe_ep = 2 is
// consistent as recorded), an
// attention-DP size equal to ep² means DP = EP; MoE sizes
// that do not multiply to tensor × attention_data are read as EP inside TP when moe_ep
// equals the group, as expert-TP when moe_tp does, else the tensor size follows the MoE
// group.
func fixPar(m *catalog.Model, p spec.Parallelism) spec.Parallelism {
	if m.Experts == 0 {
		p.MoeTensor, p.MoeExpert = 1, 1
		return p
	}
	if p.MoeExpert > 1 && p.AttentionData == 1 &&
		(p.Tensor > m.Heads || p.Tensor == p.MoeExpert*p.MoeExpert && p.MoeTensor*p.MoeExpert != p.Tensor) {
		// tensor recorded as tp·ep: experts are sharded EP-inside-TP over tp = ep GPUs.
		p.Tensor, p.MoeTensor = p.MoeExpert, 1
	}
	if p.Tensor > 1 && p.AttentionData == p.Tensor && p.MoeExpert == p.Tensor*p.AttentionData {
		// tensor = attention_dp = n with moe_ep = n² (vLLM rows whose id says tp<n>): n GPUs
		// with data-parallel attention and the experts spread over them, not n² GPUs whose
		// all-to-all would cross nodes (the measured TPOT matches n GPUs).
		p.Tensor, p.MoeTensor, p.MoeExpert = 1, 1, p.AttentionData
	}
	if p.MoeExpert > 1 && p.Tensor == 1 && p.AttentionData == p.MoeExpert*p.MoeExpert {
		// attention DP recorded as dp·ep the same way: data-parallel attention over ep GPUs
		// with the experts spread over the same GPUs (single-node runs of 4 or 8 GPUs, not 16
		// or 64).
		p.AttentionData, p.MoeTensor = p.MoeExpert, 1
	}
	if m.Family == catalog.FamilyMLA && p.Tensor > 16 && p.AttentionData == 1 {
		// Tensor sizes beyond 16 GPUs on MLA models are wide expert-parallel deployments
		// with data-parallel attention (one rank per GPU).
		p.AttentionData, p.Tensor, p.MoeTensor, p.MoeExpert = p.Tensor, 1, 1, p.Tensor
	}
	g := p.Tensor * p.AttentionData
	if p.MoeTensor*p.MoeExpert == 1 {
		p.MoeTensor = g
		return p
	}
	if p.MoeTensor*p.MoeExpert == g {
		return p
	}
	switch {
	case p.MoeExpert == g:
		p.MoeTensor = 1
	case p.MoeTensor == g:
		p.MoeExpert = 1
	default:
		if (p.MoeTensor*p.MoeExpert)%p.AttentionData == 0 {
			p.Tensor = p.MoeTensor * p.MoeExpert / p.AttentionData
		}
	}
	return p
}

// dpAttentionConcurrency is the concurrency from which a disaggregated TensorRT-LLM or SGLang
// row that does not record its pools is replayed with data-parallel attention in both roles
// (dataParallelAttention): every deployment of those backends that records its pools at this
// load or above (43 of 43 decode pools, 42 of 43 prefill pools) runs attention DP, and the
// rows without pools record only a tensor size (docs/timing.md, "Row repairs").
const dpAttentionConcurrency = 1024

// dataParallelAttention is p's GPUs with data-parallel attention: one attention rank per GPU
// and the experts spread over all of them, for an MoE model whose recorded worker runs tensor-
// parallel attention; other layouts are returned as they are.
func dataParallelAttention(m *catalog.Model, p spec.Parallelism) spec.Parallelism {
	p = fixPar(m, perf.CleanParallelism(p))
	if m.Experts == 0 || p.AttentionData > 1 || p.Tensor < 2 {
		return p
	}
	n := p.Tensor
	p.Tensor, p.AttentionData, p.MoeTensor, p.MoeExpert = 1, n, 1, n
	return p
}

// Build prices the row's roles; an error means the row is not covered.
func Build(r *Row, c *perf.Calibration) (*Timings, error) {
	m, err := catalog.LookupModel(r.Model, nil)
	if err != nil {
		return nil, err
	}
	hw, err := catalog.LookupHardware(r.System)
	if err != nil {
		return nil, err
	}
	t := &Timings{Model: m, HW: hw}
	q := r.Quant()
	mk := func(p spec.Parallelism) (*perf.Default, int64, error) {
		p = fixPar(m, perf.CleanParallelism(p))
		fraction := 0.0
		defer func() { t.lastPar, t.lastFraction = p, fraction }()
		var dep *perf.Deployment
		memory := func() (perf.Memory, error) {
			fraction = 0
			var err error
			if dep, err = perf.NewDeployment(m, hw, r.Backend, p, q); err != nil {
				return perf.Memory{}, err
			}
			mem, err := dep.Memory(perf.MemorySettings{})
			if err != nil && r.Backend == spec.BackendSGLang {
				// SGLang's derived default cannot hold the recorded deployment, which ran:
				// it was started with a larger --mem-fraction-static, which the CSV does
				// not record.
				for _, f := range sglangFractions {
					fraction = f
					if mem, err = dep.Memory(perf.MemorySettings{MemoryFraction: f}); err == nil {
						break
					}
				}
			}
			return mem, err
		}
		mem, err := memory()
		if err != nil && allOnes(p) {
			// The row records no parallelism although the model cannot fit one GPU:
			// assume the smallest power-of-two expert-parallel group that holds it.
			for n := 2; n <= 64 && err != nil; n *= 2 {
				p = inferPar(m, n)
				mem, err = memory()
			}
			t.Inferred = err == nil
		}
		if err != nil {
			return nil, 0, err
		}
		d, err := perf.NewDefaultWith(c, dep)
		if err != nil {
			return nil, 0, err
		}
		return d, mem.Tokens, nil
	}
	if r.Mode == "disagg" {
		pp, dp := r.Prefill.Par, r.Decode.Par
		if r.Decode.Workers < 1 && r.Concurrency >= dpAttentionConcurrency && r.Backend != spec.BackendVLLM {
			// Pools not recorded at a load where every recorded deployment ran
			// data-parallel attention in both roles.
			pp, dp = dataParallelAttention(m, pp), dataParallelAttention(m, dp)
		}
		if t.Prefill, _, err = mk(pp); err != nil {
			return nil, err
		}
		t.PrefillPar, t.PrefillFraction = t.lastPar, t.lastFraction
		if t.Decode, t.KVTokens, err = mk(dp); err != nil {
			return nil, err
		}
		t.DecodePar, t.DecodeFraction = t.lastPar, t.lastFraction
		t.DecodeWorkers = r.Decode.Workers
		if t.DecodeWorkers < 1 {
			t.DecodeWorkers = t.decodeWorkers(r)
		}
		t.PrefillWorkers = r.Prefill.Workers
		if t.PrefillWorkers < 1 {
			t.PrefillWorkers = t.ratedPrefillWorkers(r)
		}
		return t, nil
	}
	if t.Agg, t.KVTokens, err = mk(idPar(r.ID, perf.CleanParallelism(r.Agg.Par))); err != nil {
		return nil, err
	}
	t.AggPar, t.AggWorkers, t.AggFraction = t.lastPar, 1, t.lastFraction
	if n := r.ranksFromBatch(t.KVTokens * int64(t.AggPar.AttentionData)); n > t.AggPar.AttentionData {
		// The recorded deployment cannot hold the load: it ran n ranks of batch_size
		// requests — attention-DP ranks of one worker for TensorRT-LLM MoE models (over the
		// same GPUs when n divides them), else replicas.
		p := t.AggPar
		gpus := p.Tensor * p.AttentionData
		if r.Backend == "trtllm" && m.Experts > 0 && gpus%n == 0 {
			p.Tensor, p.AttentionData, p.MoeTensor, p.MoeExpert = gpus/n, n, 1, gpus
			if t.Agg, t.KVTokens, err = mk(p); err != nil {
				return nil, err
			}
			t.AggPar, t.AggFraction = t.lastPar, t.lastFraction
		} else {
			t.AggWorkers = (n + p.AttentionData - 1) / p.AttentionData
		}
	}
	return t, nil
}

// ranksFromBatch is the rank count of an aggregated row whose recorded deployment, holding
// kvTokens KV tokens, cannot hold concurrency × (ISL + OSL) tokens: ceil(concurrency /
// batch_size) when the row records a batch size, else 0 (no repair).
func (r *Row) ranksFromBatch(kvTokens int64) int {
	if r.BatchSize <= 0 || r.Concurrency <= r.BatchSize || kvTokens >= int64(r.Concurrency)*int64(r.ISL+r.OSL) {
		return 0
	}
	return (r.Concurrency + r.BatchSize - 1) / r.BatchSize
}

// decodeWorkers is the decode worker count of a disaggregated row that does not record it:
// the workers of a decode pool of RecipeDecodeGPUs GPUs (whole workers, at least one), or more
// when that pool's KV caches cannot hold every in-flight request's footprint (the
// source-first admission footprint of maxInFlight: ISL + OSL for TensorRT-LLM, ISL + OSL/2
// otherwise). At most maxRatedWorkers.
func (t *Timings) decodeWorkers(r *Row) int {
	perWorker := int64(perf.MaxInFlight(r.Backend, t.KVTokens, r.ISL, r.OSL)) * int64(t.DecodePar.AttentionData)
	held := int((int64(r.Concurrency) + perWorker - 1) / perWorker)
	gpus := max(t.DecodePar.Tensor*t.DecodePar.AttentionData*t.DecodePar.Pipeline, 1)
	recipe := max(RecipeDecodeGPUs/gpus, 1)
	return min(max(held, recipe, 1), maxRatedWorkers)
}

// RecipeDecodeGPUs is the decode pool, in GPUs, of a measured disaggregated deployment that
// does not record its worker counts: the median decode pool of the 86 measured deployments
// that do (4–72 GPUs, most of 16–32: the multi-node recipes spread the concurrency over
// several decode workers, docs/timing.md "Row repairs").
const RecipeDecodeGPUs = 24

// ratedPrefillWorkers is the prefill worker count of a disaggregated row that does not record
// it: the fewest workers whose prompt throughput, derated by 0.9, keeps up with the decode
// pool's request rate at the row's concurrency — the rate matching by which the reference's
// disaggregated search sizes its pools (seq/s = min(prefill seq/s × N_p × 0.9, decode seq/s ×
// N_d × 0.92), docs/timing.md "Row repairs"), so a measured, tuned deployment is not
// replayed with a prefill pool that queues for minutes. The decode pool's rate is ranks × batch / (OSL × TPOT) with batch =
// ceil(concurrency / ranks) at the mean context ISL + OSL/2; a prefill worker passes
// min(1, budget / ISL) prompts per pass per attention-DP rank. At most maxRatedWorkers.
func (t *Timings) ratedPrefillWorkers(r *Row) int {
	dRanks := t.DecodeWorkers * t.DecodePar.AttentionData
	b := (r.Concurrency + dRanks - 1) / dRanks
	ctx := r.ISL + r.OSL/2
	tpot := t.Decode.DecodeMs(b, int64(b)*int64(ctx), ctx, 0)
	pdp := t.PrefillPar.AttentionData
	k := max(perf.PassBudget(r.Backend, pdp)/max(r.ISL, 1), 1)
	pass := t.Prefill.PrefillMs(k, r.ISL, 0)
	if tpot <= 0 || pass <= 0 || r.OSL <= 0 {
		return 1
	}
	decodeRate := float64(dRanks*b) / (float64(r.OSL) * tpot) // requests per ms
	workerRate := float64(pdp*k) / pass
	n := int(math.Ceil(decodeRate / (prefillRateDerate * workerRate)))
	return min(max(n, 1), maxRatedWorkers)
}

// prefillRateDerate is the reference's prefill pipeline-bubble factor of rate matching.
const prefillRateDerate = 0.9

// maxRatedWorkers bounds the inferred prefill worker count (the most any recorded row has
// is 40).
const maxRatedWorkers = 64

// sglangFractions are the memory fractions an SGLang row is replayed with, the smallest that
// holds it, when SGLang's derived default (perf.SGLangMemFractionStatic) cannot: 0.88 (SGLang's
// former fixed default, which the reference estimator falls back to), then 0.92 and 0.95
// (the values serving recipes pass for large MoE models on few GPUs).
var sglangFractions = [...]float64{0.88, 0.92, 0.95}
