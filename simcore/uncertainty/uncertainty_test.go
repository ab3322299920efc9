package uncertainty

import (
	"math"
	"testing"

	"aisimulate/simcore/perf"
	"aisimulate/simcore/report"
)

func TestQuantileIsTheWeightedType1Quantile(t *testing.T) {
	d := Dist{{R: 3, W: 1}, {R: 1, W: 1}, {R: 2, W: 1}, {R: 4, W: 1}, {R: 5, W: 1}}
	// Cumulative weights 1..5 of 5: p = 0.1 → 0.5 → first residual; p = 0.9 → 4.5 → fifth;
	// p = 0.4 → 2 → exactly the second (the tolerance keeps it from stepping past).
	for _, c := range []struct{ p, want float64 }{{0.1, 1}, {0.9, 5}, {0.4, 2}, {0.41, 3}, {0, 1}, {1, 5}} {
		if got := d.Quantile(c.p); got != c.want {
			t.Errorf("Quantile(%v) = %v, want %v", c.p, got, c.want)
		}
	}
	// Weight moves the quantile: the heavy residual takes 0.9 of the mass.
	w := Dist{{R: -1, W: 0.05}, {R: 0, W: 0.9}, {R: 1, W: 0.05}}
	if b := w.Band(3); b.P10 != 0 || b.P90 != 0 || b.N != 3 {
		t.Errorf("weighted band = %+v, want {0 0 3}", b)
	}
	if (Dist{}).Quantile(0.5) != 0 {
		t.Error("empty distribution: want 0")
	}
}

func TestCampaignWeightedGivesEveryCampaignTheSameWeight(t *testing.T) {
	s := []Sample{{1, "a"}, {2, "a"}, {3, "a"}, {10, "b"}}
	d := CampaignWeighted(s)
	want := []float64{1.0 / 6, 1.0 / 6, 1.0 / 6, 0.5}
	for i := range d {
		if math.Abs(d[i].W-want[i]) > 1e-15 {
			t.Errorf("weight %d = %v, want %v", i, d[i].W, want[i])
		}
	}
	// Campaign b's single row holds half the mass, so the median is the boundary of a's rows.
	if q := d.Quantile(0.5); q != 3 {
		t.Errorf("median = %v, want 3", q)
	}
}

// The fallback rule: a group without residuals is its parent; a group of m campaigns keeps
// m/(m+Shrinkage) of the mass.
func TestShrunkFallsBackToTheParent(t *testing.T) {
	parent := CampaignWeighted([]Sample{{-2, "p"}, {-1, "p"}, {1, "q"}, {2, "q"}})
	if got := Shrunk(nil, parent); len(got) != len(parent) || got.Band(0) != parent.Band(0) {
		t.Errorf("empty group: band %+v, want the parent's %+v", got.Band(0), parent.Band(0))
	}
	own := []Sample{{0.5, "x"}}
	d := Shrunk(own, parent)
	var ownW, total float64
	for _, x := range d {
		total += x.W
		if x.R == 0.5 {
			ownW += x.W
		}
	}
	if math.Abs(total-1) > 1e-12 || math.Abs(ownW-1.0/(1+Shrinkage)) > 1e-12 {
		t.Errorf("one campaign: own weight %v of %v, want %v of 1", ownW, total, 1.0/(1+Shrinkage))
	}
	// One campaign cannot narrow the parent's band to its single residual.
	if b := d.Band(1); b.P10 != -2 || b.P90 != 2 || b.N != 1 {
		t.Errorf("one-campaign band = %+v, want the parent's extremes {-2 2 1}", b)
	}
	// Many campaigns agreeing dominate: 30 campaigns at 0.5 keep 30/33 of the mass.
	var many []Sample
	for i := 0; i < 30; i++ {
		many = append(many, Sample{0.5, string(rune('A' + i))})
	}
	if b := Shrunk(many, parent).Band(30); b.P10 != 0.5 || b.P90 != 0.5 {
		t.Errorf("30-campaign band = %+v, want {0.5 0.5}", b)
	}
}

func TestRegimeBoundaries(t *testing.T) {
	for _, c := range []struct {
		load float64
		want string
	}{{1, "c1-32"}, {32, "c1-32"}, {32.4, "c1-32"}, {32.6, "c33-128"}, {128, "c33-128"}, {129, "c129+"}, {4096, "c129+"}} {
		if got := RegimeOf(c.load); got != c.want {
			t.Errorf("RegimeOf(%v) = %q, want %q", c.load, got, c.want)
		}
	}
}

// The committed bands must describe the committed model: regenerate them with
// `make intervals CSV=…` after every change to simcore/perf/calibration.json.
func TestBandsMatchTheEmbeddedCalibration(t *testing.T) {
	f := Defaults()
	if f.CalibrationSHA256 != perf.CalibrationSHA256() {
		t.Fatalf("simcore/uncertainty/bands.json was estimated for calibration %s, but the embedded calibration is %s: "+
			"run `make intervals CSV=<shared>/calibration/measured.csv` (docs/uncertainty.md)", f.CalibrationSHA256, perf.CalibrationSHA256())
	}
	if f.Shrinkage != Shrinkage {
		t.Errorf("bands.json was estimated with shrinkage %v, the code says %v: regenerate it", f.Shrinkage, Shrinkage)
	}
}

func TestEveryGroupHasABand(t *testing.T) {
	f := Defaults()
	for _, b := range perf.Backends {
		for _, m := range Modes {
			for _, r := range Regimes {
				g := Group{b, m, r}
				bs, ok := Default(g)
				if !ok {
					t.Errorf("bands.json lacks %s", g)
					continue
				}
				for _, band := range []Band{bs.TTFT, bs.TPOT, bs.E2E, bs.OutputThroughput} {
					if !(band.P10 <= band.P90) || math.IsNaN(band.P10) {
						t.Errorf("%s: band %+v is not an interval", g, band)
					}
				}
			}
		}
	}
	if n := len(f.Groups); n != len(perf.Backends)*len(Modes)*len(Regimes) {
		t.Errorf("bands.json has %d groups, want %d", n, len(perf.Backends)*len(Modes)*len(Regimes))
	}
	// The committed estimator met the honesty target when it was written.
	for name, c := range map[string]float64{"TTFT": f.Evaluation.Coverage.TTFT, "TPOT": f.Evaluation.Coverage.TPOT} {
		if c < 0.75 || c > 0.85 {
			t.Errorf("held-out coverage of mean %s = %.3f, outside the 0.75–0.85 target", name, c)
		}
	}
}

func TestObjectScalesTheSummaryByTheBand(t *testing.T) {
	summary := map[string]any{
		report.TTFT.Key(report.Mean): 100.0, report.TPOT.Key(report.Mean): 10.0, report.ITL.Key(report.Mean): 9.0,
		report.E2ELatency.Key(report.Mean): 1000.0, report.KeyOutputThroughputTokS: 500.0,
	}
	ln2 := math.Log(2)
	b := Bands{
		TTFT: Band{-ln2, ln2, 7}, TPOT: Band{0, ln2, 8}, E2E: Band{-ln2, 0, 9}, OutputThroughput: Band{0, 0, 9},
	}
	o := Object(summary, b, report.IntervalSourceDefault, "vllm/agg/c1-32")
	want := map[string][2]float64{
		"mean_ttft_ms": {50, 200}, "mean_tpot_ms": {10, 20}, "mean_itl_ms": {9, 18},
		"mean_e2e_latency_ms": {500, 1000}, "output_throughput_tok_s": {500, 500},
	}
	for k, w := range want {
		lo, hi, ok := report.IntervalOf(o, k)
		if !ok || math.Abs(lo-w[0]) > 1e-9*w[0] || math.Abs(hi-w[1]) > 1e-9*w[1] {
			t.Errorf("%s: [%v, %v] ok=%v, want %v", k, lo, hi, ok, w)
		}
	}
	if o["source"] != "default" || o["group"] != "vllm/agg/c1-32" {
		t.Errorf("source/group = %v / %v", o["source"], o["group"])
	}
	if n := o["mean_itl_ms"].(map[string]any)["n"]; n != 8 {
		t.Errorf("ITL uses the TPOT band: n = %v, want 8", n)
	}
}
