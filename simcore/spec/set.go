package spec

import (
	"errors"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v2"
)

// setValue applies one --set PATH=YAML_VALUE assignment to the loaded tree (docs/config.md,
// "--set PATH=YAML_VALUE"): the leaf is replaced as a whole, missing intermediate mappings are
// created, sequence indexes are refused. Unknown paths are not checked here; strict decoding
// rejects them afterwards. recommend false is predict's schema, where the recommend-only
// sections do not exist; true also allows optimization and optimizer
// (--set optimization.target=pareto).
func setValue(root map[string]any, arg string, recommend bool) *Error {
	eq := strings.IndexByte(arg, '=')
	if eq < 0 {
		return &Error{Msg: fmt.Sprintf("invalid --set '%s'; expected PATH=YAML_VALUE (for example traffic.load.concurrency=8)", arg)}
	}
	path, raw := arg[:eq], arg[eq+1:]
	segs := strings.Split(path, ".")
	for _, s := range segs {
		if s == "" || allDigits(s) {
			return &Error{Msg: fmt.Sprintf("invalid --set path '%s'; sequence indexes are unsupported (use dotted mapping keys such as engine.workers.aggregated.parallelism.replicas, and replace a whole list as a YAML value)", path)}
		}
	}
	if !recommend && (segs[0] == "optimization" || segs[0] == "optimizer") {
		return &Error{Msg: fmt.Sprintf("--set path '%s' is not in the schema (%s is a recommend-only section)", path, segs[0])}
	}
	value, err := parseYAML([]byte(raw))
	if err != nil {
		return &Error{Msg: fmt.Sprintf("invalid YAML value for --set '%s': %s", path, yamlErrText(err))}
	}
	cur := root
	for _, s := range segs[:len(segs)-1] {
		next, exists := cur[s]
		if !exists {
			m := map[string]any{}
			cur[s] = m
			cur = m
			continue
		}
		m, isMap := next.(map[string]any)
		if !isMap {
			return &Error{Msg: fmt.Sprintf("--set path '%s' crosses a non-mapping value (%s is %s); replace that value as a whole instead", path, s, describe(next))}
		}
		cur = m
	}
	cur[segs[len(segs)-1]] = value
	return nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// yamlErrText renders a YAML library error on one line, without its "yaml: " prefix.
func yamlErrText(err error) string {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		return strings.Join(te.Errors, "; ")
	}
	return strings.TrimPrefix(err.Error(), "yaml: ")
}
