package planner

import (
	"testing"

	"aisimulate/simcore/spec"
)

func TestClampSingle(t *testing.T) {
	cases := []struct {
		name                               string
		desired, g, max, minGPUs, minWorks int
		want                               int
	}{
		// floor(8/2) = 4 workers fit.
		{"over budget", 10, 2, 8, -1, 1, 4},
		{"unlimited", 10, 2, -1, -1, 1, 10},
		{"minimum workers", 0, 1, 8, -1, 2, 2},
		// 1 worker × 4 GPUs < min_num_gpus 6: ceil(1 × 6/4) = 2.
		{"min_num_gpus growth", 1, 4, 16, 6, 1, 2},
		{"within", 3, 2, 8, -1, 1, 3},
	}
	for _, c := range cases {
		if got := ClampSingle(c.desired, c.g, c.max, c.minGPUs, c.minWorks); got != c.want {
			t.Errorf("%s: ClampSingle = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestClampPair(t *testing.T) {
	cases := []struct {
		name                                   string
		p, d, gp, gd, max, minGPUs, pmin, dmin int
		wp, wd                                 int
	}{
		// total 4·2 + 8·1 = 16 > 8, s = 1/2: p' = max(1, min(⌊(8−1)/2⌋ = 3, ⌊4·½⌋ = 2)) = 2;
		// d' = max(1, ⌊(8 − 2·2)/1⌋) = 4.
		{"halved", 4, 8, 2, 1, 8, -1, 1, 1, 2, 4},
		// total 3·2 + 1 = 7 > 6: p' = max(1, min(⌊5/2⌋ = 2, ⌊3·6/7⌋ = 2)) = 2;
		// d' = ⌊(6 − 4)/1⌋ = 2 (decode takes the GPUs prefill gave back, as written).
		{"decode refills", 3, 1, 2, 1, 6, -1, 1, 1, 2, 2},
		// total 1·4 + 10 = 14 > 8: ⌊1·8/14⌋ = 0 lifted to pmin 1; d' = ⌊(8 − 4)/1⌋ = 4.
		{"prefill minimum", 1, 10, 4, 1, 8, -1, 1, 1, 1, 4},
		// 5 + 2 = 7 ≤ 8: unchanged.
		{"within", 5, 2, 1, 1, 8, -1, 1, 1, 5, 2},
		// total 2 < min_num_gpus 6: both ×3 (ceil(1·6/2) = 3).
		{"min growth", 1, 1, 1, 1, 8, 6, 1, 1, 3, 3},
		// total 1·2 + 2·1 = 4 < 7: p = ceil(1·7/4) = 2, d = ceil(2·7/4) = 4.
		{"min growth ceil", 1, 2, 2, 1, -1, 7, 1, 1, 2, 4},
		// 6 + 5 = 11 > 8 with dmin 3: p' = max(1, min(⌊(8−3)/1⌋ = 5, ⌊6·8/11⌋ = 4)) = 4;
		// d' = max(3, ⌊(8−4)/1⌋) = 4.
		{"decode minimum", 6, 5, 1, 1, 8, -1, 1, 3, 4, 4},
	}
	for _, c := range cases {
		gp, gd := ClampPair(c.p, c.d, c.gp, c.gd, c.max, c.minGPUs, c.pmin, c.dmin)
		if gp != c.wp || gd != c.wd {
			t.Errorf("%s: ClampPair = (%d, %d), want (%d, %d)", c.name, gp, gd, c.wp, c.wd)
		}
	}
}

func TestMinWorkers(t *testing.T) {
	c := spec.DefaultPlanner()
	c.MinWorkers = 2
	three := 3
	c.DecodeMinWorkers = &three
	if MinWorkers(c, ComponentAgg) != 2 || MinWorkers(c, ComponentPrefill) != 2 || MinWorkers(c, ComponentDecode) != 3 {
		t.Errorf("MinWorkers = %d %d %d", MinWorkers(c, ComponentAgg), MinWorkers(c, ComponentPrefill), MinWorkers(c, ComponentDecode))
	}
}
