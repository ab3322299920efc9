package ui

import (
	"encoding/json"
	"fmt"
	"html"
	"strings"

	"aisimulate/wasm/jsapi/recview"
)

// ParseRecommendView decodes the view the core module returns with a recommendation.
func ParseRecommendView(text string) (*recview.View, error) {
	var v recview.View
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ParsePoints decodes the chart points the core reports after a round.
func ParsePoints(text string) ([]recview.Point, error) {
	var pts []recview.Point
	err := json.Unmarshal([]byte(text), &pts)
	return pts, err
}

// Axis titles of the Pareto chart: recommend's objectives throughput_per_gpu
// (output_throughput_tok_s / average GPUs) and throughput_per_user
// (mean_output_token_throughput_per_user), docs/recommend.md "Scoring and ranking".
const (
	paretoXTitle = "throughput_per_gpu (output tok/s per GPU)"
	paretoYTitle = "throughput_per_user (tok/s)"
)

// ParetoSVG draws every simulated candidate at (throughput_per_gpu, throughput_per_user):
// feasible candidates as filled dots, infeasible ones (SLA or goodput constraint) as hollow
// rings, ranked ones labelled with their rank. Every point carries data-candidate (the page
// opens that candidate as a prediction on click) and a <title> with its configuration summary.
func ParetoSVG(v *recview.View) string {
	const title = "Simulated candidates"
	xmax, ymax, n := 0.0, 0.0, 0
	for _, p := range v.Points {
		if p.X == nil || p.Y == nil {
			continue
		}
		xmax, ymax = max(xmax, *p.X), max(ymax, *p.Y)
		n++
	}
	if n == 0 {
		return svgEmpty(title, "no simulated candidate")
	}
	x1, y1 := countAxisMax(xmax), countAxisMax(ymax)
	var b strings.Builder
	svgOpen(&b, title)
	axes(&b, 0, x1, y1, paretoXTitle, paretoYTitle)
	// Infeasible first, so feasible dots are drawn on top.
	for _, feasible := range []bool{false, true} {
		for _, p := range v.Points {
			if p.Feasible != feasible || p.X == nil || p.Y == nil {
				continue
			}
			cx := float64(padL) + float64(plotW)**p.X/x1
			cy := float64(padT+plotH) - float64(plotH)**p.Y/y1
			class, style := "pt infeasible", fmt.Sprintf(`fill="none" stroke="%s" stroke-width="1.6"`, Palette[1])
			if feasible {
				class, style = "pt feasible", fmt.Sprintf(`fill="%s" stroke="#fff" stroke-width="1"`, Palette[0])
			}
			tip := p.CandidateID + " (" + p.Status + ")"
			if p.Rank > 0 {
				tip = "#" + fmt.Sprint(p.Rank) + " " + tip
			}
			tip += "\n" + p.Summary + " · " + countText(p.UsedGPUs, "GPU") + "\n" + FormatNum(*p.X) + " tok/s per GPU, " + FormatNum(*p.Y) + " tok/s per user"
			fmt.Fprintf(&b, `<circle class="%s" data-candidate="%s" data-feasible="%t" cx="%.1f" cy="%.1f" r="5" %s><title>%s</title></circle>`,
				class, html.EscapeString(p.CandidateID), feasible, cx, cy, style, html.EscapeString(tip))
			if p.Rank > 0 {
				fmt.Fprintf(&b, `<text class="pt-rank" x="%.1f" y="%.1f">%d</text>`, cx+6, cy-5, p.Rank)
			}
		}
	}
	fmt.Fprintf(&b, `<circle cx="%d" cy="13" r="4" fill="%s"/><text x="%d" y="16" class="chart-note">feasible</text>`, chartW-padR-130, Palette[0], chartW-padR-123)
	fmt.Fprintf(&b, `<circle cx="%d" cy="13" r="4" fill="none" stroke="%s" stroke-width="1.6"/><text x="%d" y="16" class="chart-note">infeasible</text>`, chartW-padR-65, Palette[1], chartW-padR-58)
	b.WriteString(`</svg>`)
	return b.String()
}

// BundleFile is one file of a YAML bundle.
type BundleFile struct {
	// Name is the file's path in the CLI's output directory (recommendations/0001.yaml).
	Name string
	// Data is its text.
	Data string
}

// YAMLBundle joins the numbered configurations into one multi-document YAML file, the
// page's single download of recommendations/ (docs/web.md, "Recommend"): each document is
// "---", a comment line "# <name>", then the file's bytes unchanged.
func YAMLBundle(files []BundleFile) string {
	var b strings.Builder
	for _, f := range files {
		b.WriteString("---\n# " + f.Name + "\n" + f.Data)
		if !strings.HasSuffix(f.Data, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// OptionalNum formats a nullable number for the table ("–" for null).
func OptionalNum(p *float64) string {
	if p == nil {
		return "–"
	}
	return FormatNum(*p)
}

// countText is "1 configuration", "3 configurations".
func countText(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprint(n) + " " + noun + "s"
}
