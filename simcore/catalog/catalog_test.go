package catalog

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

func TestKVBytesPerTokenExact(t *testing.T) {
	m, err := LookupModel("meta-llama/Meta-Llama-3.1-8B-Instruct", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.KVBytesPerToken(1, 1, ""); got != 131072 {
		t.Fatalf("Llama-3.1-8B TP1 = %d, want 131072", got)
	}
	if got := m.KVBytesPerToken(2, 1, ""); got != 65536 {
		t.Fatalf("TP2 = %d, want 65536", got)
	}
	if got := m.KVBytesPerToken(16, 1, ""); got != 16384 { // ceil(8/16) = 1 KV head per rank
		t.Fatalf("TP16 = %d, want 16384", got)
	}
	if got := m.KVBytesPerToken(1, 3, "fp8"); got != 2*11*8*128 {
		t.Fatalf("PP3 fp8 = %d", got)
	}
	ds, err := LookupModel("deepseek-ai/DeepSeek-R1", nil)
	if err != nil {
		t.Fatal(err)
	}
	// MLA: 61 layers × (512 + 64) × 2 bytes, not sharded by TP.
	if got := ds.KVBytesPerToken(8, 1, ""); got != 61*576*2 {
		t.Fatalf("DeepSeek-R1 = %d, want %d", got, 61*576*2)
	}
}

func TestLocalDirectoryModel(t *testing.T) {
	cfg, err := os.ReadFile("testdata/tiny-model/config.json")
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{"fixtures/tiny-model/config.json": {Data: cfg}}
	for _, id := range []string{"fixtures/tiny-model", "./fixtures/tiny-model", "fixtures/tiny-model/"} {
		m, err := LookupModel(id, files)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if m.Layers != 22 || m.Hidden != 2048 || m.Heads != 32 || m.KVHeads != 4 || m.HeadDim != 64 || m.MaxPositions != 2048 {
			t.Fatalf("%s: parsed %+v", id, m)
		}
		if got := m.KVBytesPerToken(1, 1, ""); got != 22528 {
			t.Fatalf("tiny KV bytes = %d, want 22528", got)
		}
		if m.Family != FamilyDense || m.GemmQuant != "bf16" || m.KVQuant != "bf16" {
			t.Fatalf("family/quant %s %s %s", m.Family, m.GemmQuant, m.KVQuant)
		}
	}
}

// verbatimFS opens exactly the names it holds, whatever their form (absolute, `..`), as the
// CLI's file system does; fstest.MapFS would refuse them as invalid fs paths.
type verbatimFS map[string][]byte

func (f verbatimFS) Open(name string) (fs.File, error) {
	b, ok := f[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return fstest.MapFS{"f": {Data: b}}.Open("f")
}

// A local model directory is named as the configuration writes it: `..` and absolute
// directories reach the file system unchanged (only cleaned), they are not unknown models.
func TestLocalDirectoryAnyPathForm(t *testing.T) {
	cfg, err := os.ReadFile("testdata/tiny-model/config.json")
	if err != nil {
		t.Fatal(err)
	}
	files := verbatimFS{"../models/tiny/config.json": cfg, "/data/models/tiny/config.json": cfg}
	for _, id := range []string{"../models/tiny", "../models/tiny/", "./../models/tiny", "/data/models/tiny", "/data/models//tiny/"} {
		m, err := LookupModel(id, files)
		if err != nil {
			t.Fatalf("%s: %v", id, err)
		}
		if m.Layers != 22 || m.ID != id {
			t.Fatalf("%s: parsed %+v", id, m)
		}
	}
	if _, err := LookupModel("../models/other", files); err == nil || !strings.Contains(err.Error(), UnknownModelPrefix) {
		t.Fatalf("a missing directory: %v, want an unknown model", err)
	}
}

func TestLocalQuantConfig(t *testing.T) {
	files := fstest.MapFS{
		"m/config.json":          {Data: []byte(`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"vocab_size":100,"text_config":{"max_position_embeddings":512}}`)},
		"m/hf_quant_config.json": {Data: []byte(`{"quantization":{"quant_algo":"FP8","kv_cache_quant_algo":"FP8"}}`)},
	}
	m, err := LookupModel("m", files)
	if err != nil {
		t.Fatal(err)
	}
	if m.GemmQuant != "fp8" || m.KVQuant != "fp8" || m.MaxPositions != 512 || m.HeadDim != 16 {
		t.Fatalf("got %+v", m)
	}
	if got := m.KVBytesPerToken(1, 1, ""); got != 2*2*2*16*1 {
		t.Fatalf("fp8 kv bytes %d", got)
	}
}

func TestAliases(t *testing.T) {
	cases := []struct {
		id, gemm string
		layers   int
	}{
		{"meta-llama/Meta-Llama-3.1-8B-Instruct", "bf16", 32},
		{"meta-llama/Llama-3.1-70B", "bf16", 80},
		{"meta-llama/Llama-3.1-70B-Instruct", "bf16", 80},
		{"nvidia/Llama-3.1-8B-Instruct-FP8", "fp8", 32},
		{"nvidia/DeepSeek-R1-NVFP4", "nvfp4", 61},
		{"zhipuai/GLM-5", "bf16", 78},
		{"qwen/qwen3-32b", "bf16", 64},
		{"nvidia/Qwen3-32B-NVFP4", "nvfp4", 64},
		{"Qwen/Qwen3-32B-FP8", "fp8_block", 64},
	}
	for _, c := range cases {
		m, err := LookupModel(c.id, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		if m.GemmQuant != c.gemm || m.Layers != c.layers {
			t.Errorf("%s: gemm %s layers %d, want %s %d", c.id, m.GemmQuant, m.Layers, c.gemm, c.layers)
		}
	}
}

func TestUnknownModel(t *testing.T) {
	_, err := LookupModel("meta-llama/Llama-3.1-9B", nil)
	var se *Error
	if !errors.As(err, &se) || se.Hardware {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(se.Msg, `unknown model "meta-llama/Llama-3.1-9B"; close matches: `) ||
		!strings.Contains(se.Msg, "meta-llama/Meta-Llama-3.1-8B") ||
		strings.Contains(se.Msg, "directory") {
		t.Fatalf("msg = %s", se.Msg)
	}
}

// Unknown ids are matched by family and size, not by raw edit distance (which offered GLM-5
// and Kimi-K3 for `llama3`).
func TestSuggestModels(t *testing.T) {
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"llama3", []string{"meta-llama/Meta-Llama-3.1-405B", "meta-llama/Meta-Llama-3.1-70B", "meta-llama/Meta-Llama-3.1-8B", "nvidia/Llama-3.1-70B-Instruct-FP8", "nvidia/Llama-3_3-Nemotron-Super-49B-v1"}},
		{"llama-70b", []string{"meta-llama/Meta-Llama-3.1-70B", "nvidia/Llama-3.1-70B-Instruct-FP8", "meta-llama/Llama-4-Maverick-17B-128E-Instruct", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "meta-llama/Meta-Llama-3.1-405B", "meta-llama/Meta-Llama-3.1-8B"}},
		{"qwen3-8b", []string{"Qwen/Qwen3-8B"}},
		{"deepseek", []string{"deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3.2", "deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V4-Flash", "deepseek-ai/DeepSeek-V4-Pro", "nvidia/DeepSeek-V3.1-NVFP4"}},
	} {
		if got := SuggestModels(c.id); !slices.Equal(got, c.want) {
			t.Errorf("SuggestModels(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}

func TestHardware(t *testing.T) {
	h, err := LookupHardware("h200_sxm")
	if err != nil {
		t.Fatal(err)
	}
	if h.MemBytes != 151397597184 || h.GPUsPerNode != 8 || h.MemBW != 4.8e12 || h.FP8 != 1978e12 {
		t.Fatalf("h200 %+v", h)
	}
	gb, _ := LookupHardware("gb200")
	if gb.GPUsPerNode != 4 || gb.NVLinkDomain() != 72 || gb.FP4 != 10e15 {
		t.Fatalf("gb200 %+v", gb)
	}
	if len(HardwareIDs()) != 14 {
		t.Fatalf("hardware ids %v", HardwareIDs())
	}
	_, err = LookupHardware("h900")
	var se *Error
	if !errors.As(err, &se) || !se.Hardware ||
		!strings.HasPrefix(se.Msg, `unknown hardware "h900"; supported: a100_pcie, a100_sxm, a30, b200_sxm`) {
		t.Fatalf("err = %v", err)
	}
}

func TestCatalogFamilies(t *testing.T) {
	for id, fam := range map[string]string{
		"Qwen/Qwen3.5-397B-A17B":        FamilyHybrid,
		"openai/gpt-oss-120b":           FamilyMoE,
		"deepseek-ai/DeepSeek-V3":       FamilyMLA,
		"moonshotai/Kimi-K2.5":          FamilyMLA,
		"MiniMaxAI/MiniMax-M2.5":        FamilyMoE,
		"meta-llama/Meta-Llama-3.1-70B": FamilyDense,
	} {
		m, err := LookupModel(id, nil)
		if err != nil || m.Family != fam {
			t.Errorf("%s: %v family %v want %s", id, err, m, fam)
		}
	}
	g, _ := LookupModel("openai/gpt-oss-120b", nil)
	if g.SlidingLayers != 18 || g.SlidingWindow != 128 || g.AttnLayers != 18 || g.MoEQuant != "nvfp4" {
		t.Errorf("gpt-oss %+v", g)
	}
	q, _ := LookupModel("Qwen/Qwen3.5-397B-A17B", nil)
	if q.LinearLayers != 45 || q.AttnLayers != 15 || q.Experts != 512 || q.TopK != 10 {
		t.Errorf("qwen3.5 %+v", q)
	}
}

func FuzzParseHFConfig(f *testing.F) {
	f.Add([]byte(`{"architectures":["LlamaForCausalLM"],"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"intermediate_size":128,"vocab_size":100}`), []byte(nil))
	f.Add([]byte(`{"text_config":{"num_hidden_layers":2,"hidden_size":64,"num_attention_heads":4,"num_experts":8,"num_experts_per_tok":2,"moe_intermediate_size":32,"vocab_size":100,"layer_types":["linear_attention","full_attention"],"linear_num_key_heads":2,"linear_key_head_dim":8,"linear_num_value_heads":2,"linear_value_head_dim":8}}`), []byte(`{"quantization":{"quant_algo":"NVFP4"}}`))
	f.Add([]byte(`{"hidden_size": Infinity}`), []byte(`{}`))
	f.Fuzz(func(t *testing.T, cfg, q []byte) {
		m, err := ParseHFConfig("x", cfg, q)
		if err == nil && (m.Layers <= 0 || m.Heads <= 0) {
			t.Fatalf("accepted a model without layers/heads: %+v", m)
		}
		if err == nil {
			_ = m.KVBytesPerToken(1, 1, "")
		}
	})
}

// LookupModel says which catalog entry it used: the entry itself for an exact or case-folded
// id, the architecture an alias folds onto (keeping the id as given), nothing for a local
// directory.
func TestLookupModelCatalogID(t *testing.T) {
	for _, c := range []struct{ id, wantID, catalog string }{
		{"meta-llama/Meta-Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B"},
		{"META-LLAMA/meta-llama-3.1-8b", "meta-llama/Meta-Llama-3.1-8B", "meta-llama/Meta-Llama-3.1-8B"},
		{"meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B-Instruct", "meta-llama/Meta-Llama-3.1-8B"},
		{"someorg/Llama-3.1-8B-Instruct-FP8", "someorg/Llama-3.1-8B-Instruct-FP8", "meta-llama/Meta-Llama-3.1-8B"},
	} {
		m, err := LookupModel(c.id, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.id, err)
		}
		if m.ID != c.wantID || m.CatalogID != c.catalog {
			t.Errorf("LookupModel(%q): ID %q CatalogID %q, want %q and %q", c.id, m.ID, m.CatalogID, c.wantID, c.catalog)
		}
	}
	files := fstest.MapFS{"m/config.json": {Data: []byte(`{"architectures": ["LlamaForCausalLM"], "num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 128, "vocab_size": 100, "max_position_embeddings": 512}`)}}
	if m, err := LookupModel("m", files); err != nil || m.CatalogID != "" {
		t.Errorf("local directory: %v, %+v, want no catalog id", err, m)
	}
}
