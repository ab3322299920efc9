package engine

// SlotFirst reports whether a disaggregated hand-off to a rank of this configuration waits
// for a place in the rank's batch (max_sequences: TensorRT-LLM's max_batch_size on the
// generation server) before its KV transfer starts: TensorRT-LLM schedules a generation
// request before it pulls the request's KV, so a client beyond the cap waits before its
// first token (docs/semantics/simulation.md §11.3).
func (c *RankConfig) SlotFirst() bool { return c.Policy == TRTLLM }

// reserve takes what a hand-off must hold on this decode rank before its transfer starts:
// a batch slot (TensorRT-LLM) or the blocks of SGLang's pre-allocation.
func (k *Rank) reserve(r *Request) bool {
	if k.cfg.SlotFirst() {
		return k.takeSlot(r)
	}
	return k.takeDestination(r)
}

// takeSlot gives r a slot when the requests running, materialised and in transfer on the
// rank are fewer than max_sequences.
func (k *Rank) takeSlot(r *Request) bool {
	if len(k.running)+len(k.materialized)-k.mHead+k.inTransfer >= k.cfg.MaxSequences {
		return false
	}
	k.inTransfer++
	r.slotHeld = true
	return true
}

// releaseSlot ends r's transfer-time hold on the rank's slot: it is counted among the
// materialised (then running) requests from now on, or it never arrives (O = 1).
func (k *Rank) releaseSlot(r *Request) {
	if r.slotHeld {
		k.inTransfer--
		r.slotHeld = false
	}
}
