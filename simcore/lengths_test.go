package simcore

import (
	"fmt"
	"testing"

	"aisimulate/simcore/internal/traffic"
	"aisimulate/simcore/spec"
)

// lengthsTraffic is a closed loop of 40 requests of 32/8 tokens with each length drawn
// uniformly in [0.5, 1.5]·L.
const lengthsTraffic = `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 8, lengths: {distribution: uniform, min_ratio: 0.5, max_ratio: 1.5}}
  load: {type: concurrency, concurrency: 4}
  stop: {requests: 40}
`

// A prediction with a length draw (docs/config.md, "Request length draws"): the whole
// prediction.json is the golden file's, and the run's input and output token totals are
// exactly those the generator draws, so every drawn token is served.
func TestLengthDrawPrediction(t *testing.T) {
	out := predict(t, lengthsTraffic+fixedEngine)
	wantGolden(t, "testdata/lengths_prediction.json", out.PredictionJSON)
	cfg, err := spec.LoadConfig([]byte(lengthsTraffic+fixedEngine), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := traffic.Synthetic(cfg.Traffic, 16)
	in, outTok := 0, 0
	for {
		s, ok := w.Next()
		if !ok {
			break
		}
		in += s.Turns[0].InputLength
		outTok += s.Turns[0].OutputLength
	}
	if in == 40*32 && outTok == 40*8 {
		t.Fatalf("the draw gave the constant totals %d, %d", in, outTok)
	}
	m := summaryOf(t, out)
	wantNum(t, m, "total_input_tokens", float64(in))
	wantNum(t, m, "total_output_tokens", float64(outTok))
}

// Every form of constant lengths predicts the bytes of a source without lengths.
func TestConstantLengthFormsAreTheDefault(t *testing.T) {
	base := `
traffic:
  source: {type: synthetic, input_tokens: 32, output_tokens: 8%s}
  load: {type: concurrency, concurrency: 4}
  stop: {requests: 40}
`
	want := predict(t, fmt.Sprintf(base, "")+fixedEngine).PredictionJSON
	for _, form := range []string{
		", lengths: {distribution: constant}",
		", lengths: {distribution: uniform}",
		", lengths: {distribution: uniform, min_ratio: 1, max_ratio: 1}",
		", lengths: {distribution: normal, input_stddev_ratio: 0}",
	} {
		if got := predict(t, fmt.Sprintf(base, form)+fixedEngine).PredictionJSON; string(got) != string(want) {
			t.Errorf("%s: prediction.json differs from constant lengths", form)
		}
	}
}
