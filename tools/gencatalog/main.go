// Command gencatalog regenerates simcore/catalog/models.json and hardware.json, the
// embedded model and hardware catalogs, from a directory of Hugging Face config.json files
// and a directory of GPU system descriptions. Only the facts the timing and memory models
// use are kept, in the project's own format.
//
//	go run ./tools/gencatalog -models <shared>/models -systems <shared>/systems -out simcore/catalog
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"aisimulate/simcore/catalog"
)

func main() {
	modelsDir := flag.String("models", "", "directory of <org>--<name>_config.json files")
	systemsDir := flag.String("systems", "", "directory of <id>.yaml system files")
	out := flag.String("out", "simcore/catalog", "output directory")
	flag.Parse()
	if *modelsDir == "" || *systemsDir == "" {
		fmt.Fprintln(os.Stderr, "pass -models <shared>/models -systems <shared>/systems")
		os.Exit(2)
	}
	if err := genModels(*modelsDir, filepath.Join(*out, "models.json")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := genHardware(*systemsDir, filepath.Join(*out, "hardware.json")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func genModels(dir, out string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*_config.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	var ms []*catalog.Model
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasSuffix(base, "_hf_quant_config.json") {
			continue
		}
		name := strings.TrimSuffix(base, "_config.json")
		id := strings.Replace(name, "--", "/", 1)
		cfg, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		q, _ := os.ReadFile(filepath.Join(dir, name+"_hf_quant_config.json"))
		m, err := catalog.ParseHFConfig(id, cfg, q)
		if err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		ms = append(ms, m)
	}
	return writeLines(out, len(ms), func(i int) any { return ms[i] })
}

type sysFile struct {
	GPU struct {
		MemBW    float64 `json:"mem_bw"`
		MemCap   float64 `json:"mem_capacity"`
		BF16     float64 `json:"bfloat16_tc_flops"`
		FP8      float64 `json:"fp8_tc_flops"`
		FP4      float64 `json:"fp4_tc_flops"`
		INT8     float64 `json:"int8_tc_flops"`
		SM       int     `json:"sm_version"`
		MemScale float64 `json:"mem_bw_empirical_scaling_factor"`
	} `json:"gpu"`
	Node struct {
		GPN      int     `json:"num_gpus_per_node"`
		GPR      int     `json:"num_gpus_per_rack"`
		Inter    float64 `json:"inter_node_bw"`
		Intra    float64 `json:"intra_node_bw"`
		Rack     float64 `json:"inter_rack_bw"`
		P2PLaten float64 `json:"p2p_latency"`
	} `json:"node"`
	Misc struct {
		NCCL  map[string]float64 `json:"nccl_mem"`
		Other float64            `json:"other_mem"`
	} `json:"misc"`
}

func genHardware(dir, out string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	var hs []*catalog.Hardware
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var s sysFile
		if err := yaml.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("%s: %v", f, err)
		}
		h := &catalog.Hardware{
			ID:          strings.TrimSuffix(filepath.Base(f), ".yaml"),
			MemBytes:    int64(s.GPU.MemCap),
			MemBW:       s.GPU.MemBW,
			BF16:        s.GPU.BF16,
			FP8:         s.GPU.FP8,
			FP4:         s.GPU.FP4,
			INT8:        s.GPU.INT8,
			SM:          s.GPU.SM,
			GPUsPerNode: s.Node.GPN,
			GPUsPerRack: s.Node.GPR,
			IntraNodeBW: s.Node.Intra,
			InterNodeBW: s.Node.Inter,
			InterRackBW: s.Node.Rack,
			P2PLatency:  s.Node.P2PLaten,
			OtherMem:    int64(s.Misc.Other),
		}
		// FP8 on a GPU whose FP8 rate equals its BF16 rate (e.g. b60) is emulated.
		if h.FP8 <= h.BF16 {
			h.FP8 = 0
		}
		for i, k := range []string{"1", "2", "4", "8"} {
			h.NCCLMem[i] = int64(s.Misc.NCCL[k])
		}
		if h.MemBytes <= 0 || h.MemBW <= 0 || h.BF16 <= 0 || h.GPUsPerNode <= 0 {
			return fmt.Errorf("%s: missing memory, bandwidth, FLOPS or GPUs per node", f)
		}
		hs = append(hs, h)
	}
	return writeLines(out, len(hs), func(i int) any { return hs[i] })
}

// writeLines writes a JSON array with one compact element per line (diff-friendly, small).
func writeLines(path string, n int, at func(int) any) error {
	var buf bytes.Buffer
	buf.WriteString("[\n")
	for i := 0; i < n; i++ {
		b, err := json.Marshal(at(i))
		if err != nil {
			return err
		}
		buf.Write(b)
		if i < n-1 {
			buf.WriteByte(',')
		}
		buf.WriteByte('\n')
	}
	buf.WriteString("]\n")
	return os.WriteFile(path, buf.Bytes(), 0o644)
}
