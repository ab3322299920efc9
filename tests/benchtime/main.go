// Command benchtime times `aisimulate predict` on benchmark configurations without external
// tools: one warm-up run (fills the compilation cache), then -runs timed runs per config.
// It prints min and median process wall time, min and median CPU time (user + system of the
// process), the simulator's own wall_time_ms, simulated requests per second (num_requests /
// median wall time, and / median CPU time), and the share of the machine's CPU time the
// hypervisor took from this VM while the runs lasted (steal, from /proc/stat). On a shared
// VM wall time grows with steal, and CPU time drifts with the host's load as well (the
// development VM's ran 1.7× slower in some hours than others at 2–11 % steal), so both are
// printed, with the steal.
//
// Two summary lines follow, meant to be compared across builds (docs/performance.md):
// -startup CONFIG prints start-up, the best CPU time of 3 runs of CONFIG (the quickstart)
// with the warm compilation cache; -capture CONFIG prints CPU time and peak resident memory
// of CONFIG with and without --capture-per-request (best of 2 each, interleaved) and their
// ratio.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("bin", "bin/aisimulate", "aisimulate binary")
	runs := flag.Int("runs", 5, "timed runs per configuration")
	startup := flag.String("startup", "", "configuration whose best CPU time of 3 runs is start-up")
	capture := flag.String("capture", "", "configuration timed with and without --capture-per-request")
	flag.Parse()
	out, err := os.MkdirTemp("", "aisim-bench-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(out)
	fmt.Printf("%-28s %4s %9s %9s %9s %9s %9s %8s %10s %10s %6s\n", "config", "runs",
		"min ms", "median ms", "min cpu", "med cpu", "sim wall", "requests", "req/s", "req/cpu-s", "steal")
	for _, cfg := range flag.Args() {
		run := func() (wall, cpu time.Duration) {
			start := time.Now()
			cmd := exec.Command(*bin, "predict", "--stack", "dynamo", "--config", cfg,
				"--output-dir", out, "--overwrite", "--format", "json")
			cmd.Stderr = os.Stderr
			if err := cmd.Run(); err != nil {
				fatal(fmt.Errorf("%s: %v", cfg, err))
			}
			wall = time.Since(start)
			return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		run() // warm-up
		before, stealOK := readCPUStat()
		walls, cpus := make([]time.Duration, *runs), make([]time.Duration, *runs)
		for i := range walls {
			walls[i], cpus[i] = run()
		}
		after, _ := readCPUStat()
		sortDurations(walls)
		sortDurations(cpus)
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
		med, medCPU := walls[len(walls)/2], cpus[len(cpus)/2]
		steal := "-"
		if stealOK {
			if total := after.total - before.total; total > 0 {
				steal = fmt.Sprintf("%.0f%%", 100*float64(after.steal-before.steal)/float64(total))
			}
		}
		n := float64(pred.Summary.NumRequests)
		fmt.Printf("%-28s %4d %9.1f %9.1f %9.1f %9.1f %9.1f %8d %10.0f %10.0f %6s\n", filepath.Base(cfg), *runs,
			ms(walls[0]), ms(med), ms(cpus[0]), ms(medCPU), pred.Summary.WallTimeMs,
			pred.Summary.NumRequests, n/med.Seconds(), n/medCPU.Seconds(), steal)
	}
	summaries(*bin, out, *startup, *capture)
}

// measured is one run: its CPU time (user + system) and peak resident memory.
type measured struct {
	cpu time.Duration
	rss int64 // bytes
}

// runOnce runs `predict` of cfg with extra flags, writing into out.
func runOnce(bin, out, cfg string, extra ...string) measured {
	args := append([]string{"predict", "--stack", "dynamo", "--config", cfg, "--output-dir", out, "--overwrite", "--format", "json"}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fatal(fmt.Errorf("%s %v: %v", cfg, extra, err))
	}
	m := measured{cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		m.rss = ru.Maxrss * 1024 // Linux reports kilobytes
	}
	return m
}

// best is the run of least CPU time and the largest peak memory of runs.
func best(runs []measured) measured {
	b := runs[0]
	for _, r := range runs[1:] {
		b.cpu, b.rss = min(b.cpu, r.cpu), max(b.rss, r.rss)
	}
	return b
}

// summaries prints the start-up and capture lines.
func summaries(bin, out, startup, capture string) {
	if startup != "" {
		runOnce(bin, out, startup) // fills the compilation cache
		var rs []measured
		for range 3 {
			rs = append(rs, runOnce(bin, out, startup))
		}
		fmt.Printf("start-up: %s, best of 3 with the warm cache: %.3f CPU-s\n", filepath.Base(startup), best(rs).cpu.Seconds())
	}
	if capture != "" {
		var plain, captured []measured
		for range 2 {
			plain = append(plain, runOnce(bin, out, capture))
			captured = append(captured, runOnce(bin, out, capture, "--capture-per-request"))
		}
		p, c := best(plain), best(captured)
		fmt.Printf("capture: %s, best of 2: %.2f CPU-s and %d MB peak without, %.2f CPU-s and %d MB with --capture-per-request (%.1f×)\n",
			filepath.Base(capture), p.cpu.Seconds(), p.rss>>20, c.cpu.Seconds(), c.rss>>20, c.cpu.Seconds()/p.cpu.Seconds())
	}
}

// cpuStat is the machine-wide CPU time from the first line of /proc/stat, in clock ticks.
type cpuStat struct{ total, steal uint64 }

// readCPUStat reads /proc/stat's "cpu" line (user nice system idle iowait irq softirq steal
// …); ok is false where there is no such file or no steal column.
func readCPUStat() (s cpuStat, ok bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return s, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line)
	if len(fields) < 9 || fields[0] != "cpu" {
		return s, false
	}
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return s, false
		}
		if i < 8 { // guest time (fields 9, 10) is already counted in user time
			s.total += v
		}
		if i == 7 {
			s.steal = v
		}
	}
	return s, true
}

func sortDurations(d []time.Duration) {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "benchtime:", err)
	os.Exit(1)
}
