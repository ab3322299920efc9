package ui

import (
	"fmt"
	"strings"

	"aisimulate/simcore/spec"

	yaml "go.yaml.in/yaml/v2"
)

// KindMulti is a knob whose value is a set of choices (check boxes): one checked choice is
// written as a concrete value, several as a `{choices: […]}` domain (docs/web.md, "Recommend").
const KindMulti = "multi"

// Default domains recommend applies when engine.mode or engine.backend is omitted
// (docs/recommend.md, "Domains"); TestRecommendDefaultDomainsAreTheSchemas pins them to what
// simcore/spec supplies.
var (
	defaultModeChoices    = []string{spec.ModeAggregated, spec.ModeDisaggregated}
	defaultBackendChoices = []string{spec.BackendVLLM, spec.BackendSGLang}
)

// rolesOfMode are the worker roles a candidate of the mode needs declared.
func rolesOfMode(mode string) []string {
	if mode == spec.ModeDisaggregated {
		return []string{spec.RolePrefill, spec.RoleDecode}
	}
	return []string{spec.RoleAggregated}
}

// RecommendKnobs lists the search-space form controls of a recommendation configuration,
// with their current values (a multi knob's value is its checked choices joined by ",").
func (d *Doc) RecommendKnobs() []Knob {
	ks := []Knob{
		{ID: "rec-model", Label: "Model", Path: "engine.model", Kind: "text", Options: Models},
		{ID: "rec-hardware", Label: "Hardware", Path: "engine.hardware", Kind: "select", Options: Hardware},
		{ID: "rec-backend", Label: "Backends", Path: "engine.backend", Kind: KindMulti, Options: spec.Backends},
		{ID: "rec-mode", Label: "Modes", Path: "engine.mode", Kind: KindMulti, Options: []string{spec.ModeAggregated, spec.ModeDisaggregated}},
		{ID: "rec-max-gpus", Label: "GPU budget (max GPUs)", Path: "optimization.constraints.max_candidate_gpus", Kind: "int", Placeholder: "32"},
		{ID: "rec-target", Label: "Target", Path: "optimization.target", Kind: "select", Options: spec.Targets},
		{ID: "rec-algorithm", Label: "Optimizer", Path: "optimizer.algorithm", Kind: "select", Options: []string{spec.AlgorithmScreened, spec.AlgorithmBayesian, spec.AlgorithmRandom}},
		{ID: "rec-max-trials", Label: "Max trials", Path: "optimizer.max_trials", Kind: "int", Placeholder: "320"},
		{ID: "rec-seed", Label: "Seed", Path: "optimizer.seed", Kind: "int", Placeholder: "42"},
	}
	for i := range ks {
		k := &ks[i]
		switch {
		case k.Kind == KindMulti:
			k.Value = strings.Join(d.choices(k.Path), ",")
		default:
			k.Value = d.GetString(k.Path)
		}
		if k.Value == "" && k.ID == "rec-algorithm" {
			// The default (docs/recommend.md, "screened"): screened wherever the screen can
			// price the space, which the browser's examples all are.
			k.Value = spec.AlgorithmScreened
		}
	}
	return ks
}

// choices reads a searchable field as its set of values: a concrete value, the choices of a
// domain, or the default domain when the field is omitted.
func (d *Doc) choices(path string) []string {
	switch v := d.Get(path).(type) {
	case nil:
		switch path {
		case "engine.mode":
			return defaultModeChoices
		case "engine.backend":
			return defaultBackendChoices
		}
		return nil
	case yaml.MapSlice:
		list, _ := lookup(v, "choices")
		items, _ := list.([]any)
		out := make([]string, 0, len(items))
		for _, it := range items {
			out = append(out, fmt.Sprint(it))
		}
		return out
	default:
		return []string{fmt.Sprint(v)}
	}
}

// ApplyRecommend sets recommend knob id to text (a multi knob takes its checked choices
// joined by ","), keeping the configuration loadable where the schema ties fields together:
// a mode added to engine.mode declares the worker roles it needs (`{}`: default ladder and
// scheduler domains) and a mode removed drops the roles no remaining mode uses. An empty
// multi knob is left for the simulator to report. It returns an error only for an unknown knob.
func (d *Doc) ApplyRecommend(id, text string) error {
	var k *Knob
	ks := d.RecommendKnobs()
	for i := range ks {
		if ks[i].ID == id {
			k = &ks[i]
		}
	}
	if k == nil {
		return fmt.Errorf("unknown form field %q", id)
	}
	if k.Kind != KindMulti {
		if strings.TrimSpace(text) == "" {
			d.Delete(k.Path)
		} else {
			d.Set(k.Path, scalar(k.Kind, text))
		}
		return nil
	}
	var picked []string
	for _, o := range k.Options { // the options' order, whatever order the boxes were clicked in
		for _, t := range strings.Split(text, ",") {
			if strings.TrimSpace(t) == o {
				picked = append(picked, o)
				break
			}
		}
	}
	if id == "rec-mode" {
		d.setRoles(picked)
	}
	switch len(picked) {
	case 0:
		d.Set(k.Path, yaml.MapSlice{{Key: "choices", Value: []any{}}})
	case 1:
		d.Set(k.Path, picked[0])
	default:
		list := make([]any, len(picked))
		for i, p := range picked {
			list[i] = p
		}
		d.Set(k.Path, yaml.MapSlice{{Key: "choices", Value: list}})
	}
	return nil
}

// setRoles declares the worker roles of the given modes and removes the others.
func (d *Doc) setRoles(modes []string) {
	need := map[string]bool{}
	for _, m := range modes {
		for _, r := range rolesOfMode(m) {
			need[r] = true
		}
	}
	for _, r := range []string{spec.RoleAggregated, spec.RolePrefill, spec.RoleDecode} {
		path := "engine.workers." + r
		switch {
		case need[r] && d.Get(path) == nil:
			d.Set(path, yaml.MapSlice{})
		case !need[r] && d.Get(path) != nil:
			d.Delete(path)
		}
	}
	if !need[spec.RolePrefill] {
		d.Delete("engine.kv_transfer")
	}
}

// RecommendKnobFor is FieldFor over the recommend form.
func (d *Doc) RecommendKnobFor(errPath string) string { return FieldFor(d.RecommendKnobs(), errPath) }

// multiValue toggles choice in a multi knob's comma-joined value.
func multiValue(value, choice string, on bool) string {
	var out []string
	for _, v := range splitComma(value) {
		if v != choice {
			out = append(out, v)
		}
	}
	if on {
		out = append(out, choice)
	}
	return strings.Join(out, ",")
}

// splitComma splits a multi knob's value into its choices.
func splitComma(value string) []string {
	var out []string
	for _, v := range strings.Split(value, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
