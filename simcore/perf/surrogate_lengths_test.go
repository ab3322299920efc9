package perf

import "testing"

// With every request of the same lengths and no frontend latency (so no release lag), the
// per-request replay is the cohort replay of SimAgg: the same passes, TTFT and TPOT forms in
// the engine's coefficients. (The frontend terms differ: SimAgg adds F to every TTFT, the
// per-request replay only where it shows, here in the first wave.)
func TestSimAggLengthsConstantIsSimAgg(t *testing.T) {
	d := llama8BOnH200(t)
	d.SetFrontend(0)
	for _, backend := range []string{"vllm", "sglang", "trtllm"} {
		for _, c := range []struct {
			conc, isl, osl int
			kv             int64
		}{{1, 100, 11, 1 << 30}, {16, 1024, 128, 1 << 30}, {64, 1000, 100, 1 << 30}, {64, 1000, 100, 8 * 1050},
			{300, 3000, 50, 1 << 30}, {512, 1024, 1024, 400_000}, {7, 9000, 1, 1 << 30}} {
			want := SimAgg(d, backend, c.conc, c.isl, c.osl, c.kv, 8192)
			in, out := make([]int, 10*c.conc), make([]int, 10*c.conc)
			for i := range in {
				in[i], out[i] = c.isl, c.osl
			}
			got := SimAggLengths(d, backend, c.conc, in, out, c.kv, 8192)
			for i := 0; i < 6; i++ {
				if !near(got.TTFT[i], want.TTFT[i], 1e-9) || !near(got.TPOT[i], want.TPOT[i], 1e-9) {
					t.Errorf("%s %+v: TTFT %v TPOT %v, SimAgg %v %v", backend, c, got.TTFT, got.TPOT, want.TTFT, want.TPOT)
					break
				}
			}
			if got.Passes != want.Passes {
				t.Errorf("%s %+v: %d passes, SimAgg %d", backend, c, got.Passes, want.Passes)
			}
		}
	}
}
