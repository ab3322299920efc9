package ui

import (
	"fmt"
	"strconv"
	"strings"

	"aisimulate/wasm/jsapi/recview"

	yaml "go.yaml.in/yaml/v2"
)

// MaxPicked is how many ranked deployments can be picked for the side-by-side comparison.
const MaxPicked = 2

// TogglePick picks the candidate id, or unpicks it when it is picked already; picking one
// more than MaxPicked drops the earliest pick, so the newest two are compared (docs/web.md,
// "Recommend").
func TogglePick(picked []string, id string) []string {
	out := make([]string, 0, MaxPicked)
	found := false
	for _, p := range picked {
		if p == id {
			found = true
			continue
		}
		out = append(out, p)
	}
	if !found {
		out = append(out, id)
	}
	if len(out) > MaxPicked {
		out = out[len(out)-MaxPicked:]
	}
	return out
}

// CompareLine is one line of the comparison of two ranked deployments A and B: what is
// compared, A's and B's value, and B's change against A ("" when not a number).
type CompareLine struct {
	Label, A, B, Change string
}

// CompareRows lines up two rows of the ranked table as the table shows them: the
// deployment, GPUs, the score and its 80 % interval, every table metric, and the prices when
// the view has them; each number with B's change against A (ChangeText).
func CompareRows(v *recview.View, a, b recview.Row) []CompareLine {
	num := func(label string, x, y *float64) CompareLine {
		l := CompareLine{Label: label, A: OptionalNum(x), B: OptionalNum(y)}
		if x != nil && y != nil {
			l.Change = ChangeText(*y, *x)
		}
		return l
	}
	ga, gb := float64(a.UsedGPUs), float64(b.UsedGPUs)
	lines := []CompareLine{
		{Label: "rank", A: strconv.Itoa(a.Rank), B: strconv.Itoa(b.Rank)},
		{Label: "deployment", A: a.Summary, B: b.Summary},
		{Label: "GPUs", A: strconv.Itoa(a.UsedGPUs), B: strconv.Itoa(b.UsedGPUs), Change: ChangeText(gb, ga)},
		num(ScoreHeading(v), a.Score, b.Score),
		{Label: "80 % interval", A: IntervalCell(a.Interval, a.WithinError), B: IntervalCell(b.Interval, b.WithinError)},
	}
	for _, m := range recview.RowMetrics {
		lines = append(lines, num(m.Heading, a.Metrics[m.Key], b.Metrics[m.Key]))
	}
	if a.CostPerHour != nil || b.CostPerHour != nil {
		lines = append(lines, num("USD/h", a.CostPerHour, b.CostPerHour), num("USD/M tok", a.CostPerMTok, b.CostPerMTok))
	}
	return lines
}

// ScoreHeading is the score column's heading: "score (<the target's first objective>)".
func ScoreHeading(v *recview.View) string {
	name := v.Target
	if len(v.Objectives) > 0 {
		name = v.Objectives[0]
	}
	return "score (" + name + ")"
}

// ConfigDiff lists the settings in which two configurations differ, as
// "dotted.path: A's value → B's value" ("–" where one lacks the setting), in the order of
// A's text, then the settings only B has in B's order. Two texts that do not parse as YAML
// give one line saying so.
func ConfigDiff(a, b string) []string {
	var ta, tb yaml.MapSlice
	if yaml.Unmarshal([]byte(a), &ta) != nil || yaml.Unmarshal([]byte(b), &tb) != nil {
		return []string{"the configurations could not be read"}
	}
	fa, fb := map[string]string{}, map[string]string{}
	var keys []string
	flatten(ta, "", func(k, v string) { fa[k] = v; keys = append(keys, k) })
	flatten(tb, "", func(k, v string) {
		fb[k] = v
		if _, ok := fa[k]; !ok {
			keys = append(keys, k)
		}
	})
	var out []string
	for _, k := range keys {
		va, oka := fa[k]
		vb, okb := fb[k]
		if oka && okb && va == vb {
			continue
		}
		if !oka {
			va = "–"
		}
		if !okb {
			vb = "–"
		}
		out = append(out, k+": "+va+" → "+vb)
	}
	return out
}

// flatten calls leaf with the dotted path and the value of every scalar of a YAML tree;
// list items are path[i].
func flatten(node any, path string, leaf func(path, value string)) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch n := node.(type) {
	case yaml.MapSlice:
		for _, it := range n {
			flatten(it.Value, join(fmt.Sprint(it.Key)), leaf)
		}
	case []any:
		for i, x := range n {
			flatten(x, path+"["+strconv.Itoa(i)+"]", leaf)
		}
	case nil:
		leaf(path, "null")
	default:
		leaf(path, strings.TrimSpace(fmt.Sprint(n)))
	}
}
