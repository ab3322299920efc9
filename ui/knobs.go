// Package ui is the browser app: vecty components (app.go), plus the plain-Go logic they use
// (form knobs that read and rewrite the YAML, URL state, per-request series, SVG charts), which
// is kept free of syscall/js so it is tested natively.
package ui

import (
	"fmt"
	"strconv"
	"strings"

	"aisimulate/simcore/catalog"
	"aisimulate/simcore/spec"

	yaml "go.yaml.in/yaml/v2"
)

// Knob is one form control bound to a YAML path.
type Knob struct {
	// ID is the DOM id and the key of the knob.
	ID string
	// Label is the text shown next to the control.
	Label string
	// Path is the dotted YAML path the control edits.
	Path string
	// Kind is "select", "text", "int" or "number".
	Kind string
	// Options are the choices of a select (or suggestions of a text field).
	Options []string
	// Value is the current value as text ("" when unset).
	Value string
	// Placeholder is the schema default shown in an empty field.
	Placeholder string
}

// Doc is a parsed configuration that keeps key order, so form edits rewrite the YAML with the
// user's layout (comments are lost on the first form edit; the text editor keeps them).
type Doc struct {
	root yaml.MapSlice
}

// ParseDoc parses YAML text into a Doc; an empty text is an empty mapping.
func ParseDoc(text string) (*Doc, error) {
	var root yaml.MapSlice
	if err := yaml.Unmarshal([]byte(text), &root); err != nil {
		return nil, err
	}
	return &Doc{root: root}, nil
}

// String renders the Doc back to YAML.
func (d *Doc) String() string {
	b, err := yaml.Marshal(d.root)
	if err != nil {
		return ""
	}
	return string(b)
}

func lookup(m yaml.MapSlice, key string) (any, bool) {
	for _, it := range m {
		if k, ok := it.Key.(string); ok && k == key {
			return it.Value, true
		}
	}
	return nil, false
}

// Get returns the value at a dotted path, or nil.
func (d *Doc) Get(path string) any {
	var cur any = d.root
	for _, seg := range strings.Split(path, ".") {
		m, ok := cur.(yaml.MapSlice)
		if !ok {
			return nil
		}
		v, ok := lookup(m, seg)
		if !ok {
			return nil
		}
		cur = v
	}
	return cur
}

// GetString returns the value at path as text ("" when absent or not a scalar).
func (d *Doc) GetString(path string) string {
	switch v := d.Get(path).(type) {
	case nil:
		return ""
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	default:
		return ""
	}
}

func setIn(m yaml.MapSlice, segs []string, v any, del bool) yaml.MapSlice {
	key := segs[0]
	for i, it := range m {
		if k, ok := it.Key.(string); ok && k == key {
			if len(segs) == 1 {
				if del {
					return append(m[:i:i], m[i+1:]...)
				}
				m[i].Value = v
				return m
			}
			child, _ := it.Value.(yaml.MapSlice)
			m[i].Value = setIn(child, segs[1:], v, del)
			return m
		}
	}
	if del {
		return m
	}
	if len(segs) == 1 {
		return append(m, yaml.MapItem{Key: key, Value: v})
	}
	return append(m, yaml.MapItem{Key: key, Value: setIn(nil, segs[1:], v, false)})
}

// Set stores v at a dotted path, creating (or replacing non-mapping) parents.
func (d *Doc) Set(path string, v any) { d.root = setIn(d.root, strings.Split(path, "."), v, false) }

// Delete removes the key at a dotted path if present.
func (d *Doc) Delete(path string) { d.root = setIn(d.root, strings.Split(path, "."), nil, true) }

// Hardware ids offered by the form: every catalog hardware id, sorted.
var Hardware = catalog.HardwareIDs()

// Models suggested by the model field (the field also accepts any text, e.g. a local model
// directory): every catalog model id, in catalog order.
var Models = catalog.Models()

// Roles returns the worker roles of the configured mode.
func (d *Doc) Roles() []string {
	if d.GetString("engine.mode") == spec.ModeDisaggregated {
		return []string{spec.RolePrefill, spec.RoleDecode}
	}
	return []string{spec.RoleAggregated}
}

// loadValuePath is the path of the numeric knob of the current load type.
func (d *Doc) loadValuePath() (string, string) {
	switch d.GetString("traffic.load.type") {
	case "poisson", "constant_rate":
		if d.GetString("traffic.source.type") == "synthetic-session" {
			return "traffic.load.sessions_per_second", "Sessions / s"
		}
		return "traffic.load.requests_per_second", "Requests / s"
	case "trace_timestamps":
		return "traffic.load.speedup", "Speed-up"
	default:
		return "traffic.load.concurrency", "Concurrency"
	}
}

// Knobs lists the form controls for the document, with their current values.
func (d *Doc) Knobs() []Knob {
	ks := []Knob{
		{ID: "model", Label: "Model", Path: "engine.model", Kind: "text", Options: Models},
		{ID: "hardware", Label: "Hardware", Path: "engine.hardware", Kind: "select", Options: Hardware},
		{ID: "backend", Label: "Backend", Path: "engine.backend", Kind: "select", Options: spec.Backends},
		{ID: "mode", Label: "Mode", Path: "engine.mode", Kind: "select", Options: spec.Modes},
	}
	for _, r := range d.Roles() {
		prefix := ""
		if r != spec.RoleAggregated {
			prefix = strings.ToUpper(r[:1]) + r[1:] + " "
		}
		ks = append(ks,
			Knob{ID: r + "-replicas", Label: prefix + "Replicas", Path: "engine.workers." + r + ".parallelism.replicas", Kind: "int"},
			Knob{ID: r + "-tensor", Label: prefix + "Tensor parallel", Path: "engine.workers." + r + ".parallelism.tensor", Kind: "int"})
	}
	lp, ll := d.loadValuePath()
	ks = append(ks,
		Knob{ID: "load-type", Label: "Load", Path: "traffic.load.type", Kind: "select", Options: []string{"concurrency", "poisson", "constant_rate", "trace_timestamps"}},
		Knob{ID: "load-value", Label: ll, Path: lp, Kind: "number"})
	if d.GetString("traffic.source.type") != "trace" {
		stop := "traffic.stop.requests"
		label := "Requests"
		if d.GetString("traffic.source.type") == "synthetic-session" {
			stop, label = "traffic.stop.sessions", "Sessions"
		}
		ks = append(ks, Knob{ID: "stop", Label: label, Path: stop, Kind: "int"})
	}
	for i := range ks {
		ks[i].Value = d.GetString(ks[i].Path)
		if ks[i].Value == "" {
			ks[i].Value = knobDefault(ks[i].ID)
		}
		if ks[i].Value == "" {
			ks[i].Placeholder = d.placeholder(ks[i].ID)
		}
	}
	return ks
}

// knobDefault is the schema default shown when the YAML leaves a knob unset.
func knobDefault(id string) string {
	switch id {
	case "backend":
		return spec.Backends[0]
	case "mode":
		return spec.Modes[0]
	case "load-type":
		return "concurrency"
	}
	if strings.HasSuffix(id, "-replicas") || strings.HasSuffix(id, "-tensor") {
		return "1"
	}
	return ""
}

// placeholder is the default the simulator applies when the YAML leaves a field unset.
func (d *Doc) placeholder(id string) string {
	switch id {
	case "load-value":
		if t := d.GetString("traffic.load.type"); t == "" || t == "concurrency" {
			return "10"
		}
		if d.GetString("traffic.load.type") == "trace_timestamps" {
			return "1.0"
		}
	case "stop":
		if d.Get("traffic") == nil {
			return "100"
		}
	case "model", "hardware":
		return "required"
	}
	return ""
}

// scalar turns form text into a YAML value of the knob's kind; text that does not parse is
// kept as a string so the simulator reports the error at the field.
func scalar(kind, text string) any {
	t := strings.TrimSpace(text)
	switch kind {
	case "int":
		if n, err := strconv.Atoi(t); err == nil {
			return n
		}
	case "number":
		if n, err := strconv.Atoi(t); err == nil {
			return n
		}
		if f, err := strconv.ParseFloat(t, 64); err == nil {
			return f
		}
	}
	return t
}

// Apply sets knob id to text, restructuring the document where the schema needs it (mode and
// load type are tagged unions), and returns an error only for an unknown knob.
func (d *Doc) Apply(id, text string) error {
	var k *Knob
	ks := d.Knobs()
	for i := range ks {
		if ks[i].ID == id {
			k = &ks[i]
		}
	}
	if k == nil {
		return fmt.Errorf("unknown form field %q", id)
	}
	switch id {
	case "mode":
		d.setMode(text)
		return nil
	case "load-type":
		old := d.GetString(k.Path)
		if old == text {
			return nil
		}
		oldPath, _ := d.loadValuePath()
		oldVal := d.Get(oldPath)
		d.Set("traffic.load", yaml.MapSlice{{Key: "type", Value: text}})
		newPath, _ := d.loadValuePath()
		switch {
		case oldVal != nil && text != "trace_timestamps" && old != "trace_timestamps":
			d.Set(newPath, oldVal)
		case text == "concurrency":
			d.Set(newPath, 10)
		case text == "trace_timestamps":
			d.Set(newPath, 1.0)
		default:
			d.Set(newPath, 1)
		}
		return nil
	}
	if strings.TrimSpace(text) == "" {
		d.Delete(k.Path)
		return nil
	}
	d.Set(k.Path, scalar(k.Kind, text))
	return nil
}

// setMode switches between aggregated and disaggregated, moving the worker settings.
func (d *Doc) setMode(mode string) {
	cur := d.GetString("engine.mode")
	if cur == "" {
		cur = spec.Modes[0]
	}
	if cur == mode {
		d.Set("engine.mode", mode)
		return
	}
	d.Set("engine.mode", mode)
	workers := func(role string) string { return "engine.workers." + role }
	if mode == spec.ModeDisaggregated {
		agg := d.Get(workers(spec.RoleAggregated))
		d.Delete(workers(spec.RoleAggregated))
		d.Set(workers(spec.RolePrefill), deepCopy(agg))
		d.Set(workers(spec.RoleDecode), deepCopy(agg))
		return
	}
	dec := d.Get(workers(spec.RoleDecode))
	d.Delete(workers(spec.RolePrefill))
	d.Delete(workers(spec.RoleDecode))
	d.Delete("engine.kv_transfer")
	d.Set(workers(spec.RoleAggregated), deepCopy(dec))
}

func deepCopy(v any) any {
	switch t := v.(type) {
	case nil:
		return yaml.MapSlice{}
	case yaml.MapSlice:
		out := make(yaml.MapSlice, len(t))
		for i, it := range t {
			out[i] = yaml.MapItem{Key: it.Key, Value: deepCopy(it.Value)}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i := range t {
			out[i] = deepCopy(t[i])
		}
		return out
	default:
		return v
	}
}

// FieldFor returns the id of the knob that should show an error at the dotted path: the knob
// whose path is the longest segment-wise prefix of the error path, else "" (show it at the
// editor: errors about a whole section, such as an unknown key, are not any one field's).
func FieldFor(ks []Knob, errPath string) string {
	if errPath == "" {
		return ""
	}
	best, bestLen := "", -1
	for _, k := range ks {
		if k.Path == errPath || strings.HasPrefix(errPath, k.Path+".") {
			if len(k.Path) > bestLen {
				best, bestLen = k.ID, len(k.Path)
			}
		}
	}
	return best
}
