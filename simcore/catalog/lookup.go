package catalog

import (
	_ "embed"
	"encoding/json"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"aisimulate/simcore/levenshtein"
)

//go:embed models.json
var modelsJSON []byte

//go:embed hardware.json
var hardwareJSON []byte

// Hardware is one GPU system: per-GPU memory, bandwidth and tensor-core FLOPS, and the
// interconnect. Bandwidths are bytes/s per GPU in one direction; FLOPS are dense.
type Hardware struct {
	ID          string  `json:"id"`
	MemBytes    int64   `json:"mem"`
	MemBW       float64 `json:"mem_bw"`
	BF16        float64 `json:"bf16"`
	FP8         float64 `json:"fp8,omitempty"` // 0 = no FP8 tensor cores
	FP4         float64 `json:"fp4,omitempty"` // 0 = no FP4 tensor cores
	INT8        float64 `json:"int8,omitempty"`
	SM          int     `json:"sm,omitempty"`
	GPUsPerNode int     `json:"gpn"`
	GPUsPerRack int     `json:"gpr,omitempty"` // NVLink domain when larger than a node
	IntraNodeBW float64 `json:"nvlink_bw"`
	InterNodeBW float64 `json:"inter_bw"`
	InterRackBW float64 `json:"rack_bw,omitempty"`
	P2PLatency  float64 `json:"p2p_lat"` // seconds
	// OtherMem is memory reserved for the runtime (bytes); NCCLMem the communicator buffers
	// by TP size 1, 2, 4, 8.
	OtherMem int64    `json:"other_mem"`
	NCCLMem  [4]int64 `json:"nccl_mem"`
}

// NCCLBytes is the communicator memory for a TP group of size tp (capped at 8).
func (h *Hardware) NCCLBytes(tp int) int64 {
	switch {
	case tp <= 1:
		return h.NCCLMem[0]
	case tp == 2:
		return h.NCCLMem[1]
	case tp <= 4:
		return h.NCCLMem[2]
	default:
		return h.NCCLMem[3]
	}
}

// NVLinkDomain is the number of GPUs reachable over NVLink (node, or rack for NVL72).
func (h *Hardware) NVLinkDomain() int {
	if h.GPUsPerRack > h.GPUsPerNode {
		return h.GPUsPerRack
	}
	return h.GPUsPerNode
}

// The parsed catalog, written once by parse and read only after load returns.
var (
	models   []*Model
	hardware []*Hardware
	// aliasIdx maps a normalised key to catalog indices.
	aliasIdx map[string][]int
	// parsed makes the first use parse the tables exactly once, also when goroutines of a
	// native tool (tools/recommendbench) use the catalog for the first time together.
	parsed sync.Once
)

// load parses the embedded tables on first use; every caller returns after the one parse.
func load() { parsed.Do(parse) }

// parse reads models.json and hardware.json and indexes the models by alias key.
func parse() {
	if err := json.Unmarshal(modelsJSON, &models); err != nil {
		panic("catalog: models.json: " + err.Error())
	}
	if err := json.Unmarshal(hardwareJSON, &hardware); err != nil {
		panic("catalog: hardware.json: " + err.Error())
	}
	aliasIdx = map[string][]int{}
	for i, m := range models {
		k, _ := aliasKey(m.ID)
		aliasIdx[k] = append(aliasIdx[k], i)
	}
}

// Models lists the catalog model ids in catalog order.
func Models() []string {
	load()
	out := make([]string, len(models))
	for i, m := range models {
		out[i] = m.ID
	}
	return out
}

// HardwareIDs lists the catalog hardware ids, sorted.
func HardwareIDs() []string {
	load()
	out := make([]string, len(hardware))
	for i, h := range hardware {
		out[i] = h.ID
	}
	return out
}

// variant suffixes that do not change the architecture.
var variantSuffixes = []string{"-instruct", "-base", "-chat", "-it", "-hf", "-v0.1", "-2507", "-thinking"}

// quant suffixes: a quantised re-release of a catalog model keeps its architecture and
// changes the default quantisation.
var quantSuffixes = []struct{ suffix, gemm string }{
	{"-fp8-static-pertensor", "fp8_static"},
	{"-fp8-dynamic", "fp8"},
	{"-fp8", "fp8"},
	{"-nvfp4", "nvfp4"},
	{"-fp4", "nvfp4"},
	{"-mxfp4", "nvfp4"},
	{"-awq", "int4_wo"},
	{"-int4", "int4_wo"},
}

// aliasKey normalises an id: the organisation is dropped, case folded, "meta-" prefixes,
// variant and quantisation suffixes removed. It also reports the quantisation suffix's mode.
func aliasKey(id string) (string, string) {
	s := strings.ToLower(id)
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, "meta-")
	s = strings.ReplaceAll(s, "_", ".")
	q := ""
	for changed := true; changed; {
		changed = false
		for _, v := range quantSuffixes {
			if strings.HasSuffix(s, v.suffix) {
				s, q, changed = strings.TrimSuffix(s, v.suffix), v.gemm, true
			}
		}
		for _, v := range variantSuffixes {
			if strings.HasSuffix(s, v) {
				s, changed = strings.TrimSuffix(s, v), true
			}
		}
	}
	return s, q
}

// LookupModel resolves engine.model: a local directory holding config.json and optionally
// hf_quant_config.json, an exact catalog id, or an
// alias (organisation, case, Instruct/Base/chat variants and quantised re-releases such as
// -FP8/-NVFP4 fold onto the catalog architecture). Unknown ids and unreadable model
// directories are an *Error (unknown ids with close matches).
//
// The directory is named as the configuration writes it, relative (`..` included) or
// absolute, and files decides what the name means: the CLI's file system opens it as the
// operating system does, relative to the working directory, as it opens trace paths
// (docs/config.md, "File paths"). The name is only cleaned (path.Join), never required to be
// an fs.ValidPath, which would turn every `..` and absolute directory into an unknown model.
func LookupModel(id string, files fs.FS) (*Model, error) {
	load()
	if files != nil && id != "" {
		if cfg, err := fs.ReadFile(files, path.Join(id, "config.json")); err == nil {
			q, _ := fs.ReadFile(files, path.Join(id, "hf_quant_config.json"))
			m, perr := ParseHFConfig(id, cfg, q)
			if perr != nil {
				return nil, &Error{Msg: "model directory " + strconv.Quote(id) + ": " + perr.Error()}
			}
			return m, nil
		}
	}
	for _, m := range models {
		if m.ID == id {
			c := *m
			c.CatalogID = m.ID
			return &c, nil
		}
	}
	for _, m := range models {
		if strings.EqualFold(m.ID, id) {
			c := *m
			c.CatalogID = m.ID
			return &c, nil
		}
	}
	key, q := aliasKey(id)
	if idx := aliasIdx[key]; len(idx) > 0 {
		best, bestScore := idx[0], -1
		org := ""
		if i := strings.Index(id, "/"); i >= 0 {
			org = strings.ToLower(id[:i])
		}
		// Prefer the unquantised base (its quant defaults are then overridden), then the
		// same organisation.
		for _, i := range idx {
			score := 0
			if models[i].GemmQuant == "bf16" {
				score += 2
			}
			if strings.HasPrefix(strings.ToLower(models[i].ID), org+"/") {
				score++
			}
			if score > bestScore {
				best, bestScore = i, score
			}
		}
		c := *models[best]
		c.ID, c.CatalogID = id, models[best].ID
		if q != "" {
			c.GemmQuant = q
			if c.Experts > 0 {
				c.MoEQuant = q
			}
		}
		return &c, nil
	}
	return nil, &Error{Msg: UnknownModelPrefix + quote(id) + "; close matches: " +
		strings.Join(SuggestModels(id), ", ")}
}

// UnknownModelPrefix starts the message of an unknown engine.model; a target that can read
// local model directories (the CLI) adds that option to such messages.
const UnknownModelPrefix = "unknown model "

// LookupHardware resolves engine.hardware to a catalog system; an unknown id is an *Error
// listing the supported ones.
func LookupHardware(id string) (*Hardware, error) {
	load()
	for _, h := range hardware {
		if h.ID == id {
			c := *h
			return &c, nil
		}
	}
	return nil, &Error{Hardware: true, Msg: "unknown hardware " + quote(id) + "; supported: " +
		strings.Join(HardwareIDs(), ", ")}
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

// maxSuggestions bounds the ids an unknown-model message lists.
const maxSuggestions = 6

// SuggestModels returns catalog ids close to an unknown model id, best first: ids whose
// folded name (organisation, "meta-", case and punctuation dropped) starts with or contains
// the folded query (`llama3` → the Llama 3.x ids); otherwise ids of the query's family (its
// leading letters: `llama-70b` → Llama ids, those with the query's size such as `70b` first);
// otherwise the nearest by edit distance. Ties keep catalog order [decision, docs/timing.md].
func SuggestModels(id string) []string {
	load()
	q := foldName(id)
	ids := Models()
	var prefix, inner []string
	for _, c := range ids {
		switch f := foldName(c); {
		case q == "":
		case strings.HasPrefix(f, q):
			prefix = append(prefix, c)
		case strings.Contains(f, q):
			inner = append(inner, c)
		}
	}
	if found := append(prefix, inner...); len(found) > 0 {
		return firstN(found, maxSuggestions)
	}
	if fam := leadingLetters(q); len(fam) >= 3 {
		var withSize, family []string
		size := sizeToken(strings.ToLower(id))
		for _, c := range ids {
			f := foldName(c)
			if !strings.HasPrefix(f, fam) {
				continue
			}
			if size != "" && strings.Contains(strings.ToLower(c), size) {
				withSize = append(withSize, c)
			} else {
				family = append(family, c)
			}
		}
		if found := append(withSize, family...); len(found) > 0 {
			return firstN(found, maxSuggestions)
		}
	}
	return closeMatches(id, ids, 3)
}

// foldName folds a model id for suggestions: the part after the organisation, lower case,
// without a "meta-" prefix, letters and digits only ("meta-llama/Meta-Llama-3.1-8B" →
// "llama318b").
func foldName(id string) string {
	s := strings.ToLower(id)
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, "meta-")
	var b strings.Builder
	for _, r := range s {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// leadingLetters is the family part of a folded name: its letters before the first digit.
func leadingLetters(s string) string {
	for i, r := range s {
		if r >= '0' && r <= '9' {
			return s[:i]
		}
	}
	return s
}

// sizeToken is the first "<digits>b" parameter-count token of a lower-case id ("70b"), or "".
func sizeToken(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || (i > 0 && s[i-1] >= '0' && s[i-1] <= '9') {
			continue
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j < len(s) && s[j] == 'b' && (j+1 == len(s) || s[j+1] < 'a' || s[j+1] > 'z') {
			return s[i : j+1]
		}
	}
	return ""
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// closeMatches returns up to n candidates closest to id by edit distance of the folded
// names (ties broken by catalog order).
func closeMatches(id string, cands []string, n int) []string {
	type sc struct {
		d, i int
	}
	k := strings.ToLower(id)
	if i := strings.LastIndex(k, "/"); i >= 0 {
		k = k[i+1:]
	}
	var s []sc
	for i, c := range cands {
		ck := strings.ToLower(c)
		if j := strings.LastIndex(ck, "/"); j >= 0 {
			ck = ck[j+1:]
		}
		s = append(s, sc{levenshtein.Distance(k, ck), i})
	}
	sort.SliceStable(s, func(a, b int) bool { return s[a].d < s[b].d })
	var out []string
	for i := 0; i < len(s) && i < n; i++ {
		out = append(out, cands[s[i].i])
	}
	return out
}
