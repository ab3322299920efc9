package spec

import (
	"fmt"
	"sort"
	"strings"
)

// Stack is the execution stack this package validates for; adapter sections are owned by
// adapters named <Stack>.<section>.
const Stack = "dynamo"

// coreSections are the top-level sections validated by the core schema in predict.
var coreSections = []string{"traffic", "engine", "evaluation", "execution"}

// InstalledAdapters are the adapter sections this simulator implements, sorted.
var InstalledAdapters = []string{"planner", "router"}

// LoadConfig parses a predict configuration, applies the --set assignments left to right,
// and returns the validated configuration with every default filled in. Every failure is a
// *Error (exit code 2). (It cannot be called Load: that name is the traffic.load type.)
func LoadConfig(yamlText []byte, sets []string) (*Config, error) {
	cfg, err := load(yamlText, sets)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

func load(yamlText []byte, sets []string) (*Config, *Error) {
	root, err := parseRoot(yamlText, sets, false)
	if err != nil {
		return nil, err
	}
	return decodeRoot(root)
}

// parseRoot parses a configuration into its top-level mapping and applies the --set
// assignments left to right: for predict (recommend false) or for recommend, whose --set may
// also reach optimization and optimizer and write domains.
func parseRoot(yamlText []byte, sets []string, recommend bool) (map[string]any, *Error) {
	tree, perr := parseYAML(yamlText)
	if perr != nil {
		return nil, &Error{Msg: "malformed YAML: " + yamlErrText(perr)}
	}
	root, isMap := tree.(map[string]any)
	if !isMap {
		got := describe(tree)
		if tree == nil {
			got = "an empty document"
		}
		sections := "with at least an engine section"
		if recommend {
			sections = "with engine and optimization sections"
		}
		return nil, &Error{Msg: fmt.Sprintf("configuration must contain one YAML mapping (%s), got %s", sections, got)}
	}
	for _, s := range sets {
		if err := setValue(root, s, recommend); err != nil {
			return nil, err
		}
	}
	return root, nil
}

func decodeRoot(root map[string]any) (*Config, *Error) {
	keys := sortedKeys(root)

	// Step 5: split sections. predict refuses the recommend-only sections.
	var recommendOnly []string
	for _, k := range keys {
		if k == "optimization" || k == "optimizer" {
			recommendOnly = append(recommendOnly, k)
		}
	}
	if len(recommendOnly) > 0 {
		return nil, &Error{Path: recommendOnly[0], Msg: fmt.Sprintf("predict does not accept %s; these sections belong to recommend, remove them", pyList(recommendOnly))}
	}
	var adapters []string
	for _, k := range keys {
		if contains(coreSections, k) {
			continue
		}
		if k == "" || strings.Contains(k, ".") {
			return nil, &Error{Path: k, Msg: fmt.Sprintf("invalid top-level section name %q; adapter section names must be non-empty and contain no dots", k)}
		}
		if _, isMap := root[k].(map[string]any); !isMap {
			return nil, &Error{Path: k, Msg: fmt.Sprintf("adapter section '%s' must be a mapping, got %s", k, describe(root[k]))}
		}
		adapters = append(adapters, k)
	}

	// Step 6: the core config.
	d := &decoder{}
	cfg := &Config{}
	cfg.Traffic = decodeTraffic(d, root)
	if !d.ok() {
		return nil, d.err
	}
	if _, ok := root["engine"]; !ok {
		// A misspelt core section would otherwise only surface later as an unknown adapter.
		for _, a := range adapters {
			if EditDistance(strings.ToLower(a), "engine") <= 2 {
				return nil, &Error{Path: "engine", Msg: fmt.Sprintf("required section is missing; found %q, did you mean engine?", a)}
			}
		}
	}
	cfg.Engine = decodeEngine(d, root)
	if !d.ok() {
		return nil, d.err
	}
	checkTrafficEngine(d, cfg)
	cfg.Evaluation = decodeEvaluation(d, root)
	decodeExecution(d, root)
	if !d.ok() {
		return nil, d.err
	}

	// Step 7: resolve adapters.
	for _, a := range adapters {
		if !contains(InstalledAdapters, a) {
			installed := make([]string, len(InstalledAdapters))
			for i, n := range InstalledAdapters {
				installed[i] = Stack + "." + n
			}
			sort.Strings(installed)
			return nil, &Error{Path: a, Msg: fmt.Sprintf("config adapter '%s.%s' is unavailable; installed adapters: %s (remove the section or fix its name)", Stack, a, strings.Join(installed, ", "))}
		}
	}

	// Step 8: adapters compile their sections.
	_, cfg.HasRouter = root["router"]
	cfg.Router = decodeRouter(d, root["router"], cfg.HasRouter, cfg)
	if !d.ok() {
		return nil, d.err
	}
	_, cfg.HasPlanner = root["planner"]
	cfg.Planner = decodePlanner(d, root["planner"], cfg.HasPlanner, cfg)
	if !d.ok() {
		return nil, d.err
	}

	// Step 9: the dynamo runner's capability check.
	checkRunner(d, cfg)
	if d.ok() {
		checkRouterPools(d, cfg)
	}
	if !d.ok() {
		return nil, d.err
	}
	return cfg, nil
}

// ConfigOfTree decodes a concrete configuration tree (Recommendation.Candidate's) as
// LoadConfig decodes the mapping of a YAML text, without writing and parsing the text.
func ConfigOfTree(tree map[string]any) (*Config, error) {
	cfg, err := decodeRoot(deepCopy(tree).(map[string]any))
	if err != nil {
		return nil, err
	}
	return cfg, nil
}
