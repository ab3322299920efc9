package outputs

import (
	"aisimulate/simcore/internal/engine"
	"aisimulate/simcore/internal/replay"
	"aisimulate/simcore/report"
)

// Accounting is what the summary needs besides the requests.
type Accounting struct {
	Disaggregated        bool
	PrefillReplicas      int
	DecodeReplicas       int // aggregated replicas in aggregated mode
	PrefillGPUsPerWorker int
	DecodeGPUsPerWorker  int
	SLA                  *report.SLA
	WallTimeMs           float64
	// CatalogModel is the catalog id engine.model resolved to ("" for a local directory),
	// for the overview (report.Deployment.CatalogModel).
	CatalogModel string
}

// Summary builds the summary object of docs/semantics/outputs.md §3.2.
func Summary(res *replay.Result, acc Accounting) map[string]any {
	n := res.Outcomes.Len()
	ttft, ttst, tpot, e2e := NewDist(n), NewDist(n), NewDist(n), NewDist(n)
	itl := NewDist(len(res.Gaps))
	var completed, inTok, outTok, reused, firstReused, good, goodTok int64
	var durationMs float64
	for i := 0; i < n; i++ {
		r := res.Outcomes.At(i)
		if !isCompleted(r) {
			continue
		}
		completed++
		inTok += int64(r.L)
		outTok += int64(r.Tokens)
		reused += int64(r.Reuse)
		firstReused += int64(r.FirstReuse)
		if r.Terminal > durationMs {
			durationMs = r.Terminal
		}
		if r.Tokens >= 1 {
			t := nonNeg(r.FirstToken - r.Arrival)
			e := nonNeg(r.LastToken - r.Arrival)
			ttft.Add(t)
			e2e.Add(e)
			if r.Tokens >= 2 {
				ttst.Add(nonNeg(r.SecondToken - r.FirstToken))
				tpot.Add(nonNeg(r.LastToken-r.FirstToken) / float64(r.Tokens-1))
			}
			if acc.SLA != nil && isGood(acc.SLA, t, e, r.Tokens) {
				good++
				goodTok += int64(r.Tokens)
			}
		} else if acc.SLA != nil && acc.SLA.HasE2E && !acc.SLA.HasTTFT && !acc.SLA.HasITL && r.Terminal-r.Arrival <= acc.SLA.E2EMs {
			good++
		}
	}
	for _, g := range res.Gaps {
		itl.Add(nonNeg(g))
	}
	addGaps := func(ws []*engine.Worker) {
		for _, w := range ws {
			itl.AddPassGaps(w)
		}
	}
	addGaps(res.AggWorkers)
	addGaps(res.PrefillWorkers)
	addGaps(res.DecodeWorkers)

	durationS := max(durationMs/1000, 1e-9)
	rate := func(x int64) float64 {
		if durationMs > 0 {
			return float64(x) / durationS
		}
		return 0
	}
	m := map[string]any{}
	m[report.KeyNumRequests] = n
	m[report.KeyCompletedRequests] = completed
	m[report.KeyTotalInputTokens] = inTok
	m[report.KeyTotalOutputTokens] = outTok
	m[report.KeyDurationMs] = durationMs
	m[report.KeyWallTimeMs] = acc.WallTimeMs
	m[report.KeyRequestThroughputRPS] = rate(completed)
	m[report.KeyInputThroughputTokS] = rate(inTok)
	m[report.KeyOutputThroughputTokS] = rate(outTok)
	m[report.KeyTotalThroughputTokS] = rate(inTok + outTok)
	var prefWS, decWS float64
	if res.PrefillWorkerSeconds != nil {
		prefWS = *res.PrefillWorkerSeconds
	} else if acc.Disaggregated {
		prefWS = float64(acc.PrefillReplicas) * durationS
	}
	if res.DecodeWorkerSeconds != nil {
		decWS = *res.DecodeWorkerSeconds
	} else {
		decWS = float64(acc.DecodeReplicas) * durationS
	}
	if durationMs <= 0 && res.DecodeWorkerSeconds == nil {
		decWS, prefWS = 0, 0
	}
	pgpw := 0
	if acc.Disaggregated {
		pgpw = acc.PrefillGPUsPerWorker
	}
	m[report.KeyPrefillWorkerSeconds] = prefWS
	m[report.KeyDecodeWorkerSeconds] = decWS
	m[report.KeyPrefillGPUsPerWorker] = pgpw
	m[report.KeyDecodeGPUsPerWorker] = acc.DecodeGPUsPerWorker
	m[report.KeyGPUHours] = (float64(prefWS*float64(pgpw)) + float64(decWS*float64(acc.DecodeGPUsPerWorker))) / 3600
	processed := inTok + outTok
	m[report.KeyProcessedTokens] = processed
	if acc.WallTimeMs > 0 {
		m[report.KeyProcessedTokensPerS] = float64(processed) / acc.WallTimeMs * 1000
		m[report.KeyProcessedOutputTokensPerS] = float64(outTok) / acc.WallTimeMs * 1000
	} else {
		m[report.KeyProcessedTokensPerS] = 0.0
		m[report.KeyProcessedOutputTokensPerS] = 0.0
	}
	ratio := func(x int64) float64 {
		if inTok == 0 {
			return 0
		}
		return float64(x) / float64(inTok)
	}
	m[report.KeyPrefixCacheReusedRatio] = ratio(reused)
	m[report.KeyFirstAdmissionPrefixCacheReusedRatio] = ratio(firstReused)
	m[report.KeyNumTTFTSamples] = ttft.N()
	m[report.KeyNumTPOTSamples] = tpot.N()
	m[report.KeyNumE2ELatencySamples] = e2e.N()
	ttft.Stats().put(m, report.TTFT)
	ttst.Stats().put(m, report.TTST)
	tpot.Stats().put(m, report.TPOT)
	itl.Stats().put(m, report.ITL)
	perUser := itl.Reciprocal(1000) // 1000/gap over positive gaps (docs/semantics/outputs.md §4.1)
	e2e.Stats().put(m, report.E2ELatency)
	perUser.Stats().put(m, report.OutputTokenThroughputPerUser)
	if acc.SLA != nil {
		m[report.KeyGoodputCompletedRequests] = good
		m[report.KeyGoodputRequestThroughputRPS] = rate(good)
		m[report.KeyGoodputOutputThroughputTokS] = rate(goodTok)
	}
	if res.Trajectories != nil {
		putTrajectories(m, res)
	}
	return m
}

// isGood applies the inclusive SLA bounds of docs/semantics/outputs.md §4.3.
func isGood(s *report.SLA, ttft, e2e float64, n int) bool {
	return (!s.HasTTFT || ttftMet(s, ttft)) && (!s.HasE2E || e2eMet(s, e2e)) && (!s.HasITL || itlMet(s, ttft, e2e, n))
}

// ttftMet is the TTFT bound of docs/semantics/outputs.md §4.3 (inclusive).
func ttftMet(s *report.SLA, ttft float64) bool { return ttft <= s.TTFTMs }

// e2eMet is the E2E bound of docs/semantics/outputs.md §4.3 (inclusive).
func e2eMet(s *report.SLA, e2e float64) bool { return e2e <= s.E2EMs }

// itlMet is the ITL bound of docs/semantics/outputs.md §4.3: the request's mean gap after the first token,
// (e2e − ttft)/(n − 1), at most the bound; a one-token request has no gap and meets it.
func itlMet(s *report.SLA, ttft, e2e float64, n int) bool {
	return n <= 1 || (e2e-ttft)/float64(n-1) <= s.ITLMs
}
