package perf

import (
	_ "embed"
	"encoding/json"
	"math"
	"strings"
	"sync"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/grow"
	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// OpCoef are the op-family efficiency curves (fitted on the H200 op tables, see
// docs/timing.md). They turn speed-of-light times into latencies on every GPU.
type OpCoef struct {
	GemmEff    float64 `json:"gemm_eff"`     // fraction of tensor FLOPS a large GEMM reaches
	GemmM0     float64 `json:"gemm_m0"`      // GEMM rows at which half of GemmEff is reached
	MemEff     float64 `json:"mem_eff"`      // fraction of HBM bandwidth when streaming weights
	LaunchUs   float64 `json:"launch_us"`    // floor of one kernel (µs)
	AttnEff    float64 `json:"attn_eff"`     // prefill attention: fraction of FLOPS at long sequences
	AttnS0     float64 `json:"attn_s0"`      // prefill sequence length at half of AttnEff
	DecAttnEff float64 `json:"dec_attn_eff"` // decode attention: fraction of HBM bandwidth
	DecAttnB0  float64 `json:"dec_attn_b0"`  // decode KV bytes per call at half of DecAttnEff
	// DecAttnEffFP8 replaces DecAttnEff for FP8/INT8 KV caches: the kernels dequantise what
	// they read, so half the bytes do not take half the time (0 = DecAttnEff).
	DecAttnEffFP8 float64 `json:"dec_attn_eff_fp8,omitempty"`
	MoEEff        float64 `json:"moe_eff"`   // grouped-GEMM efficiency relative to GemmEff
	ARLatUs       float64 `json:"ar_lat_us"` // all-reduce / all-to-all latency (µs)
	AREff         float64 `json:"ar_eff"`    // fraction of link bandwidth a collective reaches
	ElemUs        float64 `json:"elem_us"`   // norms/activations/rope per layer floor (µs)
}

// GroupCoef are the per-backend calibration coefficients fitted on measured serving runs
// (one set per backend, and per model family on a backend where enough rows exist; never per
// GPU, so hardware differences come only from the hardware facts through the op model):
// multiplicative factors on the op sum, constant host overheads per pass (ms), host costs per
// request, and the frontend latency that delays what the client sees (docs/semantics/simulation.md §5.3).
type GroupCoef struct {
	Prefill   float64 `json:"prefill"`
	Decode    float64 `json:"decode"`
	PrefillMs float64 `json:"prefill_ms"`
	DecodeMs  float64 `json:"decode_ms"`
	// PrefillSeqMs / DecodeSeqMs are host costs per request in the part (scheduling,
	// sampling, detokenisation), ms per request.
	PrefillSeqMs float64 `json:"prefill_seq_ms,omitempty"`
	DecodeSeqMs  float64 `json:"decode_seq_ms,omitempty"`
	// FrontendMs + FrontendKTokMs·L/1000 is the serving frontend's client-visible latency
	// of a request of input length L (tokenisation, streaming, HTTP): it occupies no GPU.
	FrontendMs     float64 `json:"frontend_ms,omitempty"`
	FrontendKTokMs float64 `json:"frontend_ktok_ms,omitempty"`
	// Rows is the number of measured rows the factors were fitted on (provenance only).
	Rows int `json:"rows,omitempty"`
}

// Frontend is the frontend latency of a request of input length isl (ms).
func (g GroupCoef) Frontend(isl int) float64 {
	return g.FrontendMs + float64(g.FrontendKTokMs*float64(isl))/1000
}

// FamilyCoef are per op-family factors (dense, moe, mla, mla-sparse, hybrid) fitted on
// measured serving runs across all hardware and backends; they correct what the family's op
// decomposition misses (e.g. fused MLA kernels, sparse-attention indexers, linear-attention
// scans) and multiply the op sum before the group factors.
type FamilyCoef struct {
	Prefill float64 `json:"prefill"`
	Decode  float64 `json:"decode"`
	Rows    int     `json:"rows,omitempty"`
}

// FamilyOf names the calibration family of a model.
func FamilyOf(m *catalog.Model) string {
	if m.Family == catalog.FamilyMLA && m.SparseTopK > 0 {
		return "mla-sparse"
	}
	return m.Family
}

// Family returns the family factors of a model family, else 1.
func (c *Calibration) Family(family string) FamilyCoef {
	if f, ok := c.Families[family]; ok {
		return f
	}
	return FamilyCoef{Prefill: 1, Decode: 1}
}

// GroupKey is the calibration key of a model family on a backend: "<backend>/<family>".
func GroupKey(backend, family string) string { return backend + "/" + family }

// Group returns the coefficients of a model family on a backend: its own group when fitted
// (calibrated = true), else the backend's, else factors of 1. The frontend latency is always
// the backend's (a property of the serving frontend, not of the model). The hardware never
// selects coefficients.
func (c *Calibration) Group(backend, family string) (g GroupCoef, calibrated bool) {
	b, calibrated := c.Backends[backend]
	if !calibrated {
		return GroupCoef{Prefill: 1, Decode: 1}, false
	}
	if g, ok := c.Groups[GroupKey(backend, family)]; ok {
		g.FrontendMs, g.FrontendKTokMs = b.FrontendMs, b.FrontendKTokMs
		return g, true
	}
	return b, true
}

// Calibration is the embedded calibration table (simcore/perf/calibration.json, written by
// tools/calibrate).
type Calibration struct {
	Note     string                `json:"note"`
	Ops      OpCoef                `json:"ops"`
	Families map[string]FamilyCoef `json:"families"`
	Backends map[string]GroupCoef  `json:"backends"` // per backend
	Groups   map[string]GroupCoef  `json:"groups"`   // "<backend>/<family>"
	// HandoffMs is the per-request disaggregated hand-off latency per backend, ms
	// (kv_transfer.handoff_ms: auto; HandoffMs).
	HandoffMs map[string]float64 `json:"handoff_ms"`
}

//go:embed calibration.json
var calibrationJSON []byte

// parsedCalibration parses calibration.json on first use, exactly once, also when goroutines
// of a native tool (tools/recommendbench) price passes for the first time together.
var parsedCalibration = sync.OnceValue(func() *Calibration {
	var c Calibration
	if err := json.Unmarshal(calibrationJSON, &c); err != nil {
		panic("perf: calibration.json: " + err.Error())
	}
	return &c
})

// DefaultCalibration returns the embedded calibration (parsed once; callers only read it).
func DefaultCalibration() *Calibration { return parsedCalibration() }

// Backends the default model prices: every backend.
var Backends = spec.Backends

// Default is `timing: {type: default}`: an op-level forward-pass model. Every operation's
// speed-of-light time on the hardware is turned into a latency by the OpCoef efficiency
// curves; the sum is scaled by the backend's (and model family's) GroupCoef and floored at
// 1 ms. A Default belongs to one run: it keeps the addends of the passes it prices
// (decodeTerms), so it is not for concurrent use; concurrent runs build their own
// (simcore's lowering builds one per role and run).
type Default struct {
	s   *shape
	hw  *catalog.Hardware
	ops OpCoef
	g   GroupCoef
	f   FamilyCoef
	// frontend replaces the calibrated frontend latency when frontendSet.
	frontend    float64
	frontendSet bool
	// Backend is the backend the model was built for.
	Backend string
	// Calibrated is false when no fitted coefficients exist for the backend.
	Calibrated bool
	// nextn is the MTP draft count decode steps are priced with (mtp.go, WithMTP).
	nextn int
	// c is a calibration profile's correction (correction.go); the zero value changes nothing.
	c Correction
	// terms holds decodeTerms' addends by token count, a row of len(tokenGemms) +
	// tokenTermCount + 1 each (the last the LM head's GEMM), valid where termKnown is set.
	terms     []float64
	termKnown []bool
	// scratch holds tokenTerms' addends of the last token count it priced, scratchTokens,
	// once scratchSet.
	scratch       []float64
	scratchTokens float64
	scratchSet    bool
	// lastDecode and lastPrefill are the last decode step DecodeMs priced and the last
	// prefill pass PrefillMs priced, their arguments and price, once set: the attention-DP
	// ranks of a worker price the same step one after another in every group round, and the
	// ranks of a chunked prefill the same chunk (docs/performance.md, "Calibration through
	// the CLI"). A price depends on its arguments, the shape, the hardware and the op
	// coefficients (fixed for a Default's life) and on the factors that SetGroup,
	// SetFamily, SetCorrection and WithMTP change: those forget both (forgetLast).
	lastDecode, lastPrefill lastPrice
	// decAttn holds decodeAttn's per-model factors once worked out.
	decAttn decodeAttnConsts
}

// NewDefault builds the default timing model of one worker role's deployment.
func NewDefault(dep *Deployment) (*Default, error) {
	return NewDefaultWith(DefaultCalibration(), dep)
}

// NewDefaultWith is NewDefault with an explicit calibration table (used by tools/calibrate).
func NewDefaultWith(c *Calibration, dep *Deployment) (*Default, error) {
	if !contains(Backends, dep.Backend) {
		return nil, &Error{Key: "backend", Msg: "unsupported backend \"" + dep.Backend + "\"; supported: " + strings.Join(Backends, ", ")}
	}
	fam := FamilyOf(dep.Model)
	d := &Default{s: dep.shape, hw: dep.Hardware, ops: c.Ops, Backend: dep.Backend, f: c.Family(fam)}
	d.g, d.Calibrated = c.Group(dep.Backend, fam)
	return d, nil
}

// Effective is the coefficients PrefillMs and DecodeMs apply, as one GroupCoef: the group's
// factors times the family's, the per-pass and per-request costs, and the frontend latency
// (a configured constant replaces the calibrated one). SimAgg's linear forms evaluate to
// milliseconds with it (Vec.Eval).
func (d *Default) Effective() GroupCoef {
	g := d.g
	g.Prefill, g.Decode = g.Prefill*d.f.Prefill, g.Decode*d.f.Decode
	if d.frontendSet {
		g.FrontendMs, g.FrontendKTokMs = d.frontend, 0
	}
	return g
}

// SetGroup replaces the calibration factors (used by the fitting tool).
func (d *Default) SetGroup(g GroupCoef) { d.g = g; d.forgetLast() }

// SetFamily replaces the family factors (used by the fitting tool).
func (d *Default) SetFamily(f FamilyCoef) { d.f = f; d.forgetLast() }

// PrefillMs prices batch requests each computing meanISL−meanPrefix new prompt tokens on
// top of meanPrefix cached ones.
func (d *Default) PrefillMs(batch, meanISL, meanPrefix int) float64 {
	if batch <= 0 || meanISL <= meanPrefix {
		return 0
	}
	args := [3]int64{int64(batch), int64(meanISL), int64(meanPrefix)}
	if d.lastPrefill.set && d.lastPrefill.args == args {
		return d.lastPrefill.ms
	}
	v := float64(float64(d.g.Prefill*d.f.Prefill*d.c.prefillScale())*d.PrefillRawMs(batch, meanISL, meanPrefix)) + d.g.PrefillMs + d.c.PrefillPassMs +
		float64(d.g.PrefillSeqMs*float64(batch))
	if v < 1 {
		v = 1
	}
	d.lastPrefill = lastPrice{args: args, ms: v, set: true}
	return v
}

// lastPrice is one remembered price of DecodeMs or PrefillMs: its integer arguments and
// its value (Default.lastDecode, Default.lastPrefill).
type lastPrice struct {
	args [3]int64
	ms   float64
	set  bool
}

// forgetLast drops the remembered prices when a factor they include changes.
func (d *Default) forgetLast() { d.lastDecode.set, d.lastPrefill.set = false, false }

// DecodeMs prices one decode step of batch sequences holding activeKV tokens in total.
func (d *Default) DecodeMs(batch int, activeKV int64, meanContext int, totalKV int64) float64 {
	if batch <= 0 {
		return 0
	}
	args := [3]int64{int64(batch), activeKV, int64(meanContext)}
	if d.lastDecode.set && d.lastDecode.args == args {
		return d.lastDecode.ms
	}
	v := float64(float64(d.g.Decode*d.f.Decode*d.c.decodeScale())*d.DecodeRawMs(batch, activeKV, meanContext)) + d.g.DecodeMs + d.c.DecodePassMs +
		float64(d.g.DecodeSeqMs*float64(batch))
	if v < 1 {
		v = 1
	}
	d.lastDecode = lastPrice{args: args, ms: v, set: true}
	return v
}

// DecodeRun prices a stretch of decode passes (Timing.DecodeRun).
func (d *Default) DecodeRun(batch int, kv, totalKV int64, start, horizon float64, max int, ends []float64) []float64 {
	return decodeRun(d, batch, kv, totalKV, start, horizon, max, ends)
}

// FrontendMs is the client-visible frontend latency of a request of input length isl
// (docs/semantics/simulation.md §5.3): the calibrated per-backend value, or the configured one.
func (d *Default) FrontendMs(isl int) float64 {
	if d.frontendSet {
		return d.frontend + d.c.FrontendMs
	}
	return d.g.Frontend(isl) + d.c.FrontendMs
}

// SetFrontend replaces the calibrated frontend latency by a configured constant
// (`frontend_ms: <number>`).
func (d *Default) SetFrontend(ms float64) { d.frontend, d.frontendSet = ms, true }

// PrefillRawMs is the uncalibrated op sum of a prefill pass.
func (d *Default) PrefillRawMs(batch, meanISL, meanPrefix int) float64 {
	b := float64(batch)
	sNew := float64(meanISL - meanPrefix)
	p := float64(meanPrefix)
	tokens := b * sNew
	return d.forward(d.tokenTerms(tokens), d.lmHead(b), d.prefillAttn(b, sNew, p))
}

// DecodeRawMs is the uncalibrated op sum of a decode step.
func (d *Default) DecodeRawMs(batch int, activeKV int64, meanContext int) float64 {
	b := float64(batch)
	ctx := float64(activeKV)
	if ctx <= 0 {
		ctx = b * float64(meanContext)
	}
	return d.decodeStepMs(b, ctx)
}

// forward sums every op of one pass: the attention, then terms (tokenTerms' addends of the
// pass's token count) with the LM head's GEMM lmHeadMs (lmHead).
func (d *Default) forward(terms []float64, lmHeadMs, attnMs float64) float64 {
	s := d.s
	n := len(s.tokenGemms)
	t := attnMs
	for _, x := range terms[:n] {
		t += x
	}
	t += lmHeadMs
	t += terms[n] // elementwise work
	if s.moeLayers > 0 {
		t += terms[n+1]
	}
	t += terms[n+2] // communication
	t += terms[n+3] // embedding lookup
	return t
}

// lmHead is the LM head's GEMM over rows sequences (one row per sequence of a prefill, per
// token of a decode step).
func (d *Default) lmHead(rows float64) float64 {
	s := d.s
	return d.gemm(rows, s.lmHead.N, s.lmHead.K, s.lmHead.Mode)
}

// tokenTermCount is the number of forward's addends besides the token GEMMs (tokenTerms).
const tokenTermCount = 4

// decodeMemoTokens bounds the decode token counts whose addends decodeTerms remembers (rows
// of about a hundred bytes, as many as the largest batch seen); a larger step is priced
// afresh.
const decodeMemoTokens = 1 << 12

// tokenTerms are forward's addends that depend on the pass's token count alone, in the
// order forward adds them: one per token GEMM, then the elementwise work, the routed
// experts (0 without), the communication and the embedding lookup. The slice is reused by
// the next call, which returns it unchanged for the same token count: a chunked prefill
// prices the same chunk pass after pass (docs/performance.md, "Calibration through the CLI").
func (d *Default) tokenTerms(tokens float64) []float64 {
	if d.scratchSet && math.Float64bits(tokens) == math.Float64bits(d.scratchTokens) {
		return d.scratch
	}
	k := len(d.s.tokenGemms) + tokenTermCount
	d.scratch = grow.Within(d.scratch, k, k)
	d.scratchTokens, d.scratchSet = tokens, true
	return d.computeTokenTerms(tokens, d.scratch)
}

// decodeTerms is tokenTerms and the LM head's GEMM for a decode step of tokens tokens (one
// LM head row per token), remembered per timing model: a run prices the same few batch
// sizes on every decode pass, so each is computed once and the very same values are added
// again (docs/performance.md, "Calibration through the CLI"). A remembered row holds the LM
// head's GEMM after tokenTerms' addends. Prefill passes' token counts vary too much to be
// worth the memory (the module runs with the collector off, docs/performance.md).
func (d *Default) decodeTerms(tokens float64) (terms []float64, lmHeadMs float64) {
	i := int(tokens)
	if float64(i) != tokens || i < 0 || i >= decodeMemoTokens {
		return d.tokenTerms(tokens), d.lmHead(tokens)
	}
	k := len(d.s.tokenGemms) + tokenTermCount + 1
	if i >= len(d.termKnown) {
		d.termKnown = grow.Within(d.termKnown, i+1, decodeMemoTokens)
		d.terms = grow.Within(d.terms, len(d.termKnown)*k, decodeMemoTokens*k)
	}
	row := d.terms[i*k : (i+1)*k]
	if !d.termKnown[i] {
		d.computeTokenTerms(tokens, row[:k-1])
		row[k-1] = d.lmHead(tokens)
		d.termKnown[i] = true
	}
	return row[:k-1], row[k-1]
}

// computeTokenTerms writes tokenTerms' addends into row and returns it.
func (d *Default) computeTokenTerms(tokens float64, row []float64) []float64 {
	s, o, hw := d.s, d.ops, d.hw
	n := len(s.tokenGemms)
	for j, g := range s.tokenGemms {
		row[j] = float64(g.Count * d.gemm(tokens, g.N, g.K, g.Mode))
	}
	// Norms, activations, rope, residual adds: memory-bound elementwise work per layer.
	h := float64(s.m.Hidden)
	elemBytes := float64(tokens * 12 * h)
	layers := s.mixerLayers
	if s.ffnLayers > layers {
		layers = s.ffnLayers
	}
	row[n] = float64(layers * (float64(float64(elemBytes/(hw.MemBW*o.MemEff))*1000) + o.ElemUs/1000))
	row[n+1] = 0
	if s.moeLayers > 0 {
		row[n+1] = float64(s.moeLayers * d.moe(tokens))
	}
	row[n+2] = d.comm(tokens)
	// Embedding lookup.
	row[n+3] = float64(float64(tokens*h*2)/(hw.MemBW*o.MemEff)*1000) + o.LaunchUs/1000
	return row
}

// gemm is one GEMM: max(compute at an M-dependent efficiency, weight+activation streaming).
func (d *Default) gemm(m, n, k float64, mode string) float64 {
	if m <= 0 {
		return 0
	}
	o := d.ops
	f := computeFLOPS(mode, d.hw)
	comp := float64(2*n*k) * (m + o.GemmM0) / (f * o.GemmEff) * 1000
	bytes := float64(weightBytes(mode)*n*k) + float64(2*m*(n+k))
	mem := bytes / (d.hw.MemBW * o.MemEff) * 1000
	if mem > comp {
		comp = mem
	}
	return comp + o.LaunchUs/1000
}

// moe is one routed-expert layer on one GPU: tokens from every attention-DP rank are
// dispatched to topk experts; the distinct experts touched stream their weights.
func (d *Default) moe(tokens float64) float64 {
	s, o := d.s, d.ops
	m := s.m
	tAll := tokens * float64(s.dp)
	if tAll <= 0 {
		return 0
	}
	k := float64(m.TopK)
	// Expected distinct experts per GPU under uniform routing: E/ep·(1 − (1 − k/E)^T).
	touched := s.expertsGPU * (1 - xmath.Exp(tAll*s.logMiss))
	// Grouped GEMM: one GEMM per touched expert, each paying the GEMM curve's M0 rows of
	// under-utilisation on top of its own rows; experts no token reaches run nothing. So
	// the compute is that of rows + touched·M0 rows through the expert's weights.
	rows := tAll * k / float64(s.ep) // token-expert rows routed to this GPU
	f := computeFLOPS(s.q.MoE, d.hw)
	flops := float64(float64(2*(rows+float64(touched*o.GemmM0)))*(s.expertN+s.expertDown)) * s.expertK
	comp := flops / (f * o.GemmEff * o.MoEEff) * 1000
	bytes := float64(float64(float64(touched*(s.expertN+s.expertDown))*s.expertK)*weightBytes(s.q.MoE)) +
		float64(tAll*k/float64(s.ep)*s.expertK*4)
	mem := bytes / (d.hw.MemBW * o.MemEff) * 1000
	if mem > comp {
		comp = mem
	}
	return comp + float64(3*o.LaunchUs)/1000
}

// prefillAttn is the attention core of a prefill pass (all attention layers).
func (d *Default) prefillAttn(b, sNew, p float64) float64 {
	s, o, hw := d.s, d.ops, d.hw
	f := hw.BF16
	if s.q.FMHA == "fp8" && hw.FP8 > 0 {
		f = hw.FP8
	}
	full := sNew + p
	eff := o.AttnEff * full / (full + o.AttnS0)
	per := func(ctxPairs float64) float64 {
		flops := float64(2*b*s.headsGPU*(s.dQK+s.dV)) * ctxPairs
		comp := flops / (f * eff) * 1000
		kv := float64(b*full*s.kvLayerBytes) + float64(4*b*sNew*s.headsGPU*s.dQK)
		mem := kv / (hw.MemBW * o.MemEff) * 1000
		if mem > comp {
			comp = mem
		}
		return comp + o.LaunchUs/1000
	}
	// Causal pairs: ((s+p)² − p²)/2.
	pairs := float64(full*full-p*p) / 2
	if s.m.SparseTopK > 0 && full > float64(s.m.SparseTopK) {
		// DSA: each query attends to at most index_topk past tokens (+ the indexer's
		// lightweight full pass, folded in as 1/8 of a dense pass).
		sparse := sNew * float64(s.m.SparseTopK)
		pairs = sparse + pairs/8
	}
	t := float64(s.attnLayers * per(pairs))
	if s.slidingLayers > 0 {
		w := float64(s.m.SlidingWindow)
		win := full
		if win > w {
			win = w
		}
		t += float64(s.slidingLayers * per(sNew*win))
	}
	if s.linearLayers > 0 {
		// Chunked linear attention / SSM scan: state-sized work per token (approximation).
		flops := float64(b*sNew*s.linearState) * 2
		t += float64(s.linearLayers * (float64(flops/(f*o.AttnEff)*1000) + float64(2*o.LaunchUs)/1000))
	}
	return t
}

// decodeAttn is the attention core of a decode step: streaming the KV cache of ctx tokens.
func (d *Default) decodeAttn(b, ctx float64) float64 {
	s, o, hw := d.s, d.ops, d.hw
	if !d.decAttn.set {
		d.decAttn = newDecodeAttnConsts(s, o, hw)
	}
	k := &d.decAttn
	per := func(c float64) float64 {
		bytes := float64(c*s.kvLayerBytes) + float64(4*b*s.headsGPU*s.dQK)
		eff := k.eff * bytes / (bytes + o.DecAttnB0)
		mem := bytes / (hw.MemBW * eff) * 1000
		flops := float64(2*c*s.headsGPU) * k.width
		comp := flops / k.flops * 1000
		if comp > mem {
			mem = comp
		}
		return mem + o.LaunchUs/1000
	}
	full := ctx
	if s.m.SparseTopK > 0 && ctx > b*float64(s.m.SparseTopK) {
		full = float64(b*float64(s.m.SparseTopK)) + ctx/8
	}
	t := float64(s.attnLayers * per(full))
	if s.slidingLayers > 0 {
		w := b * float64(s.m.SlidingWindow)
		c := ctx
		if c > w {
			c = w
		}
		t += float64(s.slidingLayers * per(c))
	}
	if s.linearLayers > 0 {
		bytes := float64(2 * b * s.linearState)
		t += float64(s.linearLayers * (float64(bytes/(hw.MemBW*o.MemEff)*1000) + float64(2*o.LaunchUs)/1000))
	}
	return t
}

// decodeAttnConsts are decodeAttn's factors that depend on the shape, the hardware and the
// op coefficients alone, worked out once per timing model instead of with string
// comparisons on every decode step (docs/performance.md, "Calibration through the CLI").
type decodeAttnConsts struct {
	// eff is the decode attention's bandwidth fraction at large KV reads: DecAttnEffFP8 for
	// a one-byte KV cache when calibrated, else DecAttnEff.
	eff float64
	// width is the FLOPs per context token and head over 2: absorbed MLA scores against the
	// latent (rank + rope) and accumulates the latent values, 2·rank + rope; other
	// attention dQK + dV.
	width float64
	// flops is the attention's reachable compute: the FP8 tensor rate for an FP8 KV cache on
	// hardware that has one, else BF16, times GemmEff.
	flops float64
	set   bool
}

// newDecodeAttnConsts works out decodeAttnConsts for shape s on hw with op coefficients o.
func newDecodeAttnConsts(s *shape, o OpCoef, hw *catalog.Hardware) decodeAttnConsts {
	c := decodeAttnConsts{eff: o.DecAttnEff, width: s.dQK + s.dV, flops: hw.BF16, set: true}
	if s.q.KVCache == "fp8" && hw.FP8 > 0 {
		c.flops = hw.FP8
	}
	c.flops *= o.GemmEff
	if kvBytes(s.q.KVCache) < 2 && o.DecAttnEffFP8 > 0 {
		c.eff = o.DecAttnEffFP8
	}
	if s.m.KVLoraRank > 0 {
		c.width = float64(2*s.m.KVLoraRank + s.m.QKRopeHeadDim)
	}
	return c
}

// comm is the communication of one pass: TP all-reduces after every mixer and FFN block,
// expert-parallel all-to-all dispatch/combine per MoE layer, and pipeline P2P hand-offs.
func (d *Default) comm(tokens float64) float64 {
	s, o, hw := d.s, d.ops, d.hw
	h := float64(s.m.Hidden)
	cb := commBytes(s.q.Comm)
	lat := o.ARLatUs / 1000
	var t float64
	link := func(n int) float64 {
		if n <= hw.GPUsPerNode {
			return hw.IntraNodeBW
		}
		if n <= hw.NVLinkDomain() {
			return hw.InterNodeBW
		}
		if hw.InterRackBW > 0 {
			return hw.InterRackBW
		}
		return hw.InterNodeBW
	}
	if s.tp > 1 {
		n := float64(s.tp)
		bytes := tokens * h * cb
		per := lat + float64(float64(2*(n-1)/n*bytes)/(link(s.tp)*o.AREff)*1000)
		if g := hw.GPUsPerNode; s.tp > hw.NVLinkDomain() && g > 1 {
			// Beyond one NVLink domain the all-reduce is hierarchical (NCCL over nodes with a
			// NIC per GPU): reduce-scatter and all-gather inside each node over NVLink, and an
			// all-reduce of each GPU's 1/g shard across the m nodes through its own NIC — not a
			// ring whose every hop runs at the inter-node rate.
			gf := float64(g)
			m := float64((s.tp + g - 1) / g)
			intra := float64(2*(gf-1)/gf*bytes) / hw.IntraNodeBW
			inter := float64(2*(m-1)/m*(bytes/gf)) / link(s.tp)
			per = lat + float64((intra+inter)/o.AREff*1000)
		}
		blocks := s.mixerLayers + s.ffnLayers
		t += float64(blocks * per)
	}
	if s.moeLayers > 0 && s.ep > 1 && s.dp > 1 {
		// Expert-parallel dispatch/combine moves tokens between ranks only when the ranks
		// hold different tokens (attention data parallelism). With tensor-parallel attention
		// every rank already holds every token: each computes its own experts for them and
		// the FFN block's all-reduce above combines the results (EP inside TP).
		n := float64(s.ep)
		bytes := tokens * float64(s.m.TopK) * h * cb
		per := 2 * (lat + float64(float64((n-1)/n*bytes)/(link(s.tp*s.dp)*o.AREff)*1000))
		t += float64(s.moeLayers * per)
	}
	if s.pp > 1 {
		bytes := tokens * h * 2
		bw := link(s.tp * s.pp)
		t += float64(float64(s.pp-1) * (float64(bytes/bw*1000) + float64(hw.P2PLatency*1000)))
	}
	return t
}
