package simcore

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
)

// randomConfig draws a configuration that stresses the scheduler: tight KV capacity (so
// vLLM preempts and SGLang retracts), all three backends, sessions, and the KV router.
func randomConfig(rnd *rand.Rand) (cfg string, requests, outputPerRequest int) {
	backend := []string{"vllm", "sglang", "trtllm"}[rnd.IntN(3)]
	isl := 32 + rnd.IntN(400)
	osl := 1 + rnd.IntN(80)
	replicas := 1 + rnd.IntN(3)
	blocks := 40 + rnd.IntN(200)
	bs := []int{4, 16, 64}[rnd.IntN(3)]
	if backend == "sglang" {
		bs = 1
		blocks *= 16
		if rnd.IntN(3) == 0 {
			isl = 8192 + rnd.IntN(1500) // longer than one chunk (chunked_prefill_size 8192)
		}
	}
	// Capacity must hold one whole request, or it would be rejected (a different test).
	if min := (isl+osl)/bs + 2; blocks < min {
		blocks = min
	}
	router := "round_robin"
	if replicas > 1 && rnd.IntN(2) == 0 {
		router = "kv_router"
	}
	n := 20 + rnd.IntN(60)
	source := fmt.Sprintf("{type: synthetic, input_tokens: %d, output_tokens: %d}", isl, osl)
	stop := fmt.Sprintf("{requests: %d}", n)
	total := n
	if rnd.IntN(2) == 0 {
		turns := 2 + rnd.IntN(3)
		source = fmt.Sprintf("{type: synthetic-session, new_input_tokens_per_turn: %d, output_tokens_per_turn: %d, session: {turns: %d, shared_prefix_ratio: 0.5, prefix_groups: 2}}", isl, osl, turns)
		stop = fmt.Sprintf("{sessions: %d}", n)
		total = n * turns
	}
	load := fmt.Sprintf("{type: concurrency, concurrency: %d}", 1+rnd.IntN(24))
	if rnd.IntN(2) == 0 {
		unit := "requests_per_second"
		if total != n {
			unit = "sessions_per_second"
		}
		load = fmt.Sprintf("{type: poisson, %s: %d, seed: %d}", unit, 5+rnd.IntN(200), rnd.IntN(1000))
	}
	cfg = fmt.Sprintf(`
traffic:
  source: %s
  load: %s
  stop: %s
engine:
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: %s
  workers:
    aggregated:
      parallelism: {replicas: %d}
      scheduler: {max_batched_tokens: %d, max_sequences: %d}
      kv_cache: {block_size: %d, capacity: {type: fixed, blocks: %d}}
      timing: {type: polynomial}
router: {policy: %s}
`, source, load, stop, backend, replicas, 64+rnd.IntN(2048), 1+rnd.IntN(64), bs, blocks, router)
	return cfg, total, osl
}

type record struct {
	Arrival    float64  `json:"arrival_time_ms"`
	FirstAdmit *float64 `json:"first_admit_ms"`
	FirstToken *float64 `json:"first_token_ms"`
	LastToken  *float64 `json:"last_token_ms"`
	Terminal   float64  `json:"terminal_time_ms"`
	Status     string   `json:"terminal_status"`
	Output     int      `json:"output_length"`
	Requested  int      `json:"requested_output_length"`
	Input      int      `json:"input_length"`
	Reused     int      `json:"reused_input_tokens"`
	Readmits   int      `json:"readmission_count"`
	Admissions []struct {
		At float64 `json:"at_ms"`
	} `json:"admission_history"`
}

// Invariants over random stressful runs: no request is lost, every requested token is
// emitted, each request's clock is monotone, the summary agrees with the records, and the
// same input gives the same bytes.
func TestRandomRunsInvariants(t *testing.T) {
	rnd := rand.New(rand.NewPCG(2026, 12))
	readmitted := 0
	for i := 0; i < 40; i++ {
		cfg, total, osl := randomConfig(rnd)
		in := Input{ConfigYAML: []byte(cfg), CapturePerRequest: true}
		out, err := Predict(in)
		if err != nil {
			t.Fatalf("run %d: %v\n%s", i, err, cfg)
		}
		s := out.Summary
		if s["num_requests"] != total || s["completed_requests"] != int64(total) {
			t.Fatalf("run %d: %v of %v requests completed, want all %d\n%s", i, s["completed_requests"], s["num_requests"], total, cfg)
		}
		if s["total_output_tokens"] != int64(total*osl) {
			t.Fatalf("run %d: %v output tokens, want %d", i, s["total_output_tokens"], total*osl)
		}
		sc := bufio.NewScanner(bytes.NewReader(out.RequestsJSONL))
		sc.Buffer(nil, 1<<24)
		var reused, lines int
		var maxTerminal float64
		for sc.Scan() {
			var r record
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Fatal(err)
			}
			lines++
			reused += r.Reused
			readmitted += r.Readmits
			if r.Status != "completed" || r.Output != r.Requested || r.FirstAdmit == nil || r.FirstToken == nil {
				t.Fatalf("run %d: record %s", i, sc.Text())
			}
			if !(r.Arrival <= *r.FirstAdmit && *r.FirstAdmit <= *r.FirstToken && *r.FirstToken <= *r.LastToken && *r.LastToken == r.Terminal) {
				t.Fatalf("run %d: clock not monotone: %s", i, sc.Text())
			}
			for k := 1; k < len(r.Admissions); k++ {
				if r.Admissions[k].At < r.Admissions[k-1].At {
					t.Fatalf("run %d: admissions out of order: %s", i, sc.Text())
				}
			}
			// A re-admission after preemption may reuse generated tokens too (docs/semantics/simulation.md §4.4 caps the
			// credit by the known sequence, not by the prompt).
			if r.Reused > r.Input+r.Output {
				t.Fatalf("run %d: reused more than the sequence: %s", i, sc.Text())
			}
			maxTerminal = max(maxTerminal, r.Terminal)
		}
		if lines != total || s["duration_ms"] != maxTerminal {
			t.Fatalf("run %d: %d records, duration %v vs max terminal %v", i, lines, s["duration_ms"], maxTerminal)
		}
		if ratio := s["prefix_cache_reused_ratio"].(float64); ratio != float64(reused)/float64(s["total_input_tokens"].(int64)) {
			t.Fatalf("run %d: reuse ratio %v disagrees with records", i, ratio)
		}
		// Without a Clock the wall-clock keys are 0, so whole files must repeat exactly, and
		// the exact algorithm (no steady cohort, every block shareable) must agree byte for byte.
		again, _ := Predict(in)
		if !bytes.Equal(again.RequestsJSONL, out.RequestsJSONL) || !bytes.Equal(again.PredictionJSON, out.PredictionJSON) {
			t.Fatalf("run %d: same input, different bytes", i)
		}
		exact, err := predictWith(in, exactPlan)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(exact.RequestsJSONL, out.RequestsJSONL) || !bytes.Equal(exact.PredictionJSON, out.PredictionJSON) {
			t.Fatalf("run %d: shortcuts changed the result\n%s", i, cfg)
		}
	}
	if readmitted == 0 {
		t.Error("no run preempted or retracted a request; the invariants were not tested under KV pressure")
	}
	t.Logf("%d re-admissions after preemption or retraction", readmitted)
}
