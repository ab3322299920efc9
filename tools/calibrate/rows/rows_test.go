package rows

import (
	"strings"
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// A synthetic two-row CSV in the measured-runs format (values invented for the test).
const sample = `curve_id,id,concurrency,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms,measured_on
aaa,row_agg_tp8_x,16,vllm,0.19.0,meta-llama/Llama-3.1-70B,h200_sxm,fp8,agg,1024,128,fp8,fp8,16,8,1,1,1,1,,,,,,,,,,,,,,,100,10,2026-01-01
bbb,row_dis,32,sglang,0.5.9,deepseek-ai/DeepSeek-R1,b200_sxm,fp8,disagg,2048,256,fp8,fp8_block,,,,,,,1,2,8,1,1,1,8,4,1,8,1,1,1,8,200,20,2026-01-01
`

func TestReadAndBuild(t *testing.T) {
	rs, err := Read(strings.NewReader(sample))
	if err != nil || len(rs) != 2 {
		t.Fatalf("read %d rows: %v", len(rs), err)
	}
	a, d := &rs[0], &rs[1]
	if a.Concurrency != 16 || a.Agg.Par.Tensor != 8 || a.TTFT != 100 || a.TPOT != 10 || a.Group() != "h200_sxm/vllm" {
		t.Fatalf("agg row %+v", a)
	}
	if d.Prefill.Workers != 2 || d.Prefill.Par.Tensor != 8 || d.Decode.Workers != 1 || d.Decode.Par.MoeExpert != 8 || !d.InScope() {
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
		if r.HeldOut() != r.HeldOut() {
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

func TestSimAggFixedTiming(t *testing.T) {
	m, _ := catalog.LookupModel("meta-llama/Meta-Llama-3.1-8B", nil)
	hw, _ := catalog.LookupHardware("h200_sxm")
	d, err := perf.NewDefaultWith(perf.DefaultCalibration(), m, hw, "vllm", spec.Parallelism{Tensor: 1}, perf.Quant{})
	if err != nil {
		t.Fatal(err)
	}
	// One slot, 10 sequential requests of 100/11 tokens: TTFT is exactly one prefill+decode
	// pass, TPOT exactly one decode pass (context grows by one per pass; lumped passes are
	// priced at their mean context).
	res := SimAgg(d, "vllm", 1, 100, 11, 1<<30, 8192)
	g := perf.GroupCoef{Prefill: 1, Decode: 1}
	wantTTFT := d.PrefillRawMs(1, 100, 0) + d.DecodeRawMs(1, 100, 100)
	if got := res.TTFT.Eval(g); !near(got, wantTTFT, 1e-9) {
		t.Fatalf("TTFT %.6f want %.6f", got, wantTTFT)
	}
	wantTPOT := d.DecodeRawMs(1, 105, 105)
	if got := res.TPOT.Eval(g); !near(got, wantTPOT, 1e-3) {
		t.Fatalf("TPOT %.6f want %.6f", got, wantTPOT)
	}
	// The overhead coefficients count passes: one prefill pass per request and OSL passes
	// with a decode part per request.
	if res.TTFT[1] != 1 || res.TTFT[3] != 1 || !near(res.TPOT[3], 1, 1e-12) {
		t.Fatalf("pass counts %+v %+v", res.TTFT, res.TPOT)
	}
	// More concurrency: TPOT rises, and SGLang's separate extend passes stall decodes.
	hi := SimAgg(d, "vllm", 64, 1000, 100, 1<<30, 8192)
	sg := SimAgg(d, "sglang", 64, 1000, 100, 1<<30, 8192)
	if !(hi.TPOT.Eval(g) > res.TPOT.Eval(g)) || !(sg.TPOT.Eval(g) > 0) {
		t.Fatal("concurrency should raise TPOT")
	}
	// A KV cache holding 8 requests bounds the requests in flight: TTFT queues.
	small := SimAgg(d, "vllm", 64, 1000, 100, 8*1050, 8192)
	if !(small.TTFT.Eval(g) > 2*hi.TTFT.Eval(g)) {
		t.Fatalf("capacity-bound TTFT %.1f vs %.1f", small.TTFT.Eval(g), hi.TTFT.Eval(g))
	}
}

func near(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*(1+b)
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
