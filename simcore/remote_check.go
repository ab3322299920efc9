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

// remoteCheck evaluates a recommendation's rounds on remote evaluators and proves their
// answers: every outcome is checked for shape and range as it arrives, and after the search
// the outcomes that reach the written views, plus a seeded sample of the others, are
// recomputed by a trusted evaluator and compared byte for byte. Since an evaluation is
// deterministic, any difference proves the remote wrong; it is then distrusted and all of its
// outcomes are recomputed.
type remoteCheck struct {
	in RecommendInput
	// known are the outcomes so far by request (an EvaluationRequest is comparable), with
	// the remote that answered each ("" trusted).
	known map[EvaluationRequest]RemoteOutcome
	// checked are the remote outcomes a trusted evaluator confirmed.
	checked map[EvaluationRequest]bool
	// distrusted are the remotes found wrong, in order, and the same as a set.
	distrusted []recommend.Distrusted
	wrong      map[string]bool
}

func newRemoteCheck(in RecommendInput) *remoteCheck {
	return &remoteCheck{in: in, known: map[EvaluationRequest]RemoteOutcome{}, checked: map[EvaluationRequest]bool{}, wrong: map[string]bool{}}
}

// distrust records remote as wrong (once) and tells the host.
func (c *remoteCheck) distrust(remote, reason string) {
	if c.wrong[remote] {
		return
	}
	c.wrong[remote] = true
	c.distrusted = append(c.distrusted, recommend.Distrusted{Remote: remote, Reason: reason})
	if c.in.Distrust != nil {
		c.in.Distrust(remote, reason)
	}
}

// evaluateRound returns the outcomes of one round's requests: known ones from an evaluator
// still trusted are reused, those of a distrusted remote are recomputed by a trusted
// evaluator, new ones go to the remotes; a remote outcome that fails DecodeOutcome or
// CheckOutcome distrusts its remote and is recomputed.
func (c *remoteCheck) evaluateRound(reqs []EvaluationRequest) ([]recommend.Outcome, error) {
	var fresh, redo []int
	for i, r := range reqs {
		k, ok := c.known[r]
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
		got, err := c.in.Remote(sub)
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
			c.known[reqs[i]] = g
		}
	}
	if err := c.recompute(reqs, redo); err != nil {
		return nil, err
	}
	outcomes := make([]recommend.Outcome, len(reqs))
	for i, r := range reqs {
		o, err := DecodeOutcome(c.known[r].Outcome)
		if err != nil {
			return nil, err
		}
		outcomes[i] = o
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
	raw, err := evaluateTrusted(sub, c.in)
	if err != nil {
		return err
	}
	for j, r := range sub {
		c.known[r] = RemoteOutcome{Outcome: raw[j]}
	}
	return nil
}

// verify recomputes with a trusted evaluator the remote outcomes of the candidates the
// search's views name and of a seeded sample of its other candidates, those not confirmed
// before. A difference distrusts the remote that answered (the trusted bytes replace its
// answer); found reports whether any remote was found wrong, so the search must run again.
func (c *remoteCheck) verify(search *recommend.Search, seed uint64, budget int64) (found bool, err error) {
	// A remote distrusted during the search had answered earlier rounds: the search saw
	// those answers, so it runs again (evaluateRound recomputes them).
	for _, cand := range search.Candidates() {
		if k, ok := c.known[NewEvaluationRequest(c.in.ConfigName, cand.Tree, budget)]; ok && c.wrong[k.Remote] {
			return true, nil
		}
	}
	written := search.Written()
	inViews := map[*recommend.Candidate]bool{}
	var picks []EvaluationRequest
	pick := func(cand *recommend.Candidate) bool {
		r := NewEvaluationRequest(c.in.ConfigName, cand.Tree, budget)
		k, ok := c.known[r]
		if !ok || k.Remote == "" || c.checked[r] {
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
		r := NewEvaluationRequest(c.in.ConfigName, cand.Tree, budget)
		if k, ok := c.known[r]; ok && k.Remote != "" && !inViews[cand] && !c.checked[r] {
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
	raw, err := evaluateTrusted(picks, c.in)
	if err != nil {
		return false, err
	}
	for i, r := range picks {
		k := c.known[r]
		if !bytes.Equal(raw[i], k.Outcome) {
			c.distrust(k.Remote, fmt.Sprintf("its outcome of a candidate differs from this build's (%s)", firstDifference(k.Outcome, raw[i])))
			found = true
		} else {
			c.checked[r] = true
		}
		c.known[r] = RemoteOutcome{Outcome: raw[i]}
	}
	return found, nil
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
