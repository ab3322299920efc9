package simcore

import (
	"fmt"
	"strings"
	"testing"
)

// The default timing model must respect physics whatever its calibration: hardware
// differences come only from the hardware facts (docs/timing.md, "Physics by
// construction"). These tests run the simulator over a grid of deployments and compare
// same-shape predictions.

// physicsModels are the models of the grid: a small and a large dense model and a MoE model.
var physicsModels = []string{"meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen3-30B-A3B"}

// physicsGPUs are the GPUs of the grid, oldest first: each is at least as fast as the one
// before it in every hardware fact the timing model uses for these models.
var physicsGPUs = []string{"h100_sxm", "h200_sxm", "b200_sxm", "b300_sxm"}

var physicsBackends = []string{"vllm", "sglang", "trtllm"}

// physicsTolerance is the relative slack of every "not slower" comparison.
const physicsTolerance = 0.05

// gridPoint is one deployment and load of the grid.
type gridPoint struct {
	model, gpu, backend, quant string
	tp, conc, isl, osl         int
}

func (g gridPoint) String() string {
	q := g.quant
	if q == "" {
		q = "bf16"
	}
	return fmt.Sprintf("%s %s %s %s tp%d c%d %d/%d", g.model, g.gpu, g.backend, q, g.tp, g.conc, g.isl, g.osl)
}

// gridResult is a simulated mean TTFT, mean TPOT and output throughput.
type gridResult struct {
	ttft, tpot, tput float64
	ok               bool // false: the deployment does not fit (or the run failed)
}

// physicsRun simulates one grid point: a closed loop of conc requests, conc requests in all
// (at least 8: one wave of a large load is enough to compare deployments), default timing and
// capacity.
func physicsRun(t *testing.T, g gridPoint, cache map[gridPoint]gridResult) gridResult {
	if r, ok := cache[g]; ok {
		return r
	}
	n := g.conc
	if n < 8 {
		n = 8
	}
	var b strings.Builder
	fmt.Fprintf(&b, "traffic:\n  source: {type: synthetic, input_tokens: %d, output_tokens: %d}\n", g.isl, g.osl)
	fmt.Fprintf(&b, "  load: {type: concurrency, concurrency: %d}\n  stop: {requests: %d}\n", g.conc, n)
	fmt.Fprintf(&b, "engine:\n  model: %s\n  hardware: %s\n  backend: %s\n", g.model, g.gpu, g.backend)
	if g.quant != "" {
		fmt.Fprintf(&b, "  gemm_quant_mode: %s\n", g.quant)
	}
	// KV blocks of 256 tokens for every backend: the pool's size in tokens (what the physics
	// depends on) is the default capacity, while the engine allocates 16–256× fewer blocks.
	fmt.Fprintf(&b, "  workers:\n    aggregated:\n      parallelism: {replicas: 1, tensor: %d}\n      kv_cache: {block_size: 256}\n", g.tp)
	out, err := Predict(Input{ConfigName: "physics.yaml", ConfigYAML: []byte(b.String())})
	var r gridResult
	if err == nil {
		r.ttft, _ = out.Summary["mean_ttft_ms"].(float64)
		r.tpot, _ = out.Summary["mean_tpot_ms"].(float64)
		r.tput, _ = out.Summary["output_throughput_tok_s"].(float64)
		r.ok = r.ttft > 0 && r.tpot > 0
	} else if !strings.Contains(err.Error(), "does not fit") {
		t.Fatalf("%v: %v", g, err)
	}
	cache[g] = r
	return r
}

// physicsGrid lists the base grid: every model × GPU × backend × TP 1–8 × concurrency
// 1/16/256 at 1024/256 tokens.
func physicsGrid() []gridPoint {
	var out []gridPoint
	for _, m := range physicsModels {
		for _, gpu := range physicsGPUs {
			for _, be := range physicsBackends {
				for _, tp := range []int{1, 2, 4, 8} {
					for _, c := range []int{1, 16, 256} {
						out = append(out, gridPoint{model: m, gpu: gpu, backend: be, tp: tp, conc: c, isl: 1024, osl: 256})
					}
				}
			}
		}
	}
	return out
}

// slower reports whether got is slower than ref beyond the tolerance.
func slower(got, ref float64) bool { return got > ref*(1+physicsTolerance) }

// slowerRun reports whether run b is slower than run a of the same load: a longer TTFT, or a
// longer TPOT — unless b also serves more tokens per second with no longer TTFT, which is
// what a larger KV cache does when a's cache could not hold the whole load (b runs bigger
// decode batches instead of queueing requests).
func slowerRun(b, a gridResult) bool {
	if slower(b.ttft, a.ttft) {
		return true
	}
	return slower(b.tpot, a.tpot) && !(b.tput > a.tput*(1+physicsTolerance))
}

// physicsCache holds every simulated grid point, shared by the tests of this file.
var physicsCache = map[gridPoint]gridResult{}

func TestPhysicsNewerGPUNeverSlower(t *testing.T) {
	cache := physicsCache
	comparisons, inversions := 0, 0
	for _, g := range physicsGrid() {
		if g.gpu == physicsGPUs[0] {
			continue
		}
		prev := g
		for i, gpu := range physicsGPUs {
			if gpu == g.gpu {
				prev.gpu = physicsGPUs[i-1]
			}
		}
		a, b := physicsRun(t, prev, cache), physicsRun(t, g, cache)
		if !a.ok || !b.ok {
			continue
		}
		comparisons++
		if slowerRun(b, a) {
			inversions++
			t.Errorf("%v: TTFT %.2f ms, TPOT %.3f ms; on %s: TTFT %.2f ms, TPOT %.3f ms", g, b.ttft, b.tpot, prev.gpu, a.ttft, a.tpot)
		}
	}
	if comparisons < 200 {
		t.Errorf("only %d comparisons (the grid lost points)", comparisons)
	}
	t.Logf("%d same-shape GPU comparisons, %d inversions", comparisons, inversions)
}

func TestPhysicsMoreTPLowersTPOTOf70B(t *testing.T) {
	cache := physicsCache
	for _, gpu := range physicsGPUs {
		for _, be := range physicsBackends {
			for _, c := range []int{1, 16} {
				var prev gridResult
				prevTP := 0
				for _, tp := range []int{1, 2, 4, 8} {
					g := gridPoint{model: physicsModels[1], gpu: gpu, backend: be, tp: tp, conc: c, isl: 1024, osl: 256}
					r := physicsRun(t, g, cache)
					if !r.ok {
						continue
					}
					if prev.ok && r.tpot >= prev.tpot {
						t.Errorf("%v: TPOT %.3f ms not below tp%d's %.3f ms", g, r.tpot, prevTP, prev.tpot)
					}
					prev, prevTP = r, tp
				}
			}
		}
	}
}

func TestPhysicsFP8NotSlowerThanBF16(t *testing.T) {
	cache := physicsCache
	for _, m := range physicsModels {
		for _, gpu := range physicsGPUs {
			for _, be := range physicsBackends {
				for _, c := range []int{1, 16, 256} {
					for _, tp := range []int{2, 8} {
						g := gridPoint{model: m, gpu: gpu, backend: be, tp: tp, conc: c, isl: 1024, osl: 256}
						bf, f8 := g, g
						f8.quant = "fp8"
						a, b := physicsRun(t, bf, cache), physicsRun(t, f8, cache)
						if !a.ok || !b.ok {
							continue
						}
						if slowerRun(b, a) {
							t.Errorf("%v: FP8 TTFT %.2f ms, TPOT %.3f ms; BF16 TTFT %.2f ms, TPOT %.3f ms", f8, b.ttft, b.tpot, a.ttft, a.tpot)
						}
					}
				}
			}
		}
	}
}

func TestPhysicsThroughputRisesWithConcurrency(t *testing.T) {
	cache := physicsCache
	for _, g := range physicsGrid() {
		if g.conc == 1 {
			continue
		}
		lo := g
		lo.conc = map[int]int{16: 1, 256: 16}[g.conc]
		a, b := physicsRun(t, lo, cache), physicsRun(t, g, cache)
		if !a.ok || !b.ok {
			continue
		}
		if b.tput < a.tput {
			t.Errorf("%v: output throughput %.1f tok/s below concurrency %d's %.1f", g, b.tput, lo.conc, a.tput)
		}
	}
}

func TestPhysicsTTFTRisesWithISL(t *testing.T) {
	cache := physicsCache
	for _, m := range physicsModels {
		for _, gpu := range physicsGPUs {
			for _, be := range physicsBackends {
				for _, c := range []int{1, 16} {
					prev := gridResult{}
					for _, isl := range []int{256, 1024, 4096} {
						g := gridPoint{model: m, gpu: gpu, backend: be, tp: 8, conc: c, isl: isl, osl: 16}
						r := physicsRun(t, g, cache)
						if prev.ok && r.ok && r.ttft < prev.ttft {
							t.Errorf("%v: TTFT %.2f ms below the shorter prompt's %.2f ms", g, r.ttft, prev.ttft)
						}
						prev = r
					}
				}
			}
		}
	}
}
