package spec

// Helpers on the generic configuration tree (map[string]any, []any, json.Number, string,
// bool, nil) that the recommendation code reads and writes by dotted path.

import (
	"encoding/json"
	"strings"
)

// getPath returns the value at a dotted path of a tree, and whether it is present.
func getPath(tree map[string]any, path string) (any, bool) {
	cur := any(tree)
	for _, seg := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// setPath writes value at a dotted path, creating missing intermediate mappings.
func setPath(tree map[string]any, path string, value any) {
	segs := strings.Split(path, ".")
	cur := tree
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[s] = next
		}
		cur = next
	}
	cur[segs[len(segs)-1]] = value
}

// deletePath removes the value at a dotted path (no-op when absent).
func deletePath(tree map[string]any, path string) {
	segs := strings.Split(path, ".")
	cur := tree
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
	delete(cur, segs[len(segs)-1])
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func numbers(texts []string) []any {
	out := make([]any, len(texts))
	for i, t := range texts {
		out[i] = json.Number(t)
	}
	return out
}

func strs(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

func containsAny(list []any, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// GetPath returns the value at a dotted path of a configuration tree.
func GetPath(tree map[string]any, path string) (any, bool) { return getPath(tree, path) }
