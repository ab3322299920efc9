package calibration

import "aisimulate/simcore/measure"

// The measuring recipes' SGLang request polling (docs/timing.md, "SGLang's request
// polling"): the InferenceX recipes that measured the CSV's aggregated SGLang rows of these
// models on these GPUs start the server with --scheduler-recv-interval 10 below concurrency
// recvIntervalStep and 30 from it; the CSV does not record the flag.
var (
	recipeRecvModels  = map[string]bool{"deepseek-ai/DeepSeek-R1": true, "deepseek-ai/DeepSeek-V3": true, "Qwen/Qwen3.5-397B-A17B": true}
	recipeRecvSystems = map[string]bool{"b200_sxm": true, "b300_sxm": true}
)

// The recipes' intervals: recvIntervalLow below concurrency recvIntervalStep, recvIntervalHigh
// from it.
const (
	recvIntervalStep = 16
	recvIntervalLow  = 10
	recvIntervalHigh = 30
)

// RecipeRecvInterval is the scheduler receive interval a measured-runs CSV row was measured
// with (scheduler.recv_interval), or 0 when its recipe sets none (SGLang's default, 1): the
// recipes' rule for closed-loop aggregated SGLang rows of the models and GPUs above.
func RecipeRecvInterval(m *measure.Measurement) int {
	r := m.Row
	if r == nil || r.Backend != "sglang" || r.Mode != measure.ModeAgg || m.Concurrency == 0 ||
		!recipeRecvModels[r.Model] || !recipeRecvSystems[r.System] {
		return 0
	}
	if m.Concurrency < recvIntervalStep {
		return recvIntervalLow
	}
	return recvIntervalHigh
}
