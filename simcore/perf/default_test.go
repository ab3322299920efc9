package perf

import (
	"errors"
	"strings"
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

func mustModel(t *testing.T, id string) *catalog.Model {
	t.Helper()
	m, err := catalog.LookupModel(id, nil)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustHW(t *testing.T, id string) *catalog.Hardware {
	t.Helper()
	h, err := catalog.LookupHardware(id)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustTiming(t *testing.T, model, hw, backend string, par spec.Parallelism, q Quant) Timing {
	t.Helper()
	tm, err := defaultFor(DefaultCalibration(), mustModel(t, model), mustHW(t, hw), backend, par, q)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

func TestKVCapacityExact(t *testing.T) {
	m := mustModel(t, "meta-llama/Meta-Llama-3.1-8B-Instruct")
	h := mustHW(t, "h200_sxm")
	// weights 16,059,990,016 B (bf16, untied embeddings), activations 2·8192·4096·11,
	// other 3.5 GiB → KV budget 0.9·141 GiB − non-KV; 131072 B/token; blocks of 64.
	got, err := kvBlocksFor(m, h, "vllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9}, 64)
	if err != nil || got != 13792 {
		t.Fatalf("Llama-3.1-8B TP1 vLLM = %d, %v; want 13792", got, err)
	}
	mem, _ := memoryFor(m, h, "vllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9, MaxBatchedTokens: 8192})
	if mem.Weights != 16059990016 || mem.Activations != 738197504 || mem.BytesPerToken != 131072 {
		t.Fatalf("memory %+v", mem)
	}
	// FP8 KV halves bytes per token: exactly twice the tokens.
	mem8, _ := memoryFor(m, h, "vllm", spec.Parallelism{Tensor: 1}, Quant{KVCache: "fp8"}, MemorySettings{MemoryFraction: 0.9, MaxBatchedTokens: 8192})
	if mem8.Tokens != mem.KVBudget/65536 {
		t.Fatalf("fp8 tokens %d", mem8.Tokens)
	}
	// TRT-LLM takes the fraction of free memory, SGLang its GPU-derived default
	// (TestSGLangKVBudgetExact: 893,915 tokens on H200).
	trt, _ := kvBlocksFor(m, h, "trtllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9}, 32)
	sgl, _ := kvBlocksFor(m, h, "sglang", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{}, 1)
	if trt <= 0 || sgl != 893915 {
		t.Fatalf("trt %d sgl %d", trt, sgl)
	}
	// A CUDA-graph reserve reduces the budget by exactly its size.
	memG, _ := memoryFor(m, h, "vllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9, CUDAGraphReservedBytes: 1 << 30, MaxBatchedTokens: 8192})
	if memG.KVBudget != mem.KVBudget-(1<<30) {
		t.Fatalf("graph reserve %d vs %d", memG.KVBudget, mem.KVBudget)
	}
}

func TestKVCapacityTinyLocalModel(t *testing.T) {
	cfg := []byte(`{"architectures":["LlamaForCausalLM"],"hidden_size":2048,"intermediate_size":5632,
		"max_position_embeddings":2048,"num_attention_heads":32,"num_hidden_layers":22,"num_key_value_heads":4,
		"torch_dtype":"float32","vocab_size":32000}`)
	m, err := catalog.ParseHFConfig("tiny", cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	// weights (22·(2560·2048 + 2048·2048 + 3·2048·5632) + 2·32000·2048)·2 = 2,199,912,448 B;
	// activations 2·8192·2048·11 = 369,098,752 B; runtime 3.5 GiB; budget
	// 0.9·151,397,597,184 − non-KV = 129,930,729,881 B; 22,528 B/token → 5,767,521 tokens.
	mem, err := memoryFor(m, mustHW(t, "h200_sxm"), "vllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9, MaxBatchedTokens: 8192})
	if err != nil || mem.Weights != 2199912448 || mem.Activations != 369098752 || mem.KVBudget != 129930729881 || mem.Tokens != 5767521 {
		t.Fatalf("tiny memory %+v %v", mem, err)
	}
	blocks, _ := kvBlocksFor(m, mustHW(t, "h200_sxm"), "vllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9}, 64)
	if blocks != 90117 {
		t.Fatalf("tiny blocks %d, want 90117", blocks)
	}
}

func TestKVCapacityTinyAndTP(t *testing.T) {
	m70 := mustModel(t, "meta-llama/Meta-Llama-3.1-70B")
	h := mustHW(t, "h200_sxm")
	if _, err := kvBlocksFor(m70, h, "vllm", spec.Parallelism{Tensor: 1}, Quant{}, MemorySettings{MemoryFraction: 0.9}, 64); err == nil {
		t.Fatal("70B bf16 on one H200 should not fit")
	} else {
		var pe *Error
		if !errors.As(err, &pe) || !pe.Worker || pe.Key != "kv_cache.capacity" || !strings.Contains(pe.Msg, "does not fit") {
			t.Fatalf("err %v", err)
		}
	}
	b4, err := kvBlocksFor(m70, h, "vllm", spec.Parallelism{Tensor: 4}, Quant{}, MemorySettings{MemoryFraction: 0.9}, 64)
	b8, err2 := kvBlocksFor(m70, h, "vllm", spec.Parallelism{Tensor: 8}, Quant{}, MemorySettings{MemoryFraction: 0.9}, 64)
	if err != nil || err2 != nil || b8 <= b4 {
		t.Fatalf("tp4 %d tp8 %d %v %v", b4, b8, err, err2)
	}
}

func TestPhysicsTensorParallel70B(t *testing.T) {
	prev := 1e18
	prevP := 1e18
	for _, tp := range []int{2, 4, 8} {
		tm := mustTiming(t, "meta-llama/Meta-Llama-3.1-70B", "h200_sxm", "vllm", spec.Parallelism{Tensor: tp}, Quant{})
		d := tm.DecodeMs(16, 16*2048, 2048, 0)
		p := tm.PrefillMs(1, 4096, 0)
		if d >= prev || p >= prevP {
			t.Fatalf("TP%d decode %.3f prefill %.3f not below TP/2 (%.3f, %.3f)", tp, d, p, prev, prevP)
		}
		prev, prevP = d, p
	}
}

func TestPhysicsFP8FasterThanBF16(t *testing.T) {
	for _, hw := range []string{"h100_sxm", "h200_sxm", "b200_sxm"} {
		bf := mustTiming(t, "meta-llama/Meta-Llama-3.1-70B", hw, "vllm", spec.Parallelism{Tensor: 4}, Quant{Gemm: "bf16"})
		f8 := mustTiming(t, "meta-llama/Meta-Llama-3.1-70B", hw, "vllm", spec.Parallelism{Tensor: 4}, Quant{Gemm: "fp8"})
		if !(f8.DecodeMs(8, 8*1024, 1024, 0) < bf.DecodeMs(8, 8*1024, 1024, 0)) ||
			!(f8.PrefillMs(4, 4096, 0) < bf.PrefillMs(4, 4096, 0)) {
			t.Fatalf("%s: fp8 not faster than bf16", hw)
		}
	}
	// On a GPU without FP8 tensor cores FP8 weights only save bandwidth: prefill at
	// large batch (compute-bound) is not faster than bf16.
	bf := mustTiming(t, "meta-llama/Meta-Llama-3.1-8B", "a100_sxm", "vllm", spec.Parallelism{Tensor: 1}, Quant{Gemm: "bf16"})
	f8 := mustTiming(t, "meta-llama/Meta-Llama-3.1-8B", "a100_sxm", "vllm", spec.Parallelism{Tensor: 1}, Quant{Gemm: "fp8"})
	if f8.PrefillMs(8, 4096, 0) < 0.97*bf.PrefillMs(8, 4096, 0) {
		t.Fatal("a100 fp8 prefill should not gain compute speed")
	}
}

func TestPhysicsBatchThroughput(t *testing.T) {
	for _, model := range []string{"meta-llama/Meta-Llama-3.1-8B", "deepseek-ai/DeepSeek-R1", "openai/gpt-oss-120b", "Qwen/Qwen3.5-397B-A17B"} {
		par := spec.Parallelism{Tensor: 8}
		tm := mustTiming(t, model, "b200_sxm", "vllm", par, Quant{})
		prevTP, prevGain := 0.0, 1e18
		batches := []int{1, 4, 16, 64, 256}
		if mustModel(t, model).Experts > 0 {
			// Sparse experts: until every expert is touched, a bigger batch mostly reuses
			// streamed weights; diminishing returns set in once they all are.
			batches = []int{128, 512, 2048, 8192}
		}
		for _, b := range batches {
			step := tm.DecodeMs(b, int64(b*1024), 1024, 0)
			tput := float64(b) / step
			if tput <= prevTP {
				t.Fatalf("%s: throughput fell at batch %d", model, b)
			}
			if prevTP > 0 {
				gain := tput / prevTP
				if gain > prevGain*1.0001 {
					t.Fatalf("%s: gains not diminishing at batch %d (%.3f after %.3f)", model, b, gain, prevGain)
				}
				prevGain = gain
			}
			prevTP = tput
		}
	}
}

func TestTimingFloorsAndEmpty(t *testing.T) {
	tm := mustTiming(t, "Qwen/Qwen3-0.6B", "b200_sxm", "vllm", spec.Parallelism{Tensor: 1}, Quant{})
	if tm.PrefillMs(0, 100, 0) != 0 || tm.DecodeMs(0, 0, 0, 0) != 0 || tm.PrefillMs(3, 10, 10) != 0 {
		t.Fatal("empty parts must cost 0")
	}
	// Longer contexts and prefixes cost more.
	if !(tm.PrefillMs(1, 8192, 4096) > tm.PrefillMs(1, 4096, 0)) {
		t.Fatal("prefix attention should cost")
	}
	tm.(*Default).SetGroup(GroupCoef{Prefill: 1e-6, Decode: 1e-6})
	if tm.PrefillMs(1, 2, 0) != 1 || tm.DecodeMs(1, 2, 2, 100) != 1 {
		t.Fatal("non-empty parts are floored at 1 ms")
	}
}

func TestNewDefaultErrors(t *testing.T) {
	m := mustModel(t, "meta-llama/Meta-Llama-3.1-8B")
	h := mustHW(t, "h200_sxm")
	cases := []struct {
		backend string
		par     spec.Parallelism
		q       Quant
		worker  bool
		key     string
	}{
		{"tgi", spec.Parallelism{Tensor: 1}, Quant{}, false, "backend"},
		{"vllm", spec.Parallelism{Tensor: 1}, Quant{Gemm: "fp6"}, false, "gemm_quant_mode"},
		{"vllm", spec.Parallelism{Tensor: 1}, Quant{KVCache: "fp4"}, false, "kvcache_quant_mode"},
		{"vllm", spec.Parallelism{Tensor: 64}, Quant{}, true, "parallelism.tensor"},
	}
	for _, c := range cases {
		_, err := defaultFor(DefaultCalibration(), m, h, c.backend, c.par, c.q)
		var pe *Error
		if !errors.As(err, &pe) || pe.Worker != c.worker || pe.Key != c.key || !strings.Contains(pe.Msg, "supported") && !strings.Contains(pe.Msg, "exceeds") {
			t.Errorf("%+v: err %v", c, err)
		}
	}
	ds := mustModel(t, "deepseek-ai/DeepSeek-R1")
	if _, err := defaultFor(DefaultCalibration(), ds, h, "sglang", spec.Parallelism{Tensor: 8, MoeExpert: 4, MoeTensor: 1}, Quant{}); err == nil {
		t.Error("moe_tensor×moe_expert ≠ tensor×attention_data must be rejected")
	}
	if _, err := defaultFor(DefaultCalibration(), ds, h, "sglang", spec.Parallelism{Tensor: 1, AttentionData: 8, MoeExpert: 8, MoeTensor: 1}, Quant{}); err != nil {
		t.Error(err)
	}
}

func TestQuantDefaults(t *testing.T) {
	q, err := Quant{}.Resolve(mustModel(t, "openai/gpt-oss-120b"))
	if err != nil || q.Gemm != "bf16" || q.MoE != "nvfp4" || q.KVCache != "bf16" || q.FMHA != "bf16" || q.Comm != "half" {
		t.Fatalf("gpt-oss %+v %v", q, err)
	}
	q, _ = Quant{}.Resolve(mustModel(t, "nvidia/Llama-3.1-70B-Instruct-FP8"))
	if q.Gemm != "fp8" || q.KVCache != "fp8" {
		t.Fatalf("70B fp8 %+v", q)
	}
	q, _ = Quant{Gemm: "nvfp4"}.Resolve(mustModel(t, "deepseek-ai/DeepSeek-R1"))
	if q.MoE != "nvfp4" {
		t.Fatalf("moe follows explicit gemm mode: %+v", q)
	}
}

func TestCalibrationTable(t *testing.T) {
	c := DefaultCalibration()
	for _, b := range Backends {
		if g, ok := c.Backends[b]; !ok || g.Prefill <= 0 || g.Decode <= 0 {
			t.Errorf("backend %s: %+v", b, g)
		}
	}
	// No coefficient is keyed by a GPU: a group key is <backend>/<family>.
	for k := range c.Groups {
		p := strings.Split(k, "/")
		if len(p) != 2 || !contains(Backends, p[0]) {
			t.Errorf("group key %q is not <backend>/<family>", k)
		}
	}
	m := mustModel(t, "meta-llama/Meta-Llama-3.1-8B")
	for _, hw := range []string{"a100_sxm", "h200_sxm"} {
		d, err := defaultFor(c, m, mustHW(t, hw), "vllm", spec.Parallelism{Tensor: 1}, Quant{})
		if err != nil || !d.Calibrated {
			t.Fatalf("%s/vllm: calibrated=%v err=%v", hw, d != nil && d.Calibrated, err)
		}
	}
	d2, _ := defaultFor(c, m, mustHW(t, "h200_sxm"), "vllm", spec.Parallelism{Tensor: 1}, Quant{})
	// The same inputs always give the same answer (no hidden state).
	if d2.DecodeMs(32, 32*2000, 2000, 0) != d2.DecodeMs(32, 32*2000, 2000, 0) {
		t.Fatal("nondeterministic")
	}
}

// Family factors resolve from the family's entry, else 1; group coefficients from the family
// on the backend, else the backend's; the frontend latency is always the backend's.
func TestFamilyAndGroupLookup(t *testing.T) {
	c := &Calibration{
		Families: map[string]FamilyCoef{"mla": {Prefill: 1.1, Decode: 1.2}},
		Groups:   map[string]GroupCoef{"vllm/mla": {Prefill: 4, FrontendMs: 99}},
		Backends: map[string]GroupCoef{"vllm": {Prefill: 5, FrontendMs: 7, FrontendKTokMs: 2}},
	}
	for _, tc := range []struct {
		fam  string
		want float64
	}{{"mla", 1.1}, {"dense", 1}} {
		if got := c.Family(tc.fam).Prefill; got != tc.want {
			t.Errorf("Family(%s).Prefill = %v, want %v", tc.fam, got, tc.want)
		}
	}
	for _, tc := range []struct {
		be, fam string
		want    float64
		cal     bool
	}{{"vllm", "mla", 4, true}, {"vllm", "dense", 5, true}, {"sglang", "mla", 1, false}} {
		if g, cal := c.Group(tc.be, tc.fam); g.Prefill != tc.want || cal != tc.cal {
			t.Errorf("Group(%s, %s) = %v/%v, want %v/%v", tc.be, tc.fam, g.Prefill, cal, tc.want, tc.cal)
		}
	}
	if g, _ := c.Group("vllm", "mla"); g.Frontend(2000) != 7+2*2 {
		t.Errorf("vllm/mla frontend %v, want the backend's 7 + 2·2 ms", g.Frontend(2000))
	}
}

// calibratedGroups lists every (GPU, backend) pair the physics tests below check: the
// coefficients no longer depend on the GPU, so every backend on a few GPUs of each generation.
func calibratedGroups(t *testing.T) [][2]string {
	t.Helper()
	var out [][2]string
	for _, hw := range []string{"a100_sxm", "h100_sxm", "h200_sxm", "b200_sxm", "gb200"} {
		for _, b := range Backends {
			out = append(out, [2]string{hw, b})
		}
	}
	return out
}

// More tensor parallelism lowers the per-token latency of a 70B model (decode step and
// prefill) under every calibrated group, within one NVLink domain.
func TestPhysicsTensorParallelEveryGroup(t *testing.T) {
	for _, g := range calibratedGroups(t) {
		prevD, prevP := 1e18, 1e18
		for _, tp := range []int{2, 4, 8} {
			tm := mustTiming(t, "meta-llama/Meta-Llama-3.1-70B", g[0], g[1], spec.Parallelism{Tensor: tp}, Quant{})
			d := tm.DecodeMs(16, 16*2048, 2048, 0)
			p := tm.PrefillMs(1, 4096, 0)
			if d >= prevD || p >= prevP {
				t.Errorf("%s/%s: TP%d decode %.3f ms prefill %.3f ms not below the smaller TP (%.3f, %.3f)", g[0], g[1], tp, d, p, prevD, prevP)
			}
			prevD, prevP = d, p
		}
	}
}

// FP8 weights are faster than BF16 (decode and prefill) wherever the GPU has FP8 tensor
// cores, under every calibrated group.
func TestPhysicsFP8EveryGroup(t *testing.T) {
	for _, g := range calibratedGroups(t) {
		if mustHW(t, g[0]).FP8 == 0 {
			continue
		}
		bf := mustTiming(t, "meta-llama/Meta-Llama-3.1-70B", g[0], g[1], spec.Parallelism{Tensor: 4}, Quant{Gemm: "bf16"})
		f8 := mustTiming(t, "meta-llama/Meta-Llama-3.1-70B", g[0], g[1], spec.Parallelism{Tensor: 4}, Quant{Gemm: "fp8"})
		if !(f8.DecodeMs(8, 8*1024, 1024, 0) < bf.DecodeMs(8, 8*1024, 1024, 0)) || !(f8.PrefillMs(4, 4096, 0) < bf.PrefillMs(4, 4096, 0)) {
			t.Errorf("%s/%s: fp8 not faster than bf16", g[0], g[1])
		}
	}
}

// Bigger decode batches raise throughput with diminishing returns, and longer prompts cost
// more prefill time, under every calibrated group.
func TestPhysicsBatchAndPromptEveryGroup(t *testing.T) {
	for _, g := range calibratedGroups(t) {
		tm := mustTiming(t, "meta-llama/Meta-Llama-3.1-8B", g[0], g[1], spec.Parallelism{Tensor: 1}, Quant{})
		prevTP, prevGain := 0.0, 1e18
		for _, b := range []int{1, 4, 16, 64, 256} {
			tput := float64(b) / tm.DecodeMs(b, int64(b*1024), 1024, 0)
			if tput <= prevTP {
				t.Errorf("%s/%s: decode throughput fell at batch %d", g[0], g[1], b)
			}
			if prevTP > 0 {
				gain := tput / prevTP
				if gain > prevGain*1.0001 {
					t.Errorf("%s/%s: gains not diminishing at batch %d (%.3f after %.3f)", g[0], g[1], b, gain, prevGain)
				}
				prevGain = gain
			}
			prevTP = tput
		}
		prev := 0.0
		for _, isl := range []int{1024, 4096, 16384} {
			p := tm.PrefillMs(1, isl, 0)
			if p <= prev {
				t.Errorf("%s/%s: a %d-token prompt (%.2f ms) is not dearer than a shorter one (%.2f ms)", g[0], g[1], isl, p, prev)
			}
			prev = p
		}
	}
}

// Expert parallelism inside tensor parallelism needs no all-to-all: every rank holds every
// token after the attention all-reduce, so the communication equals that of expert-TP; with
// data-parallel attention the dispatch and combine cost extra.
func TestExpertParallelCommunication(t *testing.T) {
	m := mustModel(t, "deepseek-ai/DeepSeek-R1")
	h := mustHW(t, "h200_sxm")
	mk := func(p spec.Parallelism) *Default {
		d, err := defaultFor(DefaultCalibration(), m, h, "sglang", p, Quant{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	ep := mk(spec.Parallelism{Tensor: 8, MoeExpert: 8, MoeTensor: 1})
	etp := mk(spec.Parallelism{Tensor: 8, MoeTensor: 8, MoeExpert: 1})
	if a, b := ep.comm(64), etp.comm(64); a != b || a <= 0 {
		t.Fatalf("EP inside TP comm %.4f ms, expert TP %.4f ms: want equal", a, b)
	}
	dp := mk(spec.Parallelism{Tensor: 1, AttentionData: 8, MoeExpert: 8, MoeTensor: 1})
	if dp.comm(64) <= 0 {
		t.Fatal("attention DP with EP must pay the all-to-all")
	}
}

// A grouped expert GEMM runs only for experts some token reaches: at batch 1 a decode step
// of a sparse MoE model streams a few experts and is far cheaper than at batch 64.
func TestMoEUntouchedExpertsCostNothing(t *testing.T) {
	m := mustModel(t, "openai/gpt-oss-120b")
	d, err := defaultFor(DefaultCalibration(), m, mustHW(t, "h200_sxm"), "vllm", spec.Parallelism{Tensor: 1}, Quant{})
	if err != nil {
		t.Fatal(err)
	}
	one, many := d.moe(1), d.moe(64)
	// Batch 1 touches top-k = 4 of 128 experts, batch 64 about 110: the streamed weights,
	// and so the layer time, grow by far more than 4×.
	if !(many > 4*one) {
		t.Fatalf("MoE layer: batch 1 %.4f ms, batch 64 %.4f ms", one, many)
	}
	// The batch-1 layer is bound by streaming its 4 experts, not by compute of all 128.
	s := d.s
	stream := 4 * (s.expertN + s.expertDown) * s.expertK * weightBytes(s.q.MoE) / (d.hw.MemBW * d.ops.MemEff) * 1000
	if one > 2*stream+0.05 {
		t.Fatalf("batch-1 MoE layer %.4f ms, streaming its experts takes %.4f ms", one, stream)
	}
}

// Tensor parallelism across two 8-GPU nodes all-reduces hierarchically: dearer than inside
// one node, but far below a ring whose every hop runs at the per-GPU network rate.
func TestHierarchicalAllReduce(t *testing.T) {
	m := mustModel(t, "meta-llama/Meta-Llama-3.1-70B")
	h := mustHW(t, "h100_sxm")
	mk := func(tp int) *Default {
		d, err := defaultFor(DefaultCalibration(), m, h, "vllm", spec.Parallelism{Tensor: tp}, Quant{})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tokens := 8192.0
	c8, c16 := mk(8).comm(tokens), mk(16).comm(tokens)
	o := DefaultCalibration().Ops
	bytes := tokens * float64(m.Hidden) * 2
	ring := float64(2*m.Layers) * (o.ARLatUs/1000 + 2*15.0/16*bytes/(h.InterNodeBW*o.AREff)*1000)
	if !(c16 > c8) || !(c16 < ring/3) {
		t.Fatalf("TP16 all-reduces %.1f ms: want above TP8's %.1f ms and well below an inter-node ring's %.1f ms", c16, c8, ring)
	}
}

// An FP8 KV cache halves the bytes decode attention reads; the kernels dequantise, so the
// attention gets faster, but by less than 2×.
func TestFP8KVCacheDecodeAttention(t *testing.T) {
	m := mustModel(t, "meta-llama/Meta-Llama-3.1-8B")
	h := mustHW(t, "h200_sxm")
	mk := func(kv string) *Default {
		d, err := defaultFor(DefaultCalibration(), m, h, "vllm", spec.Parallelism{Tensor: 1}, Quant{KVCache: kv})
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	bf, f8 := mk("bf16").decodeAttn(64, 64*4096), mk("fp8").decodeAttn(64, 64*4096)
	if !(f8 < bf && f8 > bf/2) {
		t.Fatalf("decode attention bf16 %.3f ms, fp8 %.3f ms: want bf16/2 < fp8 < bf16", bf, f8)
	}
}

// TensorRT-LLM pads heads a tensor size does not divide (every GPU computes ceil(heads/tp)
// heads); vLLM and SGLang reject such a size, naming the ones that work.
func TestTensorPaddingHeads(t *testing.T) {
	ds := mustModel(t, "deepseek-ai/DeepSeek-R1")
	hw := mustHW(t, "gb200")
	par := spec.Parallelism{Tensor: 12, MoeExpert: 12}
	d, err := defaultFor(DefaultCalibration(), ds, hw, "trtllm", par, Quant{})
	if err != nil {
		t.Fatalf("trtllm tp12 on 128 heads: %v", err)
	}
	if got := d.s.headsGPU; got != 11 {
		t.Errorf("heads per GPU %v, want ceil(128/12) = 11", got)
	}
	if _, err := memoryFor(ds, hw, "trtllm", par, Quant{}, MemorySettings{}); err != nil {
		t.Errorf("memory model: %v", err)
	}
	for _, be := range []string{"vllm", "sglang"} {
		_, err := defaultFor(DefaultCalibration(), ds, hw, be, par, Quant{})
		var pe *Error
		if !errors.As(err, &pe) || !pe.Worker || pe.Key != "parallelism.tensor" || !strings.Contains(pe.Msg, "use one of") {
			t.Errorf("%s tp12: %v", be, err)
		}
	}
	// Padding costs: TP12 computes 11 heads per GPU, more than 128/12 but less than TP8's 16.
	l := mustModel(t, "meta-llama/Meta-Llama-3.1-70B")
	d12, err := defaultFor(DefaultCalibration(), l, hw, "trtllm", spec.Parallelism{Tensor: 12}, Quant{})
	if err != nil {
		t.Fatal(err)
	}
	if d12.s.headsGPU != 6 || d12.s.kvHeadGPU != 1 {
		t.Errorf("70B tp12: %v heads, %v KV heads per GPU; want 6 and 1", d12.s.headsGPU, d12.s.kvHeadGPU)
	}
}
