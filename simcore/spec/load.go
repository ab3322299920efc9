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

// parseRoot checks the text's size and nesting (checkInput), parses a configuration into its
// top-level mapping and applies the --set assignments left to right: for predict (recommend
// false) or for recommend, whose --set may also reach optimization and optimizer and write
// domains.
func parseRoot(yamlText []byte, sets []string, recommend bool) (map[string]any, *Error) {
	if err := checkInput(yamlText, sets); err != nil {
		return nil, err
	}
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
	if err := misspeltSection(root, adapters); err != nil {
		return nil, err
	}

	// Step 6: the core config.
	d := &decoder{}
	cfg := &Config{}
	cfg.Traffic = decodeTraffic(d, root)
	if !d.ok() {
		return nil, d.err
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

// MaxConfigBytes is the largest configuration text a run accepts (1 MiB, docs/robustness.md):
// every target reads at most this much, so a device such as /dev/zero given as the
// configuration is refused at once instead of being read until memory runs out.
const MaxConfigBytes = 1 << 20

// MaxConfigNesting is the deepest nesting of flow collections ({…}, […]) and block-sequence
// dashes on one line a configuration may have; real configurations nest six levels. It
// keeps a hostile text such as 5,000 nested `{a: ` from exhausting the parser's stack.
const MaxConfigNesting = 100

// checkInput refuses configuration text over MaxConfigBytes or nested deeper than
// MaxConfigNesting, and a --set value nested deeper, before any parsing: LoadConfig and
// LoadRecommendation call it first, so every target gets the same limits by loading.
func checkInput(text []byte, sets []string) *Error {
	if len(text) > MaxConfigBytes {
		return &Error{Path: "", Msg: ConfigTooLarge}
	}
	if line, ok := nestingWithin(text, MaxConfigNesting); !ok {
		return &Error{Path: "", Msg: fmt.Sprintf("line %d nests collections more than %d levels deep, the limit on configuration nesting (docs/robustness.md)", line, MaxConfigNesting)}
	}
	for _, set := range sets {
		if _, ok := nestingWithin([]byte(set), MaxConfigNesting); !ok {
			return &Error{Path: "", Msg: fmt.Sprintf("--set %.60q nests collections more than %d levels deep, the limit on configuration nesting (docs/robustness.md)", set, MaxConfigNesting)}
		}
	}
	return nil
}

// nestingWithin scans YAML text for flow brackets outside quotes and comments and for the
// dashes of block sequences opened on one line ("- - - x"); it reports the first line whose
// nesting passes limit. It over-counts rather than under-counts (a bracket inside a plain
// scalar counts), which only matters far past any real configuration.
func nestingWithin(text []byte, limit int) (line int, ok bool) {
	depth, line := 0, 1
	var quote byte
	lineStart := true
	dashes := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\n':
			line++
			lineStart, dashes = true, 0
			if quote == '\'' {
				continue
			}
			continue
		case quote == '"' && c == '\\':
			i++
			continue
		case quote != 0:
			if c == quote {
				quote = 0
			}
			continue
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || text[i-1] == ' ' || text[i-1] == '\t' || text[i-1] == '\n'):
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i--
			continue
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case lineStart && c == '-' && i+1 < len(text) && (text[i+1] == ' ' || text[i+1] == '\t'):
			dashes++
			continue
		case lineStart && (c == ' ' || c == '\t'):
			continue
		}
		lineStart = false
		if depth+dashes > limit {
			return line, false
		}
	}
	return 0, true
}

// ConfigTooLarge is the reason given for configuration text over MaxConfigBytes.
var ConfigTooLarge = fmt.Sprintf("the configuration is larger than %d bytes (1 MiB), the limit on configuration text (docs/robustness.md); shorten it or move long inputs into a trace file", MaxConfigBytes)

// misspeltSection refuses an unknown top-level section that is a plausible typo (suggest) of
// a core section or an installed adapter the configuration lacks: it would otherwise be read
// as an unavailable adapter, and a misspelt traffic section would leave the default traffic
// in its place. A misspelt engine is reported as the missing required section.
func misspeltSection(root map[string]any, adapters []string) *Error {
	known := append(append([]string(nil), coreSections...), InstalledAdapters...)
	for _, a := range adapters {
		if contains(InstalledAdapters, a) {
			continue
		}
		s := suggest(a, known)
		if _, present := root[s]; s == "" || present {
			continue
		}
		if s == "engine" {
			return &Error{Path: "engine", Msg: fmt.Sprintf("required section is missing; found %q, did you mean engine?", a)}
		}
		return &Error{Path: a, Msg: fmt.Sprintf("unknown top-level section %q; did you mean %s?", a, s)}
	}
	return nil
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
