package simcore

import (
	"testing"
	"testing/fstest"
)

// sglangRecvConfig is one SGLang worker of dp attention-DP ranks with the given
// scheduler.recv_interval (sglangTraceConfig: extend passes 7 ms, decode passes 2 ms).
func sglangRecvConfig(dp, interval int) string {
	return sglangTraceConfig(dp, "recv_interval: "+itoa(interval)+", max_sequences: 16")
}

// SGLang's scheduler_recv_interval (docs/timing.md, "SGLang's request polling"): a request
// that arrives while the rank decodes is taken only at the poll after the interval's N-th
// decode round. a (20 output tokens) runs its extend pass [0, 7]; the round after an extend
// always polls (weight 1000) and resets the counter, so with N = 4 the decode rounds ending
// at 9, 11, 13 and 15 count 1…4 and b, arriving at 8, is polled at 15 and gets its first
// token at the end of its extend pass [15, 22]. With N = 1 (SGLang's default) b is admitted
// after the decode round it arrived in, at 9. The counter is the DP group's: with two
// attention-DP ranks b goes to the idle rank 1 and still waits for the group's poll.
func TestSGLangRecvIntervalDelaysArrivalsDuringDecode(t *testing.T) {
	files := fstest.MapFS{"two.jsonl": {Data: []byte(`{"timestamp": 0, "input_length": 4, "output_length": 20, "hash_ids": [1], "request_id": "a"}
{"timestamp": 8, "input_length": 4, "output_length": 2, "hash_ids": [2], "request_id": "b"}
`)}}
	for _, c := range []struct{ dp, interval, admit, first int }{{1, 1, 9, 16}, {1, 4, 15, 22}, {1, 2, 11, 18}, {2, 4, 15, 22}} {
		m, recs := requestRecords(t, sglangRecvConfig(c.dp, c.interval), files)
		if h := recs["b"]["routing_history"].([]any); h[0].(map[string]any)["dp_rank"] != float64(c.dp-1) {
			t.Fatalf("%+v: b routed to DP rank %v, want %d", c, h[0].(map[string]any)["dp_rank"], c.dp-1)
		}
		wantNum(t, m, "completed_requests", 2)
		wantNum(t, recs["a"], "first_token_ms", 7)
		wantNum(t, recs["b"], "first_admit_ms", float64(c.admit))
		wantNum(t, recs["b"], "first_token_ms", float64(c.first))
	}
}

// A rank with nothing to run polls at once, whatever the interval (its idle rounds take no
// time and each advances the counter): b, arriving at 100 after a finished, is admitted on
// arrival; and the round after an extend pass polls, so c, arriving during a's extend pass,
// is prefilled in the next round.
func TestSGLangRecvIntervalPollsWhenIdleAndAfterExtend(t *testing.T) {
	files := fstest.MapFS{"two.jsonl": {Data: []byte(`{"timestamp": 0, "input_length": 4, "output_length": 3, "hash_ids": [1], "request_id": "a"}
{"timestamp": 3, "input_length": 4, "output_length": 1, "hash_ids": [3], "request_id": "c"}
{"timestamp": 100, "input_length": 4, "output_length": 1, "hash_ids": [2], "request_id": "b"}
`)}}
	m, recs := requestRecords(t, sglangRecvConfig(1, 30), files)
	wantNum(t, m, "completed_requests", 3)
	wantNum(t, recs["c"], "first_admit_ms", 7)
	wantNum(t, recs["c"], "first_token_ms", 14)
	wantNum(t, recs["b"], "first_admit_ms", 100)
	wantNum(t, recs["b"], "first_token_ms", 107)
}
