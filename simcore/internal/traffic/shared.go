package traffic

import "aisimulate/simcore/internal/hashtab"

// MarkShared sets Turn.SharedTokens on a materialised workload: the length of the longest
// prompt prefix (in whole segments) that some other request also starts with. It walks a
// trie of prompt segments and counts the requests through every node. Turns that generate
// explicit output tokens (their next turn repeats them) stay unknown (all shareable).
func MarkShared(w *Workload) *Workload {
	// Nodes are keyed by token only, not run length: two prompts whose runs of one token
	// differ in length still share the shorter run's blocks. This over-approximates sharing,
	// which is always safe (shareable blocks are simply indexed). Keys are token+1 (the tree
	// wants nonzero keys). The tree remembers each node's last child, so a conversation's
	// turn that repeats its previous turn's prompt walks it without table probes.
	var tree hashtab.Tree
	var counts []int32 // by node
	// visit walks from parent to its child for token, counting one more visit.
	visit := func(parent int32, token uint32) int32 {
		n := tree.Child(parent, uint64(token)+1)
		for len(counts) < tree.Len() {
			counts = append(counts, 0)
		}
		counts[n]++
		return n
	}
	// count walks a token sequence (several segment lists in a row) adding one visit per node.
	count := func(lists ...[]Segment) {
		parent := hashtab.Root
		for _, l := range lists {
			for _, sg := range l {
				if sg.Stride == 0 { // one run: no closure call
					parent = visit(parent, sg.Token)
					continue
				}
				sg.Runs(func(token uint32, _ int) { parent = visit(parent, token) })
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
		// Leading segments whose node is visited by at least two sequences. Every node of
		// the prompt exists (count walked it), so Child only finds them.
		tokens := 0
		parent := hashtab.Root
		shared := true
		step := func(token uint32, count int) {
			if !shared {
				return
			}
			n := tree.Child(parent, uint64(token)+1)
			if counts[n] < 2 {
				shared = false
				return
			}
			tokens += count
			parent = n
		}
		for _, sg := range t.Prompt {
			if sg.Stride == 0 {
				step(sg.Token, sg.Count)
			} else {
				sg.Runs(step)
			}
			if !shared {
				break
			}
		}
		t.SharedTokens, t.SharedKnown = min(tokens, t.InputLength), true
	}
	w.Sizes = Sizes{}
	for _, t := range turns {
		w.Sizes.add(t)
	}
	return w
}
