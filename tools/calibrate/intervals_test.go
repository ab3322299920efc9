package main

import (
	"testing"

	"aisimulate/simcore/uncertainty"
)

// rowsOf makes ten rows of one group for a campaign, with residuals from r(i), i = 0..9, on
// every metric.
func rowsOf(campaign string, r func(i int) float64) []intervalRow {
	g := uncertainty.Group{Backend: "vllm", Mode: uncertainty.ModeAgg, Regime: uncertainty.Regimes[0]}
	var out []intervalRow
	for i := 0; i < 10; i++ {
		v := r(i)
		out = append(out, intervalRow{group: g, campaign: campaign, r: [metrics]float64{v, v, v, v}})
	}
	return out
}

// Five campaigns with residuals 0..9 and one whose residuals are all 50. Left out, a normal
// campaign meets bands from four like it and the outlier: the outlier holds 1/5 of the mass,
// so the band is [1, 50] (the 10th percentile steps past 0, whose mass is 0.08) and 9 of its
// 10 rows are inside. Left out, the outlier meets bands of normal campaigns only, [0, 8]: none
// of its rows is inside — its own residuals never widen its own band.
func TestCoverageIsHeldOutPerCampaign(t *testing.T) {
	var rs []intervalRow
	for _, c := range []string{"a", "b", "c", "d", "e"} {
		rs = append(rs, rowsOf(c, func(i int) float64 { return float64(i) })...)
	}
	rs = append(rs, rowsOf("z", func(int) float64 { return 50 })...)
	h := coverage(rs)
	e := h.eval
	if e.Rows != 60 || e.Campaigns != 6 {
		t.Fatalf("scored %d rows of %d campaigns, want 60 of 6", e.Rows, e.Campaigns)
	}
	if e.Coverage.TTFT != 0.75 || e.Coverage.TPOT != 0.75 || e.CampaignMeanCoverage.TTFT != 0.75 {
		t.Errorf("coverage %+v / campaign mean %+v, want 0.75 (45 of 60 rows; 5 × 0.9 and 0 over 6 campaigns)", e.Coverage, e.CampaignMeanCoverage)
	}
	g := h.group[rs[0].group.String()]
	if g == nil || g[0] != [2]int{45, 60} {
		t.Errorf("group count %v, want [45 60]", g)
	}
	// Without the outlier every campaign's band is [0, 8]: 9 of 10 rows inside.
	if c := coverage(rs[:50]).eval.Coverage.TTFT; c != 0.9 {
		t.Errorf("coverage without the outlier = %v, want 0.9", c)
	}
}

func TestGroupBandsCoverEveryGroup(t *testing.T) {
	rs := rowsOf("a", func(i int) float64 { return float64(i) })
	bands := groupBands(rs)
	if len(bands) != 18 {
		t.Fatalf("%d groups, want 18 (3 backends × 2 modes × 3 regimes)", len(bands))
	}
	// A group without rows takes its parent's band: here the one campaign's distribution.
	e := bands["sglang/disagg/c129+"]
	if e.TTFT.N != 0 || e.Campaigns != 0 || e.TTFT.P10 != 0 || e.TTFT.P90 != 8 {
		t.Errorf("empty group = %+v, want the pooled band [0, 8] with n 0", e)
	}
}
