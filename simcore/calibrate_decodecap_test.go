package simcore

import (
	"math"
	"strings"
	"testing"

	"aisimulate/simcore/calibration"
	"aisimulate/simcore/measure"
)

// decodeCapConfig is the deployment of the decode-cap round trip: the disaggregated round
// trip's on TensorRT-LLM with eight prefill workers (so that no prefill queue explains a
// wait) and two decode workers whose configuration leaves the default max_sequences (256).
var decodeCapConfig = strings.NewReplacer("backend: vllm", "backend: trtllm",
	"prefill:\n      parallelism: {replicas: 1", "prefill:\n      parallelism: {replicas: 8",
	"decode:\n      parallelism: {replicas: 1", "decode:\n      parallelism: {replicas: 2").Replace(disaggRoundTripConfig)

// decodeCapTruth is the round trip's cluster: prefill ×1.3, decode ×1.25, and decode ranks
// that run at most 8 requests at once (16 over the two).
func decodeCapTruth() calibration.Params {
	truth := calibration.Identity
	truth[calibration.PrefillScale], truth[calibration.DecodeScale] = 1.3, 1.25
	truth[calibration.DecodeMaxSequences] = 8
	return truth
}

// Round trip of the decode batch cap (docs/calibration.md, "Decode batch cap"): the cluster
// of decodeCapTruth measured at 8 requests (below its 16 slots) and 32 (twice them: the
// clients beyond wait for a slot before their first token). Calibrating on the two gives
// back the cap exactly (Little's law on the queued point seeds it, one replay confirms it)
// and predicts a load between (24, queued) within 3 % in mean TTFT and TPOT (the default
// model: more than 10 % off in both), where the fitted parameters without the cap give less
// than half the TTFT.
func TestCalibrationRecoversTheDecodeCap(t *testing.T) {
	truth := decodeCapTruth()
	_, out, prof := calibrateClusterOn(t, decodeCapConfig, truth, 4, 8, 32, 48)
	got := calibration.FromProfile(prof.Entries[0].Parameters)
	t.Logf("fitted %v (truth %v)\n%s", got, truth, out.Table)
	if n := prof.Entries[0].Parameters.DecodeMaxSequences; n == nil || *n != 8 {
		t.Fatalf("decode_max_sequences = %v, want 8", n)
	}
	checkHeldOut(t, decodeCapConfig, truth, got, 24)
	uncapped := got
	uncapped[calibration.DecodeMaxSequences] = 0
	if h2 := heldOutRun(t, decodeCapConfig, truth, uncapped, 24); h2.cal.TTFT > 0.5*h2.measured.TTFT {
		t.Errorf("without the cap the fitted parameters give TTFT %.1f against %.1f: the cap is not what explains the queue", h2.cal.TTFT, h2.measured.TTFT)
	}
}

// A profile's decode_max_sequences reaches predict: Predict --calibration replays the capped
// round trip's queued load as the fitted parameters do, several times the uncalibrated
// TTFT; the fit report shows it as a whole number; a cap outside [1, 65536] is refused
// naming the field.
func TestProfileDecodeMaxSequencesApplies(t *testing.T) {
	_, out, prof := calibrateClusterOn(t, decodeCapConfig, decodeCapTruth(), 4, 8, 32, 48)
	if prof.Entries[0].Parameters.DecodeMaxSequences == nil {
		t.Fatalf("no decode_max_sequences fitted:\n%s", out.Table)
	}
	if j := string(out.StdoutJSON); !strings.Contains(j, `"decode_max_sequences":8`) || strings.Contains(j, `"decode_max_sequences":8.`) {
		t.Errorf("the fit report does not show the cap as the whole number the profile writes: %s", out.StdoutJSON)
	}
	in := checkPredictsAsFitted(t, decodeCapConfig, out, prof, 24)
	checkRefused(t, in, prof, "decode_max_sequences", func(v *float64) { n := int(*v); prof.Entries[0].Parameters.DecodeMaxSequences = &n }, 0, 70000)
}

// A TensorRT-LLM decode rank takes a hand-off's KV only once the request has a slot
// (docs/semantics/simulation.md §11.3): with 4 slots per decode rank, 32 clients over two
// ranks wait before their first token (TTFT several times the uncapped one) while the pace
// of their decode stays (TPOT within 10 %). A vLLM decode rank takes the KV first, so the
// same cap leaves TTFT as it was and the wait falls between the first and second token.
func TestDecodeSlotDelaysTheFirstTokenOnTensorRTLLM(t *testing.T) {
	run := func(config string, sets ...string) calibration.Metrics {
		t.Helper()
		held := &measure.Measurement{Concurrency: 32, ISL: 1024, OSL: 128}
		zero := 0.0
		out, err := Predict(Input{ConfigName: "cluster.yaml", ConfigYAML: []byte(config), Sets: append(calibration.TrafficSets(held), sets...), FixedWallTimeMs: &zero})
		if err != nil {
			t.Fatal(err)
		}
		return summaryMetrics(out.Summary)
	}
	const capped = "engine.workers.decode.scheduler.max_sequences=4"
	free, slot := run(decodeCapConfig), run(decodeCapConfig, capped)
	if slot.TTFT < 3*free.TTFT || math.Abs(slot.TPOT/free.TPOT-1) > 0.1 {
		t.Errorf("trtllm: capped TTFT %.1f TPOT %.2f, uncapped %.1f %.2f; want the wait before the first token", slot.TTFT, slot.TPOT, free.TTFT, free.TPOT)
	}
	vllm := strings.Replace(decodeCapConfig, "backend: trtllm", "backend: vllm", 1)
	free, slot = run(vllm), run(vllm, capped)
	if math.Abs(slot.TTFT/free.TTFT-1) > 0.1 || slot.TPOT < 2*free.TPOT {
		t.Errorf("vllm: capped TTFT %.1f TPOT %.2f, uncapped %.1f %.2f; want the wait after the first token", slot.TTFT, slot.TPOT, free.TTFT, free.TPOT)
	}
}
