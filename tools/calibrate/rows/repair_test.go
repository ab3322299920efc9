package rows

import (
	"strconv"
	"strings"
	"testing"

	"aisimulate/simcore/perf"
	"aisimulate/simcore/spec"
)

// Disaggregated TensorRT-LLM rows (values invented): DeepSeek-R1 FP4 on GB200, 8192/1024
// tokens, prefill TP4 EP4, decode TP16 (EP4 × TP4); without worker counts at concurrency 1000
// and 4096, with them at 4096.
const unrecordedWorkers = `curve_id,id,concurrency,backend,backend_version,model_path,system,precision,mode,isl,osl,gemm_quant_mode,moe_quant_mode,batch_size,tp_size,pp_size,attention_dp_size,moe_tp_size,moe_ep_size,prefill_batch_size,prefill_num_workers,prefill_tp_size,prefill_pp_size,prefill_attention_dp_size,prefill_moe_tp_size,prefill_moe_ep_size,decode_batch_size,decode_num_workers,decode_tp_size,decode_pp_size,decode_attention_dp_size,decode_moe_tp_size,decode_moe_ep_size,silicon_ttft_ms,silicon_tpot_ms,measured_on
eee,row_trt_c1000,1000,trtllm,1.1.0,deepseek-ai/DeepSeek-R1,gb200,fp4,disagg,8192,1024,nvfp4,nvfp4,,,,,,,,,4,1,1,1,4,,,16,1,1,4,4,4000,40,2026-03-01
fff,row_trt_c4096_rec,4096,trtllm,1.1.0,deepseek-ai/DeepSeek-R1,gb200,fp4,disagg,8192,1024,nvfp4,nvfp4,,,,,,,1,3,4,1,1,1,4,1,2,16,1,1,4,4,4000,40,2026-03-01
ggg,row_trt_c4096,4096,trtllm,1.1.0,deepseek-ai/DeepSeek-R1,gb200,fp4,disagg,8192,1024,nvfp4,nvfp4,,,,,,,,,4,1,1,1,4,,,16,1,1,4,4,4000,40,2026-03-01
`

// disaggRows reads unrecordedWorkers and builds its row i.
func disaggRows(t *testing.T, i int) ([]Row, *Timings) {
	t.Helper()
	rs, err := Read(strings.NewReader(unrecordedWorkers))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := Build(&rs[i], perf.DefaultCalibration())
	if err != nil {
		t.Fatal(err)
	}
	return rs, tm
}

// Unrecorded worker counts: the decode pool holds every in-flight request's TensorRT-LLM
// footprint (ISL + OSL per request), and the prefill pool is the fewest workers whose
// throughput × 0.9 keeps up with that pool's request rate. Recorded counts are kept.
func TestDisaggWorkerRepair(t *testing.T) {
	rs, tm := disaggRows(t, 0)
	r := &rs[0]
	perWorker := tm.KVTokens / int64(r.ISL+r.OSL)
	if want := (r.Concurrency + int(perWorker) - 1) / int(perWorker); tm.DecodeWorkers != want || want < 2 {
		t.Fatalf("decode workers %d, want ceil(%d / %d) = %d", tm.DecodeWorkers, r.Concurrency, perWorker, want)
	}
	// The prefill count is the smallest n with n · 0.9 · worker rate ≥ decode rate.
	b := (r.Concurrency + tm.DecodeWorkers - 1) / tm.DecodeWorkers
	ctx := r.ISL + r.OSL/2
	decodeRate := float64(tm.DecodeWorkers*b) / (float64(r.OSL) * tm.Decode.DecodeMs(b, int64(b)*int64(ctx), ctx, 0))
	workerRate := 1 / tm.Prefill.PrefillMs(1, r.ISL, 0)
	n := float64(tm.PrefillWorkers)
	if !(n*0.9*workerRate >= decodeRate && (n-1)*0.9*workerRate < decodeRate) || n < 2 {
		t.Fatalf("prefill workers %v: rate %.4g per worker, decode %.4g", n, workerRate, decodeRate)
	}
	y := ConfigYAML(r, tm)
	if _, err := spec.LoadConfig([]byte(y), nil); err != nil {
		t.Fatalf("config rejected: %v\n%s", err, y)
	}
	if !strings.Contains(y, "replicas: "+strconv.Itoa(tm.PrefillWorkers)+", tensor: 4") || !strings.Contains(y, "replicas: "+strconv.Itoa(tm.DecodeWorkers)+", tensor: 16") {
		t.Fatalf("config does not carry the worker counts:\n%s", y)
	}
	rec, err := Build(&rs[1], perf.DefaultCalibration())
	if err != nil || rec.PrefillWorkers != 3 || rec.DecodeWorkers != 2 {
		t.Fatalf("recorded counts %+v %v, want 3 and 2", rec, err)
	}
}

// From concurrency 1024 a row without worker counts runs data-parallel attention in both roles
// over the GPUs its tensor size records (the experts over the same GPUs), as every recorded
// deployment at that load does; a row that records its pools keeps its layout, and so does a
// row below that load (TestDisaggWorkerRepair).
func TestDisaggDataParallelAttentionRepair(t *testing.T) {
	rs, tm := disaggRows(t, 2)
	wantP := spec.Parallelism{Replicas: 1, Tensor: 1, Pipeline: 1, AttentionData: 4, MoeTensor: 1, MoeExpert: 4}
	wantD := spec.Parallelism{Replicas: 1, Tensor: 1, Pipeline: 1, AttentionData: 16, MoeTensor: 1, MoeExpert: 16}
	if tm.PrefillPar != wantP || tm.DecodePar != wantD {
		t.Fatalf("prefill %+v, decode %+v; want %+v and %+v", tm.PrefillPar, tm.DecodePar, wantP, wantD)
	}
	if y := ConfigYAML(&rs[2], tm); !strings.Contains(y, "tensor: 1, pipeline: 1, attention_data: 16, moe_tensor: 1, moe_expert: 16}") {
		t.Fatalf("config does not carry the decode layout:\n%s", y)
	}
	for _, i := range []int{0, 1} {
		tm, err := Build(&rs[i], perf.DefaultCalibration())
		if err != nil || tm.DecodePar.AttentionData != 1 || tm.DecodePar.Tensor != 16 || tm.PrefillPar.Tensor != 4 {
			t.Fatalf("%s: prefill %+v, decode %+v, %v; want the recorded TP layouts", rs[i].ID, tm.PrefillPar, tm.DecodePar, err)
		}
	}
	// A vLLM row keeps its layout: no recorded vLLM pool at that load runs attention DP.
	r := rs[2]
	r.Backend = spec.BackendVLLM
	if tm, err := Build(&r, perf.DefaultCalibration()); err == nil && tm.DecodePar.AttentionData != 1 {
		t.Fatalf("vLLM decode %+v", tm.DecodePar)
	}
}

// SGLang rows whose derived default fraction cannot hold the deployment are replayed with
// the smallest of 0.88, 0.92, 0.95 that does: DeepSeek-R1 FP8 on four GB200 fits at 0.88
// ((185.03 − 4.66) GiB · 0.88 − 157.5 GiB > 0), on four B200 only at 0.92.
func TestSGLangFractionRepair(t *testing.T) {
	row := func(system string) *Row {
		return &Row{ID: "x", Backend: "sglang", Model: "deepseek-ai/DeepSeek-R1", System: system, Mode: "agg", ISL: 1024, OSL: 1024,
			Concurrency: 4, GemmQuant: "fp8_block", MoEQuant: "fp8_block",
			Agg: Role{Workers: 1, Par: spec.Parallelism{Tensor: 4, MoeTensor: 4, MoeExpert: 1}}}
	}
	for _, c := range []struct {
		system string
		want   float64
	}{{"gb200", 0.88}, {"b200_sxm", 0.92}} {
		r := row(c.system)
		tm, err := Build(r, perf.DefaultCalibration())
		if err != nil || tm.AggFraction != c.want {
			t.Fatalf("%s: %+v %v; want fraction %v", c.system, tm, err, c.want)
		}
		if y := ConfigYAML(r, tm); !strings.Contains(y, "memory_fraction: "+strconv.FormatFloat(c.want, 'g', -1, 64)) {
			t.Fatalf("%s: config lacks the fraction:\n%s", c.system, y)
		}
	}
	// A row the derived default holds keeps it (no explicit fraction).
	r := row("gb300")
	if tm, err := Build(r, perf.DefaultCalibration()); err != nil || tm.AggFraction != 0 || strings.Contains(ConfigYAML(r, tm), "memory_fraction") {
		t.Fatalf("gb300: %+v %v", tm, err)
	}
}
