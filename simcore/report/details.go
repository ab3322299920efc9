package report

import (
	"fmt"
	"strings"
)

// DetailSections are the sections `--detail` accepts, in canonical order (aisimulate-cli
// notes, docs/web.md); "all" stands for every one of them.
var DetailSections = []string{"summary", "memory", "time", "energy", "source"}

// detailAll is the --detail word for every section.
const detailAll = "all"

// ParseDetailSections reads a --detail value (a comma list of DetailSections names or
// "all"; blanks around names are ignored) and returns the sections in canonical order,
// without duplicates. The error says which names are allowed.
func ParseDetailSections(v string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(v, ",") {
		s = strings.TrimSpace(s)
		if s == detailAll {
			out = MergeDetailSections(out, DetailSections)
			continue
		}
		if !isDetailSection(s) {
			return nil, fmt.Errorf("invalid section '%s' (choose from %s, %s)", s, strings.Join(DetailSections, ", "), detailAll)
		}
		out = MergeDetailSections(out, []string{s})
	}
	return out, nil
}

// MergeDetailSections adds sections to have, keeping the canonical order without duplicates.
func MergeDetailSections(have, add []string) []string {
	var out []string
	for _, d := range DetailSections {
		if contains(have, d) || contains(add, d) {
			out = append(out, d)
		}
	}
	return out
}

func isDetailSection(s string) bool { return contains(DetailSections, s) }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
