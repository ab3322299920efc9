// Command recommendbench is the recommend benchmark (docs/recommend.md, "Speed"): with -bin
// it times `aisimulate recommend` with the screened (at -screened-trials trials), bayesian
// and random optimisers (wall and CPU time, trials per second, best score, the trial that
// found it); then it evaluates every point of the search space natively, with the same
// evaluation as `aisimulate recommend`, and prints how close each optimiser came to the
// exhaustive best. With -seeds N it also runs each optimiser natively with seeds 1..N and prints
// the mean best as a share of the exhaustive best, how many seeds reached it, and the share of
// trials outside the GPU budget (the optimiser comparison of docs/recommend.md, "Speed").
//
//	go run ./tools/recommendbench [-bin bin/aisimulate] [-workers N] [-seeds N] examples/recommend-bench.yaml
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"aisimulate/simcore"
	"aisimulate/simcore/recommend"
)

func main() {
	workers := flag.Int("workers", runtime.GOMAXPROCS(0), "concurrent evaluations")
	limit := flag.Int("limit", 50000, "refuse spaces with more points")
	bin := flag.String("bin", "", "time this aisimulate binary's recommend with both optimisers first")
	exhaustive := flag.Bool("exhaustive", true, "evaluate the whole space")
	seeds := flag.Int("seeds", 0, "also run each optimiser natively with seeds 1..N")
	screenedTrials := flag.Int("screened-trials", 60, "optimizer.max_trials of the screened run")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: recommendbench [-bin BINARY] [-workers N] [-exhaustive=false] RECOMMENDATION.yaml")
		os.Exit(2)
	}
	best := map[string]float64{}
	if *bin != "" {
		for _, alg := range algorithms {
			var sets []string
			if alg == "screened" {
				sets = []string{"optimizer.max_trials=" + fmt.Sprint(*screenedTrials)}
			}
			b, err := timeCLI(*bin, flag.Arg(0), alg, sets...)
			if err != nil {
				fmt.Fprintln(os.Stderr, "recommendbench:", err)
				os.Exit(1)
			}
			best[alg] = b
		}
		if best["bayesian"] >= best["random"] {
			fmt.Println("bayesian >= random: yes")
		} else {
			fmt.Println("bayesian >= random: NO")
		}
	}
	if !*exhaustive {
		return
	}
	top, err := run(flag.Arg(0), *workers, *limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "recommendbench:", err)
		os.Exit(1)
	}
	for _, alg := range algorithms {
		if b, ok := best[alg]; ok {
			fmt.Printf("%s: %.2f%% of the exhaustive best\n", alg, 100*b/top)
		}
	}
	if *seeds > 0 {
		if err := compareSeeds(flag.Arg(0), *seeds, top); err != nil {
			fmt.Fprintln(os.Stderr, "recommendbench:", err)
			os.Exit(1)
		}
	}
}

// nativeSearch runs one whole search in process (rounds of the configured parallelism,
// evaluated one after the other), as simcore.Recommend does, and returns it.
func nativeSearch(path string, text []byte, alg string, seed int) (*recommend.Search, error) {
	in := simcore.RecommendInput{ConfigName: path, ConfigYAML: text, Files: os.DirFS("."),
		Sets: []string{"optimizer.algorithm=" + alg, fmt.Sprintf("optimizer.seed=%d", seed)}}
	r, err := simcore.NewRecommender(in)
	if err != nil {
		return nil, err
	}
	if _, err := r.Run(func(reqs []simcore.EvaluationRequest) ([][]byte, error) {
		outs := make([][]byte, len(reqs))
		for i, q := range reqs {
			outs[i] = simcore.Evaluate(q, in.Files)
		}
		return outs, nil
	}, nil); err != nil {
		return nil, err
	}
	return r.Search(), nil
}

// compareSeeds runs both optimisers natively (simcore.Recommend, in process) with seeds
// 1..n and prints, per optimiser, the mean best score as a share of the exhaustive best top,
// how many seeds reached top, and the share of trials outside the GPU budget.
func compareSeeds(path string, n int, top float64) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	mean := map[string]float64{}
	for _, alg := range []string{"bayesian", "random"} {
		sum, over, reached, trials := 0.0, 0, 0, 0
		start := time.Now()
		for seed := 1; seed <= n; seed++ {
			search, err := nativeSearch(path, text, alg, seed)
			if err != nil {
				return err
			}
			best := 0.0
			for _, c := range search.Candidates() {
				if c.Status == recommend.StatusFeasible {
					best = math.Max(best, c.Score)
				}
				if c.ReasonCategory == "gpus" {
					over += len(c.Trials)
				}
				trials += len(c.Trials)
			}
			sum += best
			if best >= top {
				reached++
			}
		}
		mean[alg] = sum / float64(n)
		fmt.Printf("%s over seeds 1..%d: mean best %.2f%% of the exhaustive best, reached it %d times, %.1f%% of trials outside the GPU budget (%.1f s)\n",
			alg, n, 100*mean[alg]/top, reached, 100*float64(over)/float64(trials), time.Since(start).Seconds())
	}
	if mean["bayesian"] > mean["random"] {
		fmt.Println("bayesian > random over seeds: yes")
	} else {
		fmt.Println("bayesian > random over seeds: NO")
	}
	return nil
}

// algorithms are the optimisers the benchmark times.
var algorithms = []string{"screened", "bayesian", "random"}

// timeCLI runs `recommend` once through the binary with one optimiser (and the extra --set
// assignments) and prints its wall and CPU time, trials per second, best score and the trial
// that found it.
func timeCLI(bin, config, alg string, sets ...string) (float64, error) {
	dir, err := os.MkdirTemp("", "recommendbench-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	start := time.Now()
	args := []string{"recommend", "--stack", "dynamo", "--config", config, "--set", "optimizer.algorithm=" + alg,
		"--output-dir", filepath.Join(dir, "out"), "--format", "json"}
	for _, s := range sets {
		args = append(args, "--set", s)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	if _, err := cmd.Output(); err != nil {
		return 0, fmt.Errorf("%s: %v", alg, err)
	}
	wall := time.Since(start).Seconds()
	cpu := (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	raw, err := os.ReadFile(filepath.Join(dir, "out", "recommendation.json"))
	if err != nil {
		return 0, err
	}
	var doc struct {
		Counts     map[string]int `json:"counts"`
		Provenance struct {
			Trials    int    `json:"trials"`
			Target    string `json:"target"`
			BestTrial *int   `json:"best_trial"`
			Screen    *struct {
				RankCorrelation *float64 `json:"rank_correlation"`
			} `json:"screen"`
		} `json:"provenance"`
		Candidates []struct {
			ID    string   `json:"candidate_id"`
			Score *float64 `json:"score"`
		} `json:"candidates"`
		Views struct {
			TopN []string `json:"top_n"`
		} `json:"views"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return 0, err
	}
	best := math.Inf(-1)
	for _, c := range doc.Candidates {
		if len(doc.Views.TopN) > 0 && c.ID == doc.Views.TopN[0] && c.Score != nil {
			best = *c.Score
		}
	}
	n := doc.Provenance.Trials
	found := "none"
	if doc.Provenance.BestTrial != nil {
		found = fmt.Sprint(*doc.Provenance.BestTrial)
	}
	rho := ""
	if sc := doc.Provenance.Screen; sc != nil && sc.RankCorrelation != nil {
		rho = fmt.Sprintf("; screen rank correlation %.3f", *sc.RankCorrelation)
	}
	fmt.Printf("%s: %d trials (%d simulated, %d cache hits) in %.1f s wall, %.1f s CPU = %.1f trials/s; best %s %.6g found at trial %s%s\n",
		alg, n, doc.Counts["evaluated"], doc.Counts["cache_hits"], wall, cpu, float64(n)/wall, doc.Provenance.Target, best, found, rho)
	return best, nil
}

func run(path string, workers, limit int) (float64, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	in := simcore.RecommendInput{ConfigName: path, ConfigYAML: text, Files: os.DirFS(".")}
	rc, err := simcore.NewRecommender(in)
	if err != nil {
		return 0, err
	}
	rec, space := rc.Recommendation(), rc.Search().Space()
	points, err := space.Enumerate(limit)
	if err != nil {
		return 0, err
	}
	// Distinct concrete configurations within the GPU budget.
	type job struct {
		key  string
		tree map[string]any
	}
	seen := map[string]bool{}
	var jobs []job
	for _, pt := range points {
		tree, key, err := space.Concrete(pt)
		if err != nil {
			return 0, err
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		jobs = append(jobs, job{key, tree})
	}
	start := time.Now()
	budget := simcore.WorkBudget(rec.Optimizer)
	scores := make([]float64, len(jobs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out := simcore.EvaluateCandidate(path, jobs[i].tree, in.Files, budget)
				scores[i] = recommend.ScoreOutcome(rec, jobs[i].tree, out)
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	best, feasible := math.Inf(-1), 0
	for _, s := range scores {
		if !math.IsInf(s, -1) {
			feasible++
			best = math.Max(best, s)
		}
	}
	fmt.Printf("exhaustive: %d points, %d distinct configurations, %d feasible, best %s score %.6g, %.1f s with %d workers\n",
		len(points), len(jobs), feasible, rec.Optimization.Target, best, time.Since(start).Seconds(), workers)
	return best, nil
}
