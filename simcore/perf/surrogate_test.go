package perf

import (
	"testing"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// llama8BOnH200 is the surrogate tests' engine: Llama-3.1-8B, TP1 on H200, vLLM, the committed
// calibration.
func llama8BOnH200(t *testing.T) *Default {
	t.Helper()
	m, _ := catalog.LookupModel("meta-llama/Meta-Llama-3.1-8B", nil)
	hw, _ := catalog.LookupHardware("h200_sxm")
	d, err := defaultFor(DefaultCalibration(), m, hw, "vllm", spec.Parallelism{Tensor: 1}, Quant{})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSimAggFixedTiming(t *testing.T) {
	d := llama8BOnH200(t)
	// One slot, 10 sequential requests of 100/11 tokens: TTFT is exactly one prefill+decode
	// pass, TPOT exactly one decode pass (context grows by one per pass; lumped passes are
	// priced at their mean context).
	res := SimAgg(d, "vllm", 1, 100, 11, 1<<30, 8192)
	g := GroupCoef{Prefill: 1, Decode: 1}
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
	// TensorRT-LLM admits a request only with room for isl + osl (docs/semantics/simulation.md §7): the
	// same cache holds 7 of its requests, and 8 only with 8 × 1100 tokens, where it replays
	// exactly like vLLM's 8.
	trtSmall := SimAgg(d, "trtllm", 64, 1000, 100, 8*1050, 8192)
	trtEight := SimAgg(d, "trtllm", 64, 1000, 100, 8*1100, 8192)
	if trtEight != small {
		t.Fatalf("TensorRT-LLM with room for 8: %+v, vLLM with 8: %+v", trtEight, small)
	}
	if !(trtSmall.TTFT.Eval(g) > small.TTFT.Eval(g)) {
		t.Fatalf("TensorRT-LLM reserving whole sequences: TTFT %.1f, not above %.1f", trtSmall.TTFT.Eval(g), small.TTFT.Eval(g))
	}
}

// llama8bH200 is the default TensorRT-LLM timing model of Llama 3.1 8B on one H200 and a
// role of one such worker, the deployment of the disaggregated surrogate's tests.
func llama8bH200(t *testing.T) (*Default, SurrogateRole) {
	t.Helper()
	m, _ := catalog.LookupModel("meta-llama/Meta-Llama-3.1-8B", nil)
	hw, _ := catalog.LookupHardware("h200_sxm")
	par := spec.Parallelism{Tensor: 1}
	d, err := defaultFor(DefaultCalibration(), m, hw, "trtllm", par, Quant{})
	if err != nil {
		t.Fatal(err)
	}
	return d, SurrogateRole{Workers: 1, Par: par}
}

// SimDisagg adds the hand-off latency to TTFT one for one, and a source-first decode rank
// whose KV cache holds fewer sequences than its share of the load runs what fits while the
// rest wait: TensorRT-LLM reserves whole sequences (isl + osl), so with room for 8 of its
// 16 sequences each decode lasts twice the 8-sequence TPOT; vLLM counts mean footprints
// (isl + osl/2); SGLang (destination-first, reserved before the hand-off) is not bounded.
func TestSimDisagg(t *testing.T) {
	d, role := llama8bH200(t)
	const isl, osl = 1000, 200
	ttft0, tpot0 := SimDisagg(d, d, "trtllm", 16, isl, osl, role, role, 1<<30, 0)
	ttft1, tpot1 := SimDisagg(d, d, "trtllm", 16, isl, osl, role, role, 1<<30, 125)
	if !near(ttft1-ttft0, 125, 1e-9) || tpot1 != tpot0 {
		t.Fatalf("hand-off 125 ms: TTFT %.3f → %.3f, TPOT %.4f → %.4f", ttft0, ttft1, tpot0, tpot1)
	}
	ctx := isl + osl/2
	if want := d.DecodeMs(16, 16*int64(ctx), ctx, 0); !near(tpot0, want, 1e-12) {
		t.Fatalf("unbounded TPOT %.4f, want the 16-sequence pass %.4f", tpot0, want)
	}
	_, tpotFull := SimDisagg(d, d, "trtllm", 16, isl, osl, role, role, 8*(isl+osl), 0)
	if want := 2 * d.DecodeMs(8, 8*int64(ctx), ctx, 0); !near(tpotFull, want, 1e-12) {
		t.Fatalf("TensorRT-LLM with room for 8 of 16: TPOT %.4f, want %.4f", tpotFull, want)
	}
	// Room for 16 mean footprints holds all of vLLM's 16 sequences, 14 of TensorRT-LLM's.
	mean := int64(16 * ctx)
	if _, v := SimDisagg(d, d, "vllm", 16, isl, osl, role, role, mean, 0); v != tpot0 {
		t.Fatalf("vLLM with room for 16 mean footprints: TPOT %.4f, want %.4f", v, tpot0)
	}
	if _, v := SimDisagg(d, d, "trtllm", 16, isl, osl, role, role, mean, 0); !near(v, 16.0/14*d.DecodeMs(14, 14*int64(ctx), ctx, 0), 1e-12) {
		t.Fatalf("TensorRT-LLM with room for 14 whole sequences: TPOT %.4f", v)
	}
	if _, s := SimDisagg(d, d, "sglang", 16, isl, osl, role, role, 8*(isl+osl), 0); s != tpot0 {
		t.Fatalf("SGLang decode is not bounded by the surrogate: TPOT %.4f, want %.4f", s, tpot0)
	}
}

func near(a, b, rel float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= rel*(1+b)
}

// SimDisaggLoop's closed loop spends the latency outside the ranks too: a saturated prefill
// rank's queue gives back all of it (the rank's throughput fixes the cycle, so the steady
// prefill time, 0.9 of the TTFT, falls by as much as the latency grows); below saturation
// the latency only thins the prompt stream, so the queue gives back part of it.
func TestSimDisaggLoop(t *testing.T) {
	d, role := llama8bH200(t)
	const isl, osl, outside = 4000, 20, 200
	sat0, tpot0 := SimDisaggLoop(d, d, "trtllm", 512, isl, osl, role, role, 1<<30, 0, 0)
	sat1, tpot1 := SimDisaggLoop(d, d, "trtllm", 512, isl, osl, role, role, 1<<30, 0, outside)
	if !near(sat0-sat1, 0.9*outside, 1e-6) || tpot1 != tpot0 {
		t.Errorf("saturated prefill, %d ms outside: TTFT %.3f → %.3f (want %.3f less), TPOT %.4f → %.4f", outside, sat0, sat1, 0.9*outside, tpot0, tpot1)
	}
	lone0, _ := SimDisaggLoop(d, d, "trtllm", 1, isl, osl, role, role, 1<<30, 0, 0)
	lone1, _ := SimDisaggLoop(d, d, "trtllm", 1, isl, osl, role, role, 1<<30, 0, outside)
	if !(lone1 < lone0 && lone0-lone1 < 0.9*outside/2) {
		t.Errorf("one client, %d ms outside: TTFT %.3f → %.3f, want a little less (under half the saturated rank's %.0f)", outside, lone0, lone1, 0.9*outside)
	}
}

// closedLoopPrefill: a lone client waits for nothing but its own pass; a light load queues as
// M/D/1 at the loop's own utilisation; a saturated rank holds each cycle to cp/mu, so the
// prefill part is cp/mu − decode, and the wait grows with the clients and never exceeds
// what the rank's rate allows.
func TestClosedLoopPrefill(t *testing.T) {
	const t1, decode = 100.0, 10000.0
	mu := 8 / 400.0 // 8 prompts per 400 ms pass
	if got := closedLoopPrefill(1, t1, mu, decode); !(got > t1 && got < 1.01*t1) {
		t.Fatalf("one client: %.3f ms, want just over the lone pass %.0f", got, t1)
	}
	// 40 clients: X = 40/(T + 10000) ≈ 0.0039/ms, ρ = X/mu ≈ 0.196, M/D/1 wait ≈ t1·(1 + ρ/(2(1−ρ))).
	got := closedLoopPrefill(40, t1, mu, decode)
	rho := 40 / (got + decode) / mu
	if want := t1 * (1 + rho/(2*(1-rho))); !near(got, want, 1e-9) || rho < 0.19 || rho > 0.2 {
		t.Fatalf("40 clients: %.4f ms at ρ %.4f, want the M/D/1 fixed point %.4f", got, rho, want)
	}
	// 1000 clients saturate the rank (mu·decode = 200 < 1000): cycle cp/mu = 50 s.
	if got, want := closedLoopPrefill(1000, t1, mu, decode), 1000/mu-decode; !near(got, want, 1e-9) {
		t.Fatalf("saturated: %.3f ms, want cp/mu − decode = %.3f", got, want)
	}
	prev := 0.0
	for cp := 1.0; cp <= 4096; cp *= 2 {
		got := closedLoopPrefill(cp, t1, mu, decode)
		if got < prev || got > max(cp/mu-decode, 10.5*t1)+1e-6 {
			t.Fatalf("%v clients: %.3f ms after %.3f", cp, got, prev)
		}
		prev = got
	}
}

// SimDisaggLoop's decode ranks run the loop's own decode population. A light load keeps
// every client decoding, as SimDisagg does. A saturated prefill rank holds each client's
// cycle to cp/mu (closedLoopPrefill), so by Little's law only conc·(osl − 1)·TPOT·mu/cp
// (mu·(osl − 1)·TPOT with one prefill rank) requests decode at once: the TPOT is that batch's pass, well below SimDisagg's of every
// client, and the decode population is the largest batch the loop keeps decoding, to the
// nearest sequence.
func TestSimDisaggLoopDecodePopulation(t *testing.T) {
	d, role := llama8bH200(t)
	ttft, tpot := SimDisaggLoop(d, d, "trtllm", 4, 1000, 200, role, role, 1<<30, 0, 0)
	if a, b := SimDisagg(d, d, "trtllm", 4, 1000, 200, role, role, 1<<30, 0); a != ttft || b != tpot {
		t.Errorf("four clients: the loop gives %.3f/%.4f, SimDisagg %.3f/%.4f; want every client decoding", ttft, tpot, a, b)
	}
	const conc, isl, osl = 512, 4000, 20
	_, all := SimDisagg(d, d, "trtllm", conc, isl, osl, role, role, 1<<30, 0)
	_, tpot = SimDisaggLoop(d, d, "trtllm", conc, isl, osl, role, role, 1<<30, 0, 0)
	ctx := isl + osl/2
	b := 1
	for b < conc && d.DecodeMs(b, int64(b)*int64(ctx), ctx, 0) != tpot {
		b++
	}
	k := 8192 / isl
	mu := float64(k) / d.PrefillMs(k, isl, 0)
	// One prefill and one decode rank: the loop finishes mu requests per ms.
	held := func(b int) float64 { return float64(osl-1) * d.DecodeMs(b, int64(b)*int64(ctx), ctx, 0) * mu }
	if b == conc || !(tpot < all/2) || held(b)+0.5 < float64(b) || held(b+1)+0.5 >= float64(b+1) {
		t.Errorf("saturated prefill: TPOT %.4f is the %d-sequence pass (held %.2f, %d held %.2f), SimDisagg's %.4f", tpot, b, held(b), b+1, held(b+1), all)
	}
}

// SGLang reserves a request's decode blocks before its hand-off, so a decode rank holds at
// most MaxInFlight requests: with room for 8 of 64 clients the loop decodes 8 (their pass
// is the TPOT, none of them waits after its first token) and the others wait before their
// first token. The rank then finishes 8 requests per decode time D, so a cycle lasts 64/8·D
// and the time before the first token is all of it but D: the steady 0.9 of the TTFT is
// (64/8 − 1)·D.
func TestSimDisaggLoopSGLangDecodeCapacity(t *testing.T) {
	d, role := llama8bH200(t)
	const conc, isl, osl = 64, 1000, 200
	ctx := isl + osl/2
	ttft, tpot := SimDisaggLoop(d, d, "sglang", conc, isl, osl, role, role, 8*int64(ctx), 0, 0)
	if want := d.DecodeMs(8, 8*int64(ctx), ctx, 0); tpot != want {
		t.Fatalf("room for 8: TPOT %.4f, want the 8-sequence pass %.4f", tpot, want)
	}
	dec := float64(osl-1) * tpot
	if steady := 0.9 * (conc/8 - 1) * dec; !(ttft > steady && ttft < steady+0.1*conc*d.PrefillMs(1, isl, 0)+d.FrontendMs(isl)) {
		t.Errorf("room for 8 of 64: TTFT %.1f, want the capacity's wait %.1f and at most the first wave's share more", ttft, steady)
	}
}

// A prompt longer than the pass budget is prefilled in chunks, each a pass on top of the
// chunks before it: SGLang with 8 attention-DP ranks gives each 1024 tokens a pass, so a lone
// 8192-token prompt takes eight passes, more than one 8192-token pass costs (a long decode
// keeps the lone client's queueing under 1 %).
func TestSimDisaggLoopChunkedPrefill(t *testing.T) {
	d, role := llama8bH200(t)
	const isl, osl = 8192, 4000
	pre := SurrogateRole{Workers: 1, Par: spec.Parallelism{Tensor: 1, AttentionData: 8}}
	var chunks float64
	for done := 0; done < isl; done += 1024 {
		chunks += d.PrefillMs(1, done+1024, done)
	}
	ttft, _ := SimDisaggLoop(d, d, "sglang", 1, isl, osl, pre, role, 1<<30, 0, 0)
	if got := ttft - d.FrontendMs(isl); !near(got, chunks, 0.01) || !(chunks > d.PrefillMs(1, isl, 0)) {
		t.Errorf("one 8192-token prompt in 1024-token chunks: TTFT less frontend %.2f, want the eight passes %.2f (one pass %.2f)", got, chunks, d.PrefillMs(1, isl, 0))
	}
}
