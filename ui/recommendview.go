package ui

import (
	"encoding/json"
	"fmt"
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
