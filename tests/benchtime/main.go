// Command benchtime times `aisimulate predict` on benchmark configurations without external
// tools: one warm-up run (fills the compilation cache), then -runs timed runs per config.
// It prints min and median process wall time, the simulator's own wall_time_ms, and
// simulated requests per second (num_requests / median process time).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/aisimulate", "aisimulate binary")
	runs := flag.Int("runs", 5, "timed runs per configuration")
	flag.Parse()
	out, err := os.MkdirTemp("", "aisim-bench-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(out)
	fmt.Printf("%-40s %5s %10s %10s %12s %10s %14s\n", "config", "runs", "min ms", "median ms", "sim wall ms", "requests", "requests/s")
	for _, cfg := range flag.Args() {
		run := func() time.Duration {
			start := time.Now()
			cmd := exec.Command(*bin, "predict", "--stack", "dynamo", "--config", cfg,
				"--output-dir", out, "--overwrite", "--format", "json")
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				fatal(fmt.Errorf("%s: %v", cfg, err))
			}
			return time.Since(start)
		}
		run() // warm-up
		times := make([]time.Duration, *runs)
		for i := range times {
			times[i] = run()
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		b, err := os.ReadFile(filepath.Join(out, "prediction.json"))
		if err != nil {
			fatal(err)
		}
		var pred struct {
			Summary struct {
				NumRequests int     `json:"num_requests"`
				WallTimeMs  float64 `json:"wall_time_ms"`
			}
		}
		if err := json.Unmarshal(b, &pred); err != nil {
			fatal(err)
		}
		med := times[len(times)/2]
		fmt.Printf("%-40s %5d %10.1f %10.1f %12.1f %10d %14.0f\n", filepath.Base(cfg), *runs,
			ms(times[0]), ms(med), pred.Summary.WallTimeMs, pred.Summary.NumRequests,
			float64(pred.Summary.NumRequests)/med.Seconds())
	}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchtime:", err)
	os.Exit(1)
}
