package spec

import (
	"encoding/json"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// misspelledKey is the dotted path of the first object key of tree (a JSON value decoded
// into generic maps and slices) that is not spelled exactly as a JSON field name of t, or ""
// when every key is. encoding/json matches object keys to fields case-insensitively, so
// "PREFILL_SCALE" would fill prefill_scale and, written twice in two spellings, one would
// silently win; a strict reader refuses both. Map keys are free-form (their values are
// checked), and a type that decodes itself (json.Unmarshaler) checks its own keys.
func misspelledKey(tree any, t reflect.Type, path string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return ""
	}
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch v := tree.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		switch t.Kind() {
		case reflect.Map:
			for _, k := range keys {
				if bad := misspelledKey(v[k], t.Elem(), join(k)); bad != "" {
					return bad
				}
			}
		case reflect.Struct:
			fields := map[string]reflect.Type{}
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
					fields[name] = f.Type
				}
			}
			for _, k := range keys {
				ft, ok := fields[k]
				if !ok {
					return join(k)
				}
				if bad := misspelledKey(v[k], ft, join(k)); bad != "" {
					return bad
				}
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, e := range v {
				if bad := misspelledKey(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); bad != "" {
					return bad
				}
			}
		}
	}
	return ""
}
