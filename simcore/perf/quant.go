package perf

import (
	"strings"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"
)

// Quant holds the five quantisation modes (engine.gemm_quant_mode … comm_quant_mode); ""
// fields mean "the model's default".
type Quant struct {
	Gemm    string
	MoE     string
	KVCache string
	FMHA    string
	Comm    string
}

// Supported quantisation modes per field.
var (
	GemmQuantModes    = []string{"bf16", "fp8", "fp8_block", "fp8_static", "int8_wo", "int4_wo", "nvfp4", "mxfp4"}
	KVCacheQuantModes = []string{"bf16", "fp8", "int8"}
	FMHAQuantModes    = []string{"bf16", "fp8"}
	CommQuantModes    = []string{"half", "fp8", "int8"}
)

// QuantFromEngine copies the engine's quantisation fields.
func QuantFromEngine(e *spec.Engine) Quant {
	return Quant{Gemm: e.GemmQuantMode, MoE: e.MoeQuantMode, KVCache: e.KVCacheQuantMode, FMHA: e.FMHAQuantMode, Comm: e.CommQuantMode}
}

// Resolve fills unset modes from the model config and validates every mode.
func (q Quant) Resolve(m *catalog.Model) (Quant, error) {
	r := q
	if r.Gemm == "" {
		r.Gemm = m.GemmQuant
	}
	if r.MoE == "" {
		if m.MoEQuant != "" && q.Gemm == "" {
			r.MoE = m.MoEQuant
		} else {
			r.MoE = r.Gemm
		}
	}
	if r.KVCache == "" {
		r.KVCache = m.KVQuant
	}
	if r.FMHA == "" {
		r.FMHA = m.FMHAQuant
	}
	if r.Comm == "" {
		r.Comm = m.CommQuant
	}
	if r.Gemm == "" {
		r.Gemm = "bf16"
	}
	if r.MoE == "" {
		r.MoE = r.Gemm
	}
	if r.KVCache == "" {
		r.KVCache = "bf16"
	}
	if r.FMHA == "" {
		r.FMHA = "bf16"
	}
	if r.Comm == "" {
		r.Comm = "half"
	}
	checks := []struct {
		key, v string
		ok     []string
	}{
		{"gemm_quant_mode", r.Gemm, GemmQuantModes},
		{"moe_quant_mode", r.MoE, GemmQuantModes},
		{"kvcache_quant_mode", r.KVCache, KVCacheQuantModes},
		{"fmha_quant_mode", r.FMHA, FMHAQuantModes},
		{"comm_quant_mode", r.Comm, CommQuantModes},
	}
	for _, c := range checks {
		if !contains(c.ok, c.v) {
			return r, &Error{Key: c.key, Msg: "unsupported quantisation mode \"" + c.v + "\"; supported: " + strings.Join(c.ok, ", ")}
		}
	}
	return r, nil
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// weightBytes is the stored size of one weight element (scales included) of a GEMM mode.
func weightBytes(mode string) float64 {
	switch mode {
	case "fp8", "fp8_block", "fp8_static", "int8_wo":
		return 1
	case "int4_wo":
		return 0.5 + 1.0/64 // group-128 bf16 scales
	case "nvfp4", "mxfp4":
		return 0.5 + 1.0/16 // one fp8 scale per 16 elements
	}
	return 2
}

// computeFLOPS is the dense tensor-core rate a GEMM mode runs at on hw. Weight-only modes and
// formats the GPU has no tensor cores for (FP4 on Hopper, FP8 on Ampere) compute in bf16 after
// dequantisation (a stated approximation of Marlin-style kernels).
func computeFLOPS(mode string, hw *catalog.Hardware) float64 {
	switch mode {
	case "fp8", "fp8_block", "fp8_static":
		if hw.FP8 > 0 {
			return hw.FP8
		}
	case "nvfp4", "mxfp4":
		if hw.FP4 > 0 {
			return hw.FP4
		}
	}
	return hw.BF16
}

// kvBytes is the size of one KV-cache element.
func kvBytes(mode string) float64 {
	if mode == "fp8" || mode == "int8" {
		return 1
	}
	return 2
}

// commBytes is the size of one communicated activation element.
func commBytes(mode string) float64 {
	if mode == "fp8" || mode == "int8" {
		return 1
	}
	return 2
}
