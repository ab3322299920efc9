package rows

import (
	"strings"
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// A synthetic CSV in the measured-runs format (values invented for the test): an aggregated
// vLLM row, an SGLang disaggregated row, a TensorRT-LLM disaggregated row and a disaggregated
// row with attention DP in its decode role.
const sample = `curve_id,id,concurrency,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms,measured_on
aaa,row_agg_tp8_x,16,vllm,0.19.0,meta-llama/Llama-3.1-70B,h200_sxm,fp8,agg,1024,128,fp8,fp8,16,8,1,1,1,1,,,,,,,,,,,,,,,100,10,2026-01-01
bbb,row_dis,32,sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,disagg,2048,256,fp8,fp8_block,,,,,,,1,2,8,1,1,1,8,4,1,8,1,1,1,8,200,20,2026-01-01
ccc,row_trt_dis,64,trtllm,1.2.0,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,disagg,1024,1024,fp8,fp8_block,,,,,,,1,2,8,1,1,1,8,64,1,8,1,1,1,8,300,15,2026-01-01
ddd,row_dp_dis,64,sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,disagg,1024,1024,fp8,fp8_block,,,,,,,1,1,8,1,1,1,8,64,1,1,1,8,1,8,300,15,2026-01-01
`

func TestReadAndBuild(t *testing.T) {
	rs, err := Read(strings.NewReader(sample))
	if err != nil || len(rs) != 4 {
		t.Fatalf("read %d rows: %v", len(rs), err)
	}
	a, d := &rs[0], &rs[1]
	if a.Concurrency != 16 || a.Agg.Par.Tensor != 8 || a.TTFT != 100 || a.TPOT != 10 || a.Group() != "h200_sxm/vllm" {
		t.Fatalf("agg row %+v", a)
	}
	if d.Prefill.Workers != 2 || d.Prefill.Par.Tensor != 8 || d.Decode.Workers != 1 || d.Decode.Par.MoeExpert != 8 {
		t.Fatalf("disagg row %+v", d)
	}
	c := perf.DefaultCalibration()
	for i := range rs {
		tm, err := Build(&rs[i], c)
		if err != nil {
			t.Fatalf("%s: %v", rs[i].ID, err)
		}
		if _, err := spec.LoadConfig([]byte(ConfigYAML(&rs[i], tm)), nil); err != nil {
			t.Fatalf("%s: generated config rejected: %v\n%s", rs[i].ID, err, ConfigYAML(&rs[i], tm))
		}
	}
	q := a.Quant()
	if q.Gemm != "fp8" || q.KVCache != "fp8" {
		t.Fatalf("quant %+v", q)
	}
	if _, err := Read(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Fatal("a CSV without the required columns must be rejected")
	}
}

func TestParallelismRepairs(t *testing.T) {
	ds, _ := catalog.LookupModel("deepseek-ai/DeepSeek-R1", nil)
	q35, _ := catalog.LookupModel("Qwen/Qwen3.5-397B-A17B", nil)
	p := func(tp, dp, mtp, ep int) spec.Parallelism {
		return spec.Parallelism{Replicas: 1, Tensor: tp, Pipeline: 1, AttentionData: dp, MoeTensor: mtp, MoeExpert: ep}
	}
	cases := []struct {
		m    *catalog.Model
		in   spec.Parallelism
		want spec.Parallelism
	}{
		{q35, p(64, 1, 8, 8), p(8, 1, 1, 8)},   // tp recorded as tp·ep
		{ds, p(64, 1, 1, 8), p(8, 1, 1, 8)},    // same on an MLA model
		{ds, p(72, 1, 72, 1), p(1, 72, 1, 72)}, // wide EP with DP attention
		{ds, p(8, 1, 1, 1), p(8, 1, 8, 1)},     // unset MoE sizes follow the attention
		{ds, p(8, 1, 1, 8), p(8, 1, 1, 8)},     // consistent: unchanged
		{ds, p(1, 64, 8, 8), p(1, 8, 1, 8)},    // attention DP recorded as dp·ep
		{ds, p(1, 16, 4, 4), p(1, 4, 1, 4)},    // same on four GPUs
		{ds, p(4, 4, 1, 16), p(1, 4, 1, 4)},    // tp = dp = n with ep = n²: n GPUs, DP attention
		{ds, p(4, 1, 2, 2), p(4, 1, 2, 2)},     // tp = ep² but moe_tp × moe_ep = tp: consistent
		{ds, p(4, 1, 1, 2), p(2, 1, 1, 2)},     // tp = ep² otherwise: tp recorded as tp·ep
	}
	for _, c := range cases {
		if got := fixPar(c.m, c.in); got != c.want {
			t.Errorf("fixPar(%+v) = %+v, want %+v", c.in, got, c.want)
		}
	}
	if got := idPar("x_tp8_y", p(64, 1, 1, 8)); got.Tensor != 8 || got.MoeTensor != 1 {
		t.Errorf("idPar tp² = %+v", got)
	}
	if got := idPar("x_tp8_y", p(1, 64, 1, 8)); got.AttentionData != 8 {
		t.Errorf("idPar dp² = %+v", got)
	}
}

func TestHeldOutDeterministic(t *testing.T) {
	n := 0
	for i := 0; i < 400; i++ {
		r := Row{CurveID: strings.Repeat("c", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26))}
		if again := r; r.HeldOut() != again.HeldOut() {
			t.Fatal("not deterministic")
		}
		if r.HeldOut() {
			n++
		}
	}
	if n < 60 || n > 140 {
		t.Fatalf("held out %d of 400, want about a quarter", n)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("curve_id,concurrency,backend,model_path,system,mode,isl,osl,silicon_ttft_ms,silicon_tpot_ms\nx,1,vllm,m,h,agg,1,1,1,1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rs, err := Read(strings.NewReader(string(b)))
		if err == nil {
			for i := range rs {
				_ = rs[i].Group()
				_ = rs[i].HeldOut()
				_ = ConfigYAML(&rs[i], nil)
			}
		}
	})
}

// With a length spread the replay is the synthetic source with the client's uniform draw,
// 10 requests per slot whose lengths lie in [spread·L, L] (the simulator's own draw, so the
// surrogate replays the same requests); without it, constant lengths.
func TestTraceSpread(t *testing.T) {
	rs, _ := Read(strings.NewReader(sample))
	r := &rs[0]
	defer func(s float64) { Spread = s }(Spread)
	Spread = 0
	if cfg := ConfigYAML(r, nil); !strings.Contains(cfg, "type: synthetic, input_tokens: 1024, output_tokens: 128") {
		t.Fatalf("constant lengths use the synthetic source:\n%s", cfg)
	}
	Spread = 0.8
	cfg := ConfigYAML(r, nil)
	if !strings.Contains(cfg, "type: synthetic, input_tokens: 1024, output_tokens: 128, lengths: {distribution: uniform, min_ratio: 0.8}}") || !strings.Contains(cfg, "stop: {requests: 160}") {
		t.Fatalf("spread lengths use the synthetic source's draw, 10 requests per slot:\n%s", cfg)
	}
	if _, err := spec.LoadConfig([]byte(cfg), nil); err != nil {
		t.Fatalf("drawn config rejected: %v\n%s", err, cfg)
	}
	in, out := Lengths(r, 160)
	seenIn := map[int]bool{}
	for i := range in {
		if in[i] < 819 || in[i] > 1024 || out[i] < 102 || out[i] > 128 {
			t.Fatalf("request %d lengths %d/%d outside [0.8L, L]", i, in[i], out[i])
		}
		seenIn[in[i]] = true
	}
	if len(seenIn) < 50 {
		t.Fatalf("only %d distinct prompt lengths in 160 draws", len(seenIn))
	}
	in2, _ := Lengths(r, 160)
	if in2[17] != in[17] {
		t.Fatal("lengths are not reproducible")
	}
}

// Every row of the sample is simulated, TensorRT-LLM disaggregated and attention DP in a
// disaggregated role included (docs/semantics/simulation.md §7, §11.5); only a worker of more than
// MaxSimulatedDP attention-DP ranks is left to the surrogate.
func TestSimulated(t *testing.T) {
	rs, _ := Read(strings.NewReader(sample))
	c := perf.DefaultCalibration()
	for i := range rs {
		tm, err := Build(&rs[i], c)
		if err != nil || !tm.Simulated() {
			t.Fatalf("%s: simulated=%v err=%v", rs[i].ID, tm != nil && tm.Simulated(), err)
		}
	}
	dp, _ := Build(&rs[3], c)
	if dp.DecodePar.AttentionData != 8 || dp.DecodePar.Tensor != 1 {
		t.Fatalf("decode role of the attention-DP row: %+v", dp.DecodePar)
	}
	if !strings.Contains(ConfigYAML(&rs[3], dp), "tensor: 1, pipeline: 1, attention_data: 8") {
		t.Fatalf("the replay configuration drops the decode role's attention DP:\n%s", ConfigYAML(&rs[3], dp))
	}
	for _, tc := range []struct {
		tm   Timings
		want bool
	}{
		{Timings{PrefillPar: spec.Parallelism{AttentionData: 1}, DecodePar: spec.Parallelism{AttentionData: MaxSimulatedDP}}, true},
		{Timings{PrefillPar: spec.Parallelism{AttentionData: MaxSimulatedDP + 8}, DecodePar: spec.Parallelism{AttentionData: 1}}, false},
		{Timings{PrefillPar: spec.Parallelism{AttentionData: 1}, DecodePar: spec.Parallelism{AttentionData: MaxSimulatedDP + 8}}, false},
	} {
		if got := tc.tm.Simulated(); got != tc.want {
			t.Errorf("prefill dp %d, decode dp %d: simulated %v, want %v", tc.tm.PrefillPar.AttentionData, tc.tm.DecodePar.AttentionData, got, tc.want)
		}
	}
}

// A row whose recorded deployment cannot hold concurrency × (ISL + OSL) KV tokens ran
// ceil(concurrency / batch_size) ranks; one that can hold them, or records no batch size, is
// left alone.
func TestRanksFromBatch(t *testing.T) {
	r := Row{Concurrency: 416, BatchSize: 13, ISL: 8000, OSL: 7000}
	if got := r.ranksFromBatch(1_000_000); got != 32 {
		t.Errorf("ranks %d, want 32", got)
	}
	if got := r.ranksFromBatch(416 * 15000); got != 0 {
		t.Errorf("a deployment that holds the load: ranks %d, want 0", got)
	}
	r.BatchSize = 0
	if got := r.ranksFromBatch(1); got != 0 {
		t.Errorf("no batch size: ranks %d, want 0", got)
	}
}

func TestSlice(t *testing.T) {
	cases := []struct {
		r    Row
		want string
	}{
		{Row{Mode: "agg"}, "aggregated"},
		{Row{Mode: "disagg", Prefill: Role{Workers: 2}, Decode: Role{Workers: 1}}, "disaggregated, pools recorded"},
		{Row{Mode: "disagg"}, "disaggregated, pools not recorded"},
		{Row{Mode: "disagg", Decode: Role{Workers: 1}}, "disaggregated, pools not recorded"},
	}
	for _, c := range cases {
		if got := c.r.Slice(); got != c.want {
			t.Errorf("%+v: slice %q, want %q", c.r, got, c.want)
		}
	}
}

func TestMeanLengths(t *testing.T) {
	defer func(s float64) { Spread = s }(Spread)
	r := Row{ISL: 1024, OSL: 8192}
	Spread = 0
	if i, o := r.MeanLengths(); i != 1024 || o != 8192 {
		t.Errorf("constant lengths: %d/%d, want 1024/8192", i, o)
	}
	Spread = 0.8
	// The client draws uniform integers in [int(0.8·L), L]: [819, 1024] and [6553, 8192].
	if i, o := r.MeanLengths(); i != 921 || o != 7372 {
		t.Errorf("spread 0.8: %d/%d, want 921/7372", i, o)
	}
	in, out := Lengths(&r, 4000)
	var si, so int
	for k := range in {
		si += in[k]
		so += out[k]
	}
	if mi, mo := float64(si)/4000, float64(so)/4000; mi < 916 || mi > 927 || mo < 7330 || mo > 7415 {
		t.Errorf("mean of the drawn lengths %.1f/%.1f, want about 921.5/7372.5", mi, mo)
	}
}

func TestDecodeWorkers(t *testing.T) {
	r := &Row{Backend: "trtllm", Mode: "disagg", ISL: 1024, OSL: 1024, Concurrency: 64}
	cases := []struct {
		par  spec.Parallelism
		kv   int64
		want int
	}{
		{spec.Parallelism{Tensor: 8, AttentionData: 1, Pipeline: 1}, 1 << 20, 3},  // 24 GPUs of TP8 workers
		{spec.Parallelism{Tensor: 4, AttentionData: 1, Pipeline: 1}, 1 << 20, 6},  // 24 GPUs of TP4 workers
		{spec.Parallelism{Tensor: 1, AttentionData: 32, Pipeline: 1}, 1 << 20, 1}, // one worker is wider than the pool
		// A rank that holds 4 whole sequences (4 × 2048 tokens): 16 TP8 workers for 64 requests.
		{spec.Parallelism{Tensor: 8, AttentionData: 1, Pipeline: 1}, 4 * 2048, 16},
	}
	for _, c := range cases {
		tm := &Timings{DecodePar: c.par, KVTokens: c.kv}
		if got := tm.decodeWorkers(r); got != c.want {
			t.Errorf("%+v, %d KV tokens: %d decode workers, want %d", c.par, c.kv, got, c.want)
		}
	}
}
