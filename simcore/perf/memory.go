package perf

import (
	"strconv"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// defaultMemoryFraction is capacity.memory_fraction when unset: the backend's fixed default
// (spec.DefaultMemoryFraction), or, for SGLang, which has none, its mem_fraction_static
// derived from the GPU's memory and the worker's parallelism (SGLangMemFractionStatic).
func defaultMemoryFraction(backend string, hw *catalog.Hardware, par spec.Parallelism) float64 {
	if f := spec.DefaultMemoryFraction(backend); f > 0 {
		return f
	}
	return SGLangMemFractionStatic(hw.MemBytes, par)
}

// Memory is the per-GPU memory budget of one worker rank (bytes).
type Memory struct {
	Capacity int64
	// Fraction is the memory fraction the budget used (the given one or the backend default).
	Fraction float64
	// Weights counts every resident weight, the MTP draft layers (MTPWeights) included.
	Weights     int64
	MTPWeights  int64
	Activations int64
	Runtime     int64 // hardware other_mem plus NCCL buffers
	CUDAGraph   int64
	KVBudget    int64 // bytes left for the KV cache (may be ≤ 0)
	// BytesPerToken is the KV size of one token on this rank.
	BytesPerToken int64
	// Tokens is the KV capacity in tokens (0 when the budget is exhausted).
	Tokens int64
}

// activation coefficients by family and min(tp, 8) ∈ {1, 2, 4, 8}.
var actCoef = map[string][4]float64{
	"llama":   {11, 6.5, 5, 5},
	"default": {10, 6, 5, 5},
	"moe":     {22, 13, 10, 10},
}

var actCoefSGLang = map[string][4]float64{
	"llama":   {14, 8.5, 6.5, 6.5},
	"default": {13, 8, 6.5, 6.5},
	"moe":     {28, 17, 13, 13},
}

func tpIndex(tp int) int {
	switch {
	case tp <= 1:
		return 0
	case tp == 2:
		return 1
	case tp <= 4:
		return 2
	}
	return 3
}

// MemorySettings are what sizes one rank's memory besides its deployment: the capacity
// settings of `capacity: {type: default}`, the scheduler's batch and the MTP drafts.
type MemorySettings struct {
	// MemoryFraction 0 is the backend default (defaultMemoryFraction).
	MemoryFraction         float64
	CUDAGraphReservedBytes int64
	// MaxBatchedTokens 0 is spec.DefaultMaxBatchedTokens.
	MaxBatchedTokens int
	// NextN is engine.nextn: the MTP draft layers' weights are resident.
	NextN int
}

// Memory sizes one rank's memory: weights (quantised, sharded by TP/PP/EP; with nextn > 0 also
// the MTP draft layers, mtpWeightBytes), activations (2·max_batched_tokens·heads·head_dim·
// coef, floored at 70 MiB, 90 MiB ×1.15 for SGLang), runtime reserve (other_mem + NCCL
// buffers, ×1.2 for SGLang), CUDA-graph reserve, and the KV budget (docs/timing.md "Memory
// model and KV capacity"): vLLM takes memory_fraction of the total minus everything else,
// TensorRT-LLM memory_fraction of the free memory (×(1−0.015) reserved), SGLang
// mem_fraction_static of the memory left after the runtime, minus the weights — its
// activations and CUDA graphs live in the rest (1 − fraction), as SGLang sizes its pool.
func (d *Deployment) Memory(ms MemorySettings) (Memory, error) {
	m, hw, backend, par, q := d.Model, d.Hardware, d.Backend, d.Par, d.Quant
	memoryFraction, maxBatchedTokens := ms.MemoryFraction, ms.MaxBatchedTokens
	if memoryFraction <= 0 {
		memoryFraction = defaultMemoryFraction(backend, hw, par)
		if memoryFraction <= 0 {
			return Memory{Capacity: hw.MemBytes, Fraction: memoryFraction}, &Error{Worker: true, Key: "kv_cache.capacity",
				Msg: "SGLang's default mem_fraction_static on " + hw.ID + " is " + strconv.FormatFloat(memoryFraction, 'g', -1, 64) +
					": its CUDA-graph reserve for " + strconv.Itoa(par.AttentionData) + " attention-DP ranks exceeds the GPU's memory; set memory_fraction explicitly"}
		}
	}
	if maxBatchedTokens <= 0 {
		maxBatchedTokens = spec.DefaultMaxBatchedTokens
	}
	var mem Memory
	mem.Capacity = hw.MemBytes
	mem.Fraction = memoryFraction
	mem.MTPWeights = int64(mtpWeightBytes(m, par, q, ms.NextN))
	mem.Weights = int64(d.shape.weightBytesPerGPU()) + mem.MTPWeights
	fam := familyKey(m)
	coef := actCoef[fam][tpIndex(par.Tensor)]
	floor := float64(70 << 20)
	scale := 1.0
	runtimeScale := 1.0
	if backend == spec.BackendSGLang {
		coef = actCoefSGLang[fam][tpIndex(par.Tensor)]
		floor = float64(90 << 20)
		scale = 1.15
		runtimeScale = 1.2
	}
	act := float64(float64(2*float64(maxBatchedTokens))*float64(m.Heads*m.HeadDim)) * coef
	if act < floor {
		act = floor
	}
	mem.Activations = int64(act * scale)
	mem.Runtime = int64(float64(hw.OtherMem+hw.NCCLBytes(par.Tensor)) * runtimeScale)
	mem.CUDAGraph = ms.CUDAGraphReservedBytes
	nonKV := float64(mem.Weights + mem.Activations + mem.Runtime + mem.CUDAGraph)
	capF := float64(mem.Capacity)
	var kv float64
	switch backend {
	case spec.BackendTRTLLM:
		kv = float64((capF-nonKV)*memoryFraction) * (1 - 0.015)
	case spec.BackendSGLang:
		// SGLang: pool = (memory free at start-up)·mem_fraction_static − weights, where the
		// free memory is the capacity less the runtime (CUDA context, NCCL buffers).
		kv = float64((capF-float64(mem.Runtime))*memoryFraction) - float64(mem.Weights+mem.CUDAGraph)
	default:
		kv = float64(capF*memoryFraction) - nonKV
	}
	mem.KVBudget = int64(kv)
	mem.BytesPerToken = m.KVBytesPerToken(par.Tensor, par.Pipeline, q.KVCache)
	if mem.KVBudget <= 0 || mem.BytesPerToken <= 0 {
		return mem, &Error{Worker: true, Key: "kv_cache.capacity", Msg: "model " + m.ID + " does not fit on " + hw.ID +
			": weights " + gib(mem.Weights) + " + activations " + gib(mem.Activations) + " + runtime " + gib(mem.Runtime+mem.CUDAGraph) +
			" per GPU leave no KV cache within memory_fraction " + strconv.FormatFloat(memoryFraction, 'g', -1, 64) +
			" of " + gib(mem.Capacity) + "; raise tensor/pipeline/moe_expert parallelism or use a fixed capacity"}
	}
	mem.Tokens = mem.KVBudget / mem.BytesPerToken
	return mem, nil
}

func gib(b int64) string {
	return strconv.FormatFloat(float64(b)/float64(1<<30), 'f', 2, 64) + " GiB"
}

// KVCapacityBlocks is `capacity: {type: default}`: the number of KV blocks of blockSize
// tokens per attention-DP rank. An error when the weights do not fit.
func (d *Deployment) KVCapacityBlocks(ms MemorySettings, blockSize int) (int, error) {
	if blockSize <= 0 {
		blockSize = 1
	}
	mem, err := d.Memory(ms)
	if err != nil {
		return 0, err
	}
	blocks := mem.Tokens / int64(blockSize)
	if blocks < 1 {
		return 0, &Error{Worker: true, Key: "kv_cache.capacity", Msg: "KV budget holds less than one block of " + strconv.Itoa(blockSize) + " tokens"}
	}
	const maxInt = int64(^uint(0) >> 1)
	if blocks > maxInt {
		blocks = maxInt
	}
	return int(blocks), nil
}
