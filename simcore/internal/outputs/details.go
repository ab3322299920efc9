package outputs

import (
	"fmt"
	"slices"
	"strings"

	"aisimulate/simcore/report"
)

// detailsSchemaVersion is the schema_version of the details object.
const detailsSchemaVersion = "1.0"

// detailUnsupported is the reason of a skipped section: the dynamo stack has no data for any
// detail section.
const detailUnsupported = "unsupported by stack"

// Details is the `details` object of prediction.json for the requested sections (canonical
// names, as report.ParseDetailSections returns them): no section has data for the dynamo stack, so
// every one is listed as skipped. Nil when no section is requested.
func Details(sections []string) (map[string]any, error) {
	if len(sections) == 0 {
		return nil, nil
	}
	skipped := make([]any, 0, len(sections))
	for _, s := range sections {
		if !slices.Contains(report.DetailSections, s) {
			return nil, fmt.Errorf("detail section '%s' is not one of %s", s, strings.Join(report.DetailSections, ", "))
		}
		skipped = append(skipped, map[string]any{"section": s, "reason": detailUnsupported})
	}
	return map[string]any{
		"schema_version":     detailsSchemaVersion,
		"requested_sections": sections,
		"skipped":            skipped,
	}, nil
}
