package simcore

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"aisimulate/simcore/spec"
)

// A GPU budget whose prefill × decode ladder pairs would take gigabytes is refused at once,
// naming max_candidate_gpus and the largest budget that fits; that budget is accepted and
// one more GPU is not.
func TestRecommendPairLimit(t *testing.T) {
	text, err := os.ReadFile("../examples/recommend-seed.yaml")
	if err != nil {
		t.Fatal(err)
	}
	newRec := func(gpus int) error {
		_, err := NewRecommender(RecommendInput{ConfigName: "seed.yaml", ConfigYAML: text,
			Sets: []string{"optimization.constraints.max_candidate_gpus=" + strconv.Itoa(gpus)}})
		return err
	}
	err = newRec(1000)
	var se *spec.Error
	if !errors.As(err, &se) || se.Path != "optimization.constraints.max_candidate_gpus" {
		t.Fatalf("error %v", err)
	}
	m := regexp.MustCompile(`^the prefill and decode parallelism pairs within 1\.\.1000 GPUs number (\d+), more than the 100000 one search may hold \(docs/robustness.md\); a max_candidate_gpus of at most (\d+) fits$`).FindStringSubmatch(se.Msg)
	if m == nil {
		t.Fatalf("message %q", se.Msg)
	}
	fit, _ := strconv.Atoi(m[2])
	if err := newRec(fit); err != nil {
		t.Errorf("the budget named, %d, is refused: %v", fit, err)
	}
	if err := newRec(fit + 1); err == nil {
		t.Errorf("one more GPU than named, %d, is accepted", fit+1)
	}
}

// Explicit preset lists whose pairs are too many name the presets first; the budget named is
// exact: 1..400 × 1..400 replicas make 99,969 pairs within 454 GPUs and 100,315 within 455.
func TestRecommendPresetPairLimit(t *testing.T) {
	var b strings.Builder
	b.WriteString(`traffic: {source: {type: synthetic, input_tokens: 64, output_tokens: 8}, load: {type: concurrency, concurrency: 2}, stop: {requests: 4}}
engine:
  mode: disaggregated
  model: meta-llama/Meta-Llama-3.1-8B-Instruct
  hardware: h200_sxm
  backend: vllm
  workers:
`)
	for _, role := range []string{"prefill", "decode"} {
		fmt.Fprintf(&b, "    %s:\n      parallelism:\n        preset:\n", role)
		for r := 1; r <= 400; r++ {
			fmt.Fprintf(&b, "          - {replicas: %d, tensor: 1, pipeline: 1, attention_data: 1, moe_tensor: 1, moe_expert: 1}\n", r)
		}
	}
	b.WriteString("optimization: {target: throughput, constraints: {max_candidate_gpus: 800}}\n")
	_, err := NewRecommender(RecommendInput{ConfigName: "p.yaml", ConfigYAML: []byte(b.String())})
	var se *spec.Error
	if !errors.As(err, &se) || se.Path != "engine.workers.prefill.parallelism" ||
		!strings.HasSuffix(se.Msg, "number 160000, more than the 100000 one search may hold (docs/robustness.md); give fewer prefill or decode presets, or a max_candidate_gpus of at most 454 fits") {
		t.Fatalf("error %v", err)
	}
}
