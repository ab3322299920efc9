package simcore

import (
	"bytes"
	"fmt"

	"aisimulate/simcore/internal/rng"
	"aisimulate/simcore/recommend"
)

// RemoteOutcome is one outcome of RecommendInput.Remote: Evaluate's bytes as an evaluator
// answered them, and the remote that answered ("" when a trusted evaluator did, such as a
// local instance taking a request a remote refused as over its limits).
type RemoteOutcome struct {
	Outcome []byte
	Remote  string
}

// Sampling of the outcomes a remote check recomputes beyond the written views
// (docs/recommend.md, "Checking remote workers"): a fraction of the other remote outcomes,
// at least remoteSampleMin of them (all when fewer), drawn from the optimizer's seed.
const (
	remoteSampleFraction = 0.05
	remoteSampleMin      = 4
)

// Remote are the evaluators of RunChecked that are not trusted (--remote workers).
type Remote struct {
	// Evaluate evaluates one round's requests, each outcome with the remote that answered it.
	Evaluate func(reqs []EvaluationRequest) ([]RemoteOutcome, error)
	// Distrust, when non-nil, is told of each remote found wrong: send it nothing more.
	Distrust func(remote, reason string)
}

// RunChecked is Run on untrusted evaluators (docs/recommend.md, "Checking remote workers"):
// the rounds go to remote, and each outcome is checked (CheckOutcome) as it arrives; after
// the search the outcomes the result names and a seeded sample of the others are recomputed
// with the trusted evaluate (nil: here, one after the other) and compared byte for byte. When
// a remote is found wrong, it is distrusted and a new Recommender runs the search again from
// the start on corrected outcomes (the ones already known are not evaluated again), so the
// result is the one a local run gives; its wall time counts from this search's first round.
func (r *Recommender) RunChecked(remote Remote, evaluate func([]EvaluationRequest) ([][]byte, error), progress func(done, total int, best float64)) (*recommend.Result, error) {
	check := &remoteCheck{in: r.in, remote: remote, evaluate: evaluate, known: map[evaluationKey]RemoteOutcome{},
		checked: map[evaluationKey]bool{}, wrong: map[string]bool{}}
	first := r
	for {
		if err := r.runRounds(check.evaluateRound, progress); err != nil {
			return nil, err
		}
		r.t0 = first.t0
		r.distrusted = check.distrusted
		res, err := r.Result()
		if err != nil {
			return nil, err
		}
		found, err := check.verify(r, res)
		if err != nil || !found {
			return res, err
		}
		if r, err = NewRecommender(r.in); err != nil {
			return nil, err
		}
	}
}

// remoteCheck evaluates a recommendation's rounds on remote evaluators and proves their
// answers: every outcome is checked for shape and range as it arrives, and after the search
// the outcomes the result names, plus a seeded sample of the others, are recomputed by a
// trusted evaluator and compared byte for byte. Since an evaluation is deterministic, any
// difference proves the remote wrong; it is then distrusted and all of its outcomes are
// recomputed.
type remoteCheck struct {
	in RecommendInput
	// remote are the untrusted evaluators, evaluate the trusted ones (nil: here).
	remote   Remote
	evaluate func([]EvaluationRequest) ([][]byte, error)
	// known are the outcomes so far by request (evaluationKey), with
	// the remote that answered each ("" trusted).
	known map[evaluationKey]RemoteOutcome
	// checked are the remote outcomes a trusted evaluator confirmed.
	checked map[evaluationKey]bool
	// distrusted are the remotes found wrong, in order, and the same as a set.
	distrusted []recommend.Distrusted
	wrong      map[string]bool
}

// distrust records remote as wrong (once) and tells the host.
func (c *remoteCheck) distrust(remote, reason string) {
	if c.wrong[remote] {
		return
	}
	c.wrong[remote] = true
	c.distrusted = append(c.distrusted, recommend.Distrusted{Remote: remote, Reason: reason})
	if c.remote.Distrust != nil {
		c.remote.Distrust(remote, reason)
	}
}

// evaluateRound returns the outcome bytes of one round's requests: known ones from an evaluator
// still trusted are reused, those of a distrusted remote are recomputed by a trusted
// evaluator, new ones go to the remotes; a remote outcome that fails DecodeOutcome or
// CheckOutcome distrusts its remote and is recomputed.
func (c *remoteCheck) evaluateRound(reqs []EvaluationRequest) ([][]byte, error) {
	var fresh, redo []int
	for i, r := range reqs {
		k, ok := c.known[r.key()]
		switch {
		case !ok:
			fresh = append(fresh, i)
		case c.wrong[k.Remote]:
			redo = append(redo, i)
		}
	}
	if len(fresh) > 0 {
		sub := make([]EvaluationRequest, len(fresh))
		for j, i := range fresh {
			sub[j] = reqs[i]
		}
		got, err := c.remote.Evaluate(sub)
		if err != nil {
			return nil, err
		}
		if len(got) != len(sub) {
			return nil, fmt.Errorf("internal error: %d outcomes for %d evaluation requests", len(got), len(sub))
		}
		for j, i := range fresh {
			g := got[j]
			if g.Remote != "" {
				if c.wrong[g.Remote] {
					redo = append(redo, i)
					continue
				}
				o, err := DecodeOutcome(g.Outcome)
				if err == nil {
					err = CheckOutcome(o)
				}
				if err != nil {
					c.distrust(g.Remote, fmt.Sprintf("an outcome failed the checks: %v", err))
					redo = append(redo, i)
					continue
				}
			}
			c.known[reqs[i].key()] = g
		}
	}
	if err := c.recompute(reqs, redo); err != nil {
		return nil, err
	}
	outcomes := make([][]byte, len(reqs))
	for i, r := range reqs {
		outcomes[i] = c.known[r.key()].Outcome
	}
	return outcomes, nil
}

// recompute evaluates reqs[idx] on a trusted evaluator and records the outcomes as trusted.
func (c *remoteCheck) recompute(reqs []EvaluationRequest, idx []int) error {
	if len(idx) == 0 {
		return nil
	}
	sub := make([]EvaluationRequest, len(idx))
	for j, i := range idx {
		sub[j] = reqs[i]
	}
	raw, err := c.trusted(sub)
	if err != nil {
		return err
	}
	for j, r := range sub {
		c.known[r.key()] = RemoteOutcome{Outcome: raw[j]}
	}
	return nil
}

// trusted evaluates reqs on the trusted evaluators (c.evaluate, or here).
func (c *remoteCheck) trusted(reqs []EvaluationRequest) ([][]byte, error) {
	raw, err := evaluateWith(c.evaluate, reqs, c.in.Files)
	if err == nil && len(raw) != len(reqs) {
		err = fmt.Errorf("internal error: %d outcomes for %d evaluation requests", len(raw), len(reqs))
	}
	return raw, err
}

// verify recomputes with a trusted evaluator the remote outcomes of the candidates the
// finished search's result names (recommend.Result.Named) and of a seeded sample of its other
// candidates, those not confirmed before. A difference distrusts the remote that answered
// (the trusted bytes replace its answer); found reports whether any remote was found wrong,
// so the search must run again.
func (c *remoteCheck) verify(r *Recommender, res *recommend.Result) (found bool, err error) {
	search, seed, budget := r.Search(), r.rec.Optimizer.Seed, r.budget
	// A remote distrusted during the search had answered earlier rounds: the search saw
	// those answers, so it runs again (evaluateRound recomputes them).
	for _, cand := range search.Candidates() {
		if k, ok := c.known[c.in.evaluationRequest(cand.Tree, budget).key()]; ok && c.wrong[k.Remote] {
			return true, nil
		}
	}
	written := res.Named()
	inViews := map[*recommend.Candidate]bool{}
	var picks []EvaluationRequest
	pick := func(cand *recommend.Candidate) bool {
		r := c.in.evaluationRequest(cand.Tree, budget)
		k, ok := c.known[r.key()]
		if !ok || k.Remote == "" || c.checked[r.key()] {
			return false
		}
		picks = append(picks, r)
		return true
	}
	for _, cand := range written {
		inViews[cand] = true
		pick(cand)
	}
	var others []*recommend.Candidate
	for _, cand := range search.Candidates() {
		r := c.in.evaluationRequest(cand.Tree, budget)
		if k, ok := c.known[r.key()]; ok && k.Remote != "" && !inViews[cand] && !c.checked[r.key()] {
			others = append(others, cand)
		}
	}
	// A seeded partial Fisher–Yates shuffle picks the sample.
	n := max(remoteSampleMin, int(remoteSampleFraction*float64(len(others))+0.999999))
	stream := rng.New(seed, "recommend.remote_check")
	for i := 0; i < n && i < len(others); i++ {
		j := i + int(stream.UniformInt(uint64(len(others)-i)))
		others[i], others[j] = others[j], others[i]
		pick(others[i])
	}
	if len(picks) == 0 {
		return false, nil
	}
	raw, err := c.trusted(picks)
	if err != nil {
		return false, err
	}
	for i, r := range picks {
		k := c.known[r.key()]
		if !bytes.Equal(raw[i], k.Outcome) {
			c.distrust(k.Remote, fmt.Sprintf("its outcome of a candidate differs from this build's (%s)", firstDifference(k.Outcome, raw[i])))
			found = true
		} else {
			c.checked[r.key()] = true
		}
		c.known[r.key()] = RemoteOutcome{Outcome: raw[i]}
	}
	return found, nil
}

// evaluationKey identifies an evaluation request among one recommendation's: its
// calibration profiles and strictness are the same for all of them (RecommendInput), so the
// configuration and the budget tell the requests apart.
type evaluationKey struct {
	configName, configYAML string
	budgetSteps            int64
}

// key is r's evaluationKey.
func (r EvaluationRequest) key() evaluationKey {
	return evaluationKey{r.ConfigName, r.ConfigYAML, r.BudgetSteps}
}

// firstDifference describes where remote's bytes leave local's: the byte offset and a few
// bytes of each side, quoted (so no control character of a remote reaches a terminal).
func firstDifference(remote, local []byte) string {
	i := 0
	for i < len(remote) && i < len(local) && remote[i] == local[i] {
		i++
	}
	start := max(0, i-24)
	cut := func(b []byte) []byte { return b[min(start, len(b)):min(i+24, len(b))] }
	return fmt.Sprintf("at byte %d: %q, expected %q", i, cut(remote), cut(local))
}
