package report

import (
	"reflect"
	"testing"
)

// Cards show durations of 10 s and more in seconds (docs/web.md).
func TestCardScaled(t *testing.T) {
	dur := Card{Label: "Virtual duration", Key: KeyDurationMs, Unit: "ms"}
	for _, c := range []struct {
		card Card
		v    float64
		want float64
		unit string
	}{{dur, 22010, 22.01, "s"}, {dur, 9999, 9999, "ms"}, {dur, 10000, 10, "s"},
		{Card{Unit: "tok/s"}, 22010, 22010, "tok/s"}} {
		if v, unit := c.card.Scaled(c.v); v != c.want || unit != c.unit {
			t.Errorf("%v.Scaled(%v) = %v %s, want %v %s", c.card.Label, c.v, v, unit, c.want, c.unit)
		}
	}
	if ITLNote(7.01, 7.3) != "" || ITLNote(7.3, 7.01) == "" {
		t.Error("ITLNote must explain a mean above the p99, and only that")
	}
}

// A card shows its band in the value's unit: seconds for both from 10 s.
func TestCardShowScalesTheBand(t *testing.T) {
	ttft := Card{Label: "TTFT mean", Key: TTFT.Key(Mean), Unit: "ms", Embed: true}
	got := ttft.Show(20000, &[2]float64{15000, 30000})
	if got.Value != 20 || got.Unit != "s" || got.Band == nil || *got.Band != [2]float64{15, 30} || got.Key != ttft.Key || got.Label != ttft.Label {
		t.Errorf("Show(20000) = %+v", got)
	}
	if got := ttft.Show(50, nil); got.Value != 50 || got.Unit != "ms" || got.Band != nil {
		t.Errorf("Show(50) = %+v", got)
	}
	if got := ttft.Show(0, &[2]float64{0, 1}); got.Band == nil || *got.Band != [2]float64{0, 1} {
		t.Errorf("Show(0) = %+v", got)
	}
}

// The embed's headline: the embed cards the summary has, in report.Cards order, scaled; the
// SLA cards of the readable table; the deployment line.
func TestNewHeadline(t *testing.T) {
	summary := map[string]any{KeyCompletedRequests: 10.0, TTFT.Key(Mean): 12500.0, TTFT.Key(Median): 900.0,
		KeyGoodputCompletedRequests: 8.0, KeyDurationMs: 22000.0}
	ov := &Overview{
		Deployment: Deployment{Model: "llama-3.1-8b", CatalogModel: "meta-llama/Meta-Llama-3.1-8B", Hardware: "h200_sxm", Backend: "vllm", Mode: "aggregated",
			Workers: []WorkerGroup{{Role: "aggregated", Replicas: 2, GPUsPerReplica: 1, Parallelism: "TP1", Timing: "default"}}},
		SLA:        &SLA{TTFTMs: 200, HasTTFT: true},
		Attainment: []BoundAttainment{{Metric: "TTFT", BoundMs: 200, Met: 9, Completed: 10}},
		Intervals:  map[string]any{TTFT.Key(Mean): map[string]any{KeyIntervalP10: 10000.0, KeyIntervalP90: 15000.0}},
	}
	h := NewHeadline(summary, ov)
	band := [2]float64{10, 15}
	want := Headline{
		Cards: []ShownCard{{Label: "Completed requests", Key: KeyCompletedRequests, Value: 10}, {Label: "TTFT mean", Key: TTFT.Key(Mean), Value: 12.5, Unit: "s", Band: &band},
			{Label: "TTFT p50", Key: TTFT.Key(Median), Value: 900, Unit: "ms"}},
		SLA:        []SLAShare{{ID: "sla-ttft", Label: "TTFT ≤ 200 ms", Share: "90.0%"}, {ID: "goodput-share", Label: "Met every SLA bound", Share: "80.0%"}},
		Deployment: "meta-llama/Meta-Llama-3.1-8B (given as llama-3.1-8b) · h200_sxm × 2 GPUs, vllm, aggregated · aggregated: 2 replicas × TP1, default timing",
	}
	if !reflect.DeepEqual(h, want) {
		t.Errorf("headline\n%+v\nwant\n%+v", h, want)
	}
	if h := NewHeadline(summary, nil); len(h.SLA) != 0 || h.Deployment != "" || len(h.Cards) != 3 || h.Cards[1].Band != nil {
		t.Errorf("without an overview: %+v", h)
	}
}
