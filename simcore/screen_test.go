package simcore

import (
	"math"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/recommend"
	"aisimulate/simcore/spec"
)

// The small example's space, every point simulated, and the screened search with a quarter
// of its points as budget: the screen prices every point, the search is the default one, and
// its best is the exhaustive best.
func TestScreenedFindsTheExhaustiveBest(t *testing.T) {
	text, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRecommender(RecommendInput{ConfigName: "recommend-small.yaml", ConfigYAML: text, Sets: []string{"optimizer.max_trials=12"}})
	if err != nil {
		t.Fatal(err)
	}
	rec := r.Recommendation()
	if rec.Optimizer.Algorithm != spec.AlgorithmScreened {
		t.Fatalf("default algorithm %q, want screened", rec.Optimizer.Algorithm)
	}
	space := r.Search().Space()
	pts, err := space.Enumerate(1000)
	if err != nil {
		t.Fatal(err)
	}
	best := math.Inf(-1)
	for _, pt := range pts {
		tree, _, err := space.Concrete(pt)
		if err != nil {
			t.Fatal(err)
		}
		best = math.Max(best, recommend.ScoreOutcome(rec, tree, EvaluateCandidate("r.yaml", tree, nil, WorkBudget(rec.Optimizer))))
	}
	res, err := r.Run(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	sc := r.Search().ScreenStats()
	if sc == nil || sc.Points != len(pts) || sc.Priced != len(pts) || sc.Compared < 3 || !(sc.RankCorrelation > 0) {
		t.Errorf("screen stats %+v for %d points", sc, len(pts))
	}
	if len(res.Ranked) == 0 || res.Ranked[0].Score != best || res.Stats.BestTrial > 12 {
		t.Errorf("screened best %v at trial %d, exhaustive best %v", res.Ranked[0].Score, res.Stats.BestTrial, best)
	}
}

// Which optimiser runs when optimizer.algorithm is not given, and when an explicit screened
// is refused: a continuous range, a trace workload, a space over the limit.
func TestScreenedResolution(t *testing.T) {
	small, err := os.ReadFile("../examples/recommend-small.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		sets []string
		alg  string // the resolved algorithm, or "" for a configuration error
		msg  string
	}{
		{[]string{"optimizer.algorithm=random"}, spec.AlgorithmRandom, ""},
		{[]string{"traffic.load.concurrency={range: {min: 1, max: 8, scale: log}}"}, spec.AlgorithmBayesian, ""},
		{[]string{"traffic.load.concurrency={range: {min: 1, max: 8, scale: log}}", "optimizer.algorithm=screened"}, "",
			"optimizer.algorithm: screened cannot screen this search: the space has a continuous range"},
		{[]string{"engine.workers.aggregated.timing={type: fixed, prefill_ms: 1, decode_ms: 1}", "optimizer.algorithm=screened"}, "",
			"optimizer.algorithm: screened cannot screen this search: the surrogate prices synthetic requests"},
		{[]string{"traffic.load={type: poisson, requests_per_second: {choices: [5, 50]}}"}, spec.AlgorithmScreened, ""},
	} {
		r, err := NewRecommender(RecommendInput{ConfigName: "r.yaml", ConfigYAML: small, Sets: c.sets})
		switch {
		case c.alg == "":
			if _, ok := err.(*spec.Error); !ok || !strings.HasPrefix(err.Error(), c.msg) {
				t.Errorf("%v: error %v, want a configuration error %q", c.sets, err, c.msg)
			}
		case err != nil:
			t.Errorf("%v: %v", c.sets, err)
		case r.Recommendation().Optimizer.Algorithm != c.alg:
			t.Errorf("%v: algorithm %q, want %q", c.sets, r.Recommendation().Optimizer.Algorithm, c.alg)
		}
	}
}
