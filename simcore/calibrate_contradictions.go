package simcore

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// LoadFallTolerance is how far a deployment's mean TTFT or TPOT may fall from one load to the
// next higher one before calibrate warns: 15 %, above the difference of nine in ten pairs of
// repeated runs of one deployment at one load (docs/calibration.md, "Measurements that
// contradict a closed loop", where the figures are).
const LoadFallTolerance = 0.15

// loadWarnings are the warnings of measurements whose mean latency falls as their load rises
// on one deployment (docs/calibration.md, "Measurements that contradict a closed loop"): per
// series of measurements of one profile entry with the same replicas, mean lengths and kind of
// load, ordered by load, every measurement at one load against every one at the next higher
// load, for mean TTFT and then mean TPOT, in input order.
func loadWarnings(points []*measuredPoint) []string {
	var keys []string
	series := map[string][]*measuredPoint{}
	for _, p := range points {
		k := seriesKey(p)
		if _, ok := series[k]; !ok {
			keys = append(keys, k)
		}
		series[k] = append(series[k], p)
	}
	warnings := []string{}
	for _, k := range keys {
		s := series[k]
		sort.SliceStable(s, func(i, j int) bool { return load(s[i]) < load(s[j]) })
		// levels[i] is the first index of the i-th distinct load.
		var levels []int
		for i := range s {
			if i == 0 || load(s[i]) != load(s[i-1]) {
				levels = append(levels, i)
			}
		}
		levels = append(levels, len(s))
		for l := 0; l+2 < len(levels); l++ {
			for _, lo := range s[levels[l]:levels[l+1]] {
				for _, hi := range s[levels[l+1]:levels[l+2]] {
					warnings = append(warnings, fallWarnings(lo, hi)...)
				}
			}
		}
	}
	return warnings
}

// seriesKey names the series a measurement belongs to: its profile entry (the deployment
// scope, length draw included), the replicas of each role (the scope leaves them out, but
// they share the load), the lengths the client was given (its settings when the file records
// them, else the mean lengths) and whether the load is a concurrency or a rate.
func seriesKey(p *measuredPoint) string {
	m := p.m
	var b strings.Builder
	b.WriteString(p.key)
	roles := roleWorkers(&p.cfg.Engine)
	names := make([]string, 0, len(roles))
	for name := range roles {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(&b, "|%s×%d", name, roles[name].Parallelism.Replicas)
	}
	isl, osl := m.ISL, m.OSL
	if m.DrawISL > 0 && m.DrawOSL > 0 {
		isl, osl = m.DrawISL, m.DrawOSL
	}
	fmt.Fprintf(&b, "|%d/%d|open %t", isl, osl, m.Concurrency == 0)
	return b.String()
}

// load is a measurement's load: its concurrency, or its request rate for an open loop.
func load(p *measuredPoint) float64 {
	if p.m.Concurrency > 0 {
		return float64(p.m.Concurrency)
	}
	return p.m.RequestRate
}

// loadText is a measurement's load as the warnings name it.
func loadText(p *measuredPoint) string {
	if p.m.Concurrency > 0 {
		return "concurrency " + strconv.Itoa(p.m.Concurrency)
	}
	return "request rate " + strconv.FormatFloat(p.m.RequestRate, 'g', -1, 64) + " req/s"
}

// fallWarnings are the warnings of a measurement hi at a higher load than lo whose mean TTFT
// or TPOT is below (1 − LoadFallTolerance) × lo's.
func fallWarnings(lo, hi *measuredPoint) []string {
	var ws []string
	for _, c := range []struct {
		metric, format string
		lo, hi         float64
	}{
		{"TTFT", "%.1f", lo.m.TTFT, hi.m.TTFT},
		{"TPOT", "%.2f", lo.m.TPOT, hi.m.TPOT},
	} {
		if !(c.hi < (1-LoadFallTolerance)*c.lo) {
			continue
		}
		ws = append(ws, fmt.Sprintf("%s (%s) has a mean %s of "+c.format+" ms, %.1f %% below the "+c.format+" ms of %s (%s) on the same deployment: "+
			"one deployment's mean latency cannot fall as its load rises, so either the lower-load run included a warm-up or the two runs "+
			"come from different campaigns or deployments; re-measure both, or leave one out (the profile fits both, so its predictions "+
			"between the two loads will miss)",
			hi.m.Name(), loadText(hi), c.metric, c.hi, 100*(1-c.hi/c.lo), c.lo, lo.m.Name(), loadText(lo)))
	}
	return ws
}
