package measure

import (
	"math"
	"os"
	"testing"
)

// fuzzRead is every reader's fuzz body: Read never panics, and whatever it accepts is a
// usable measurement (finite positive means, whole positive lengths, exactly one load).
func fuzzRead(f *testing.F, fixture string) {
	if data, err := os.ReadFile("testdata/" + fixture); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := Read("fuzz", data)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		for _, m := range ms {
			for _, v := range []float64{m.TTFT, m.TPOT} {
				if !(v > 0) || math.IsInf(v, 0) {
					t.Fatalf("mean %g accepted: %+v", v, m)
				}
			}
			if m.ISL < 1 || m.OSL < 1 || (m.Concurrency > 0) == (m.RequestRate > 0) || math.IsInf(m.RequestRate, 0) {
				t.Fatalf("unusable measurement accepted: %+v", m)
			}
			// A recorded length draw is one the configuration accepts, around whole lengths.
			if isl, osl := m.DrawLengths(); m.Lengths.Validate("lengths") != nil || isl < 1 || osl < 1 {
				t.Fatalf("unusable length draw accepted: %+v", m)
			}
		}
	})
}

func FuzzAIPerfJSON(f *testing.F)  { fuzzRead(f, "profile_export_aiperf.json") }
func FuzzAIPerfJSONL(f *testing.F) { fuzzRead(f, "profile_export.jsonl") }
func FuzzVLLM(f *testing.F)        { fuzzRead(f, "vllm_bench.json") }
func FuzzSGLang(f *testing.F)      { fuzzRead(f, "sglang_bench.jsonl") }
func FuzzCSV(f *testing.F)         { fuzzRead(f, "runs.csv") }
