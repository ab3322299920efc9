package traffic

import "aisimulate/simcore/hashtab"

// MarkShared sets Turn.SharedTokens on a materialised workload: the length of the longest
// prompt prefix (in whole segments) that some other request also starts with. It walks a
// trie of prompt segments and counts the requests through every node. Turns that generate
// explicit output tokens (their next turn repeats them) stay unknown (all shareable).
func MarkShared(w *Workload) *Workload {
	// Nodes are keyed by token only, not run length: two prompts whose runs of one token
	// differ in length still share the shorter run's blocks. This over-approximates sharing,
	// which is always safe (shareable blocks are simply indexed). A node's key packs its
	// parent node (+2, so it is never 0) and the token.
	nodes := hashtab.New(1024)
	var counts []int32
	nodeKey := func(parent int32, token uint32) uint64 {
		return hashtab.Spread(uint64(parent+2)<<32 | uint64(token))
	}
	// count walks a token sequence (several segment lists in a row) adding one visit per node.
	count := func(lists ...[]Segment) {
		parent := int32(-1)
		for _, l := range lists {
			for _, sg := range l {
				sg.Runs(func(token uint32, _ int) {
					k := nodeKey(parent, token)
					n, ok := nodes.Get(k)
					if !ok {
						n = int32(len(counts))
						nodes.Put(k, n)
						counts = append(counts, 0)
					}
					counts[n]++
					parent = n
				})
			}
		}
	}
	var turns []*Turn
	if w.Graph != nil {
		for i := range w.Graph.Nodes {
			turns = append(turns, &w.Graph.Nodes[i].Turn)
		}
	} else {
		var sessions []Session
		for {
			s, ok := w.Next()
			if !ok {
				break
			}
			sessions = append(sessions, s)
		}
		w.SingleTurn = true
		for i := range sessions {
			if len(sessions[i].Turns) != 1 {
				w.SingleTurn = false
			}
			for k := range sessions[i].Turns {
				turns = append(turns, &sessions[i].Turns[k])
			}
		}
		i := 0
		w.Next = func() (Session, bool) {
			if i >= len(sessions) {
				return Session{}, false
			}
			i++
			return sessions[i-1], true
		}
	}
	for _, t := range turns {
		count(t.Prompt)
		if t.OutputTokens != nil {
			// The next turn repeats prompt + outputs; the generated blocks are shareable.
			count(t.Prompt, t.OutputTokens)
		}
	}
	for _, t := range turns {
		if t.OutputTokens != nil {
			t.SharedTokens, t.SharedKnown = 0, false
			continue
		}
		// Leading segments whose node is visited by at least two sequences.
		tokens := 0
		parent := int32(-1)
		shared := true
		for _, sg := range t.Prompt {
			sg.Runs(func(token uint32, count int) {
				if !shared {
					return
				}
				n, _ := nodes.Get(nodeKey(parent, token))
				if counts[n] < 2 {
					shared = false
					return
				}
				tokens += count
				parent = n
			})
			if !shared {
				break
			}
		}
		t.SharedTokens, t.SharedKnown = min(tokens, t.InputLength), true
	}
	return w
}
