package spec

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
)

// sectionOrder is the order of the top-level sections in an emitted configuration: the core
// sections as AISimulate's model dump writes them, then the adapter sections.
var sectionOrder = []string{"traffic", "engine", "evaluation", "execution", "router", "planner"}

// EmitYAML writes a configuration tree (as parseYAML reads it) as block-style YAML that reads
// back to the same tree: top-level sections in sectionOrder, other mapping keys sorted,
// numbers as written in the tree (floats always with a '.', so YAML 1.1 readers see floats),
// strings plain when that is unambiguous and double-quoted otherwise.
func EmitYAML(tree map[string]any) []byte {
	var b strings.Builder
	keys := sortedKeys(tree)
	ordered := make([]string, 0, len(keys))
	for _, s := range sectionOrder {
		if _, ok := tree[s]; ok {
			ordered = append(ordered, s)
		}
	}
	for _, k := range keys {
		if !contains(sectionOrder, k) {
			ordered = append(ordered, k)
		}
	}
	for _, k := range ordered {
		emitEntry(&b, 0, k, tree[k])
	}
	return []byte(b.String())
}

func emitEntry(b *strings.Builder, indent int, key string, v any) {
	pad := strings.Repeat("  ", indent)
	b.WriteString(pad + yamlString(key) + ":")
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString(" {}\n")
			return
		}
		b.WriteString("\n")
		for _, k := range sortedKeys(x) {
			emitEntry(b, indent+1, k, x[k])
		}
	case []any:
		if len(x) == 0 {
			b.WriteString(" []\n")
			return
		}
		b.WriteString("\n")
		for _, e := range x {
			emitItem(b, indent+1, e)
		}
	default:
		b.WriteString(" " + yamlScalar(v) + "\n")
	}
}

func emitItem(b *strings.Builder, indent int, v any) {
	pad := strings.Repeat("  ", indent)
	switch x := v.(type) {
	case map[string]any:
		if len(x) == 0 {
			b.WriteString(pad + "- {}\n")
			return
		}
		// Block mapping inside a sequence item: the first key follows the dash.
		var inner strings.Builder
		for _, k := range sortedKeys(x) {
			emitEntry(&inner, indent+1, k, x[k])
		}
		text := inner.String()
		b.WriteString(pad + "- " + strings.TrimPrefix(text, pad+"  "))
	case []any:
		if len(x) == 0 {
			b.WriteString(pad + "- []\n")
			return
		}
		b.WriteString(pad + "-\n")
		for _, e := range x {
			emitItem(b, indent+1, e)
		}
	default:
		b.WriteString(pad + "- " + yamlScalar(v) + "\n")
	}
}

func yamlScalar(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		if x {
			return "true"
		}
		return "false"
	case json.Number:
		s := string(x)
		switch s {
		case "+Inf":
			return ".inf"
		case "-Inf":
			return "-.inf"
		case "NaN":
			return ".nan"
		}
		if i := strings.IndexAny(s, "eE"); i >= 0 && !strings.Contains(s[:i], ".") {
			s = s[:i] + ".0" + s[i:]
		}
		return s
	case string:
		return yamlString(x)
	}
	return yamlString(strconv.Quote(describe(v)))
}

// plainString matches strings that YAML 1.1 reads back as the same string when unquoted.
var plainString = regexp.MustCompile(`^[A-Za-z_/][A-Za-z0-9_./-]*$`)

// yamlReserved are plain words YAML 1.1 would read as booleans or null.
var yamlReserved = []string{"y", "n", "yes", "no", "on", "off", "true", "false", "null"}

func yamlString(s string) string {
	if plainString.MatchString(s) && !contains(yamlReserved, strings.ToLower(s)) {
		return s
	}
	q, _ := json.Marshal(s)
	return string(q)
}

// PlainTree converts a configuration tree for the canonical JSON encoder: integers become
// int64 and floats float64; mappings and lists are copied.
func PlainTree(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = PlainTree(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = PlainTree(e)
		}
		return out
	case json.Number:
		if isIntLiteral(x) {
			if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
				return i
			}
		}
		return DomainValueFloat(x)
	}
	return v
}
