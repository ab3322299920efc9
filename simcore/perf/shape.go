package perf

import (
	"strconv"
	"strings"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/internal/xmath"
	"aisimulate/simcore/spec"
)

// gemmOp is one weight GEMM of the forward pass on one GPU: y[M×N] = x[M×K]·W[K×N], repeated
// Count times per pass, stored in Mode.
type gemmOp struct {
	N, K  float64
	Count float64
	Mode  string
}

// shape is the per-GPU decomposition of a model under a parallelism.
type shape struct {
	m   *catalog.Model
	par spec.Parallelism
	q   Quant

	tp, pp, dp, moeTP, ep int

	// Layer counts over the whole model (a pass runs through every pipeline stage).
	attnLayers, slidingLayers, linearLayers     float64
	mixerLayers, ffnLayers, denseFFN, moeLayers float64

	headsGPU  float64 // query heads per GPU
	kvHeadGPU float64 // KV heads per GPU (GQA)
	dQK, dV   float64 // attention head dims (QK, V)

	// tokenGemms are the dense GEMMs whose M is the number of tokens in the pass.
	tokenGemms []gemmOp
	// lmHead is the vocabulary projection (M = rows: one per request in prefill).
	lmHead gemmOp

	// MoE per layer per GPU.
	expertsGPU float64 // routed experts resident on a GPU
	expertN    float64 // gate+up width of one expert slice (2·I/moeTP)
	expertK    float64 // hidden
	expertDown float64 // down-projection width I/moeTP
	logMiss    float64 // ln(1 − topk/E): the log chance a token's routing misses one expert

	// kvLayerBytes is the KV-cache size of one token in one attention layer on one GPU.
	kvLayerBytes float64
	// linearState is the recurrent state bytes of one sequence in one linear layer per GPU.
	linearState float64
}

// normalize applies defaults to a parallelism and checks it can be priced.
func normalize(m *catalog.Model, par spec.Parallelism, backend string) (spec.Parallelism, error) {
	p := par
	for _, v := range []*int{&p.Tensor, &p.Pipeline, &p.AttentionData, &p.MoeTensor, &p.MoeExpert, &p.Replicas} {
		if *v < 1 {
			*v = 1
		}
	}
	if m.Experts > 0 && p.MoeTensor*p.MoeExpert == 1 && p.Tensor*p.AttentionData > 1 {
		// Unset MoE parallelism: experts are sharded like the attention (MoE TP = TP·DP).
		p.MoeTensor = p.Tensor * p.AttentionData
	}
	if m.Experts > 0 && p.MoeTensor*p.MoeExpert != p.Tensor*p.AttentionData {
		return p, &Error{Worker: true, Key: "parallelism", Msg: "moe_tensor × moe_expert (" +
			strconv.Itoa(p.MoeTensor*p.MoeExpert) + ") must equal tensor × attention_data (" + strconv.Itoa(p.Tensor*p.AttentionData) + ")"}
	}
	if m.Experts > 0 && p.MoeExpert > m.Experts {
		return p, &Error{Worker: true, Key: "parallelism.moe_expert", Msg: "moe_expert " + strconv.Itoa(p.MoeExpert) +
			" exceeds the model's " + strconv.Itoa(m.Experts) + " experts"}
	}
	if p.Tensor > m.Heads {
		return p, &Error{Worker: true, Key: "parallelism.tensor", Msg: "tensor " + strconv.Itoa(p.Tensor) +
			" exceeds the model's " + strconv.Itoa(m.Heads) + " attention heads"}
	}
	if !padsHeads(backend) && (m.Heads%p.Tensor != 0 || m.KVHeads > 0 && m.KVHeads%p.Tensor != 0 && p.Tensor%m.KVHeads != 0) {
		var ok []string
		for t := 1; t <= m.Heads && t <= 64; t++ {
			if m.Heads%t == 0 && (m.KVHeads == 0 || m.KVHeads%t == 0 || t%m.KVHeads == 0) {
				ok = append(ok, strconv.Itoa(t))
			}
		}
		return p, &Error{Worker: true, Key: "parallelism.tensor", Msg: "tensor " + strconv.Itoa(p.Tensor) +
			" does not split the model's " + strconv.Itoa(m.Heads) + " attention heads / " + strconv.Itoa(m.KVHeads) +
			" KV heads evenly on " + backend + "; use one of " + strings.Join(ok, ", ") + " (TensorRT-LLM pads the heads instead)"}
	}
	if p.Pipeline > m.Layers {
		return p, &Error{Worker: true, Key: "parallelism.pipeline", Msg: "pipeline " + strconv.Itoa(p.Pipeline) +
			" exceeds the model's " + strconv.Itoa(m.Layers) + " layers"}
	}
	return p, nil
}

func newShape(m *catalog.Model, par spec.Parallelism, q Quant) *shape {
	s := &shape{m: m, par: par, q: q, tp: par.Tensor, pp: par.Pipeline, dp: par.AttentionData, moeTP: par.MoeTensor, ep: par.MoeExpert}
	tp := float64(s.tp)
	s.attnLayers = float64(m.AttnLayers)
	s.slidingLayers = float64(m.SlidingLayers)
	s.linearLayers = float64(m.LinearLayers)
	s.mixerLayers = s.attnLayers + s.slidingLayers + s.linearLayers
	s.ffnLayers = float64(m.Layers)
	if s.mixerLayers < float64(m.Layers) && m.LinearLayers > 0 && m.AttnLayers+m.LinearLayers+m.SlidingLayers+m.MoELayers <= m.Layers {
		// Nemotron-H: mixer and FFN blocks are separate layers.
		s.ffnLayers = float64(m.Layers) - s.mixerLayers
	}
	if s.mixerLayers > float64(m.Layers) || s.mixerLayers == 0 {
		s.mixerLayers = float64(m.Layers)
	}
	s.moeLayers = float64(m.MoELayers)
	if m.Experts == 0 {
		s.moeLayers = 0
	}
	s.denseFFN = s.ffnLayers - s.moeLayers
	if m.Intermediate == 0 || s.denseFFN < 0 {
		s.denseFFN = 0
	}
	h := float64(m.Hidden)
	// A tensor size that does not divide the heads pads them (padsHeads): every GPU computes
	// ceil(heads / tp) heads, the padded ones with zero weights (docs/timing.md).
	s.headsGPU = float64(ceilDiv(m.Heads, s.tp))
	s.kvHeadGPU = float64(ceilDiv(m.KVHeads, s.tp))
	attnLayers := s.attnLayers + s.slidingLayers
	if m.KVLoraRank > 0 {
		s.dQK = float64(m.QKNopeHeadDim + m.QKRopeHeadDim)
		s.dV = float64(m.VHeadDim)
		qIn := h
		if m.QLoraRank > 0 {
			qIn = float64(m.QLoraRank)
			s.tokenGemms = append(s.tokenGemms, gemmOp{float64(m.QLoraRank), h, attnLayers, q.Gemm})
		}
		s.tokenGemms = append(s.tokenGemms,
			gemmOp{s.headsGPU * s.dQK, qIn, attnLayers, q.Gemm},
			gemmOp{float64(m.KVLoraRank + m.QKRopeHeadDim), h, attnLayers, q.Gemm},
			gemmOp{s.headsGPU * float64(m.QKNopeHeadDim+m.VHeadDim), float64(m.KVLoraRank), attnLayers, q.Gemm},
			gemmOp{h, s.headsGPU * s.dV, attnLayers, q.Gemm})
		s.kvLayerBytes = float64(m.KVLoraRank+m.QKRopeHeadDim) * kvBytes(q.KVCache)
	} else {
		d := float64(m.HeadDim)
		s.dQK, s.dV = d, d
		s.tokenGemms = append(s.tokenGemms,
			gemmOp{float64(s.headsGPU*d) + float64(2*d*s.kvHeadGPU), h, attnLayers, q.Gemm},
			gemmOp{h, s.headsGPU * d, attnLayers, q.Gemm})
		s.kvLayerBytes = 2 * s.kvHeadGPU * d * kvBytes(q.KVCache)
	}
	if m.LinearLayers > 0 {
		w := float64(m.LinearWidth) / tp
		s.tokenGemms = append(s.tokenGemms, gemmOp{w, h, s.linearLayers, q.Gemm}, gemmOp{h, w / 3, s.linearLayers, q.Gemm})
		s.linearState = float64(m.LinearStateBytes) / tp
	}
	if s.denseFFN > 0 {
		i := float64(m.Intermediate) / tp
		s.tokenGemms = append(s.tokenGemms, gemmOp{2 * i, h, s.denseFFN, q.Gemm}, gemmOp{h, i, s.denseFFN, q.Gemm})
	}
	if s.moeLayers > 0 {
		s.tokenGemms = append(s.tokenGemms, gemmOp{float64(m.Experts), h, s.moeLayers, "bf16"}) // router
		if m.SharedIntermed > 0 {
			si := float64(m.SharedIntermed) / tp
			s.tokenGemms = append(s.tokenGemms, gemmOp{2 * si, h, s.moeLayers, q.MoE}, gemmOp{h, si, s.moeLayers, q.MoE})
		}
		s.expertsGPU = float64(m.Experts) / float64(s.ep)
		s.expertN = 2 * float64(m.MoEIntermediate) / float64(s.moeTP)
		s.expertDown = float64(m.MoEIntermediate) / float64(s.moeTP)
		s.expertK = h
		s.logMiss = xmath.Log1p(-float64(m.TopK) / float64(m.Experts))
	}
	s.lmHead = gemmOp{float64(m.Vocab) / tp, h, 1, "bf16"}
	return s
}

// weightBytesPerGPU is the resident weight size on one GPU (all layers / pp).
func (s *shape) weightBytesPerGPU() float64 {
	var w float64
	for _, g := range s.tokenGemms {
		w += float64(float64(g.N*g.K*g.Count) * weightBytes(g.Mode))
	}
	if s.moeLayers > 0 {
		per := float64(s.expertN+s.expertDown) * s.expertK * weightBytes(s.q.MoE)
		w += float64(float64(per*s.expertsGPU) * s.moeLayers)
	}
	emb := float64(s.m.Vocab) / float64(s.tp) * float64(s.m.Hidden) * 2
	w += emb
	if !s.m.TiedEmbeddings {
		w += emb
	}
	return w / float64(s.pp)
}

// padsHeads reports whether a backend accepts a tensor size that does not divide the attention
// (or KV) heads by padding them to a multiple of it: TensorRT-LLM does; vLLM and SGLang
// require the tensor size to divide the heads (docs/timing.md).
func padsHeads(backend string) bool { return backend == spec.BackendTRTLLM }

func ceilDiv(a, b int) int {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// familyKey names the activation-coefficient family of a model.
func familyKey(m *catalog.Model) string {
	if m.Experts > 0 || m.Family == catalog.FamilyMLA {
		return "moe"
	}
	if strings.HasPrefix(m.Arch, "Llama") || strings.HasPrefix(m.Arch, "Qwen") || strings.HasPrefix(m.Arch, "MiMo") {
		return "llama"
	}
	return "default"
}
