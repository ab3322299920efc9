package ui

import (
	"strings"
	"testing"
	"testing/fstest"

	"aisimulate/simcore"
)

// presetTrace is a two-request Mooncake trace for the trace preset (it names trace.jsonl).
const presetTrace = `{"timestamp": 0, "input_length": 512, "output_length": 16, "hash_ids": [1]}
{"timestamp": 100, "input_length": 512, "output_length": 16, "hash_ids": [1]}
`

// isFixedModelPreset reports whether a preset is one of those labelled as using the fixed or
// polynomial pass model (on which model, GPU and backend change nothing).
func isFixedModelPreset(p Preset) bool {
	return strings.HasPrefix(p.Title, "Fixed timing") || strings.HasPrefix(p.Title, "Polynomial timing")
}

// Every preset runs; the ones not labelled fixed/polynomial use the default timing and
// capacity model, so the GPU changes their answer.
func TestPresetsRunOnTheDefaultModelUnlessLabelled(t *testing.T) {
	files := fstest.MapFS{"trace.jsonl": {Data: []byte(presetTrace)}}
	zero := 0.0
	run := func(p Preset, sets ...string) string {
		out, err := simcore.Predict(simcore.Input{ConfigName: p.Name, ConfigYAML: []byte(p.YAML), Sets: sets, Files: files, FixedWallTimeMs: &zero})
		if err != nil {
			t.Fatalf("%s %v: %v", p.Name, sets, err)
		}
		return string(out.SummaryJSON)
	}
	for _, p := range Presets() {
		base := run(p)
		usesFixed := strings.Contains(p.YAML, "type: fixed") || strings.Contains(p.YAML, "type: polynomial")
		if isFixedModelPreset(p) {
			if !usesFixed {
				t.Errorf("%s is labelled fixed/polynomial but uses the default model", p.Name)
			}
			continue
		}
		if usesFixed {
			t.Errorf("%s uses a fixed timing or capacity model without saying so in its title %q", p.Name, p.Title)
		}
		if base == run(p, "engine.hardware=a100_sxm") {
			t.Errorf("%s: a100_sxm instead of %s changes nothing", p.Name, "the preset's GPU")
		}
	}
}
