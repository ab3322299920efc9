package outputs

import (
	"strings"
	"testing"

	"aisimulate/simcore/report"
)

// The document's members (docs/semantics/outputs.md §3.1): intervals null without bands,
// per_request null without capture and [] with capture but no records; details only when
// requested; requests.jsonl mirrors per_request.
func TestDocumentLayout(t *testing.T) {
	sum := map[string]any{report.KeyCompletedRequests: 0}
	d := &Document{Summary: sum}
	got, err := d.PredictionJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "coverage": {
    "capture_per_request": false,
    "capture_planner_details": true,
    "per_request_records": 0
  },
  "intervals": null,
  "per_request": null,
  "planner": null,
  "saturation": null,
  "summary": {
    "completed_requests": 0
  }
}
`
	if string(got) != want {
		t.Errorf("no capture:\n%s", got)
	}
	d = &Document{Summary: sum, CapturePerRequest: true}
	if got, _ = d.PredictionJSON(); !strings.Contains(string(got), `"per_request": [],`) || !strings.Contains(string(got), `"capture_per_request": true,`) {
		t.Errorf("capture without records:\n%s", got)
	}
	if l, err := d.RequestsJSONL(); err != nil || l == nil || len(l) != 0 {
		t.Errorf("requests.jsonl without records = %q, %v; want empty", l, err)
	}
	details, _ := Details([]string{"energy"})
	d = &Document{Summary: sum, CapturePerRequest: true, PerRequest: []any{map[string]any{"uuid": "u1"}, map[string]any{"uuid": "u2"}}, Details: details}
	got, _ = d.PredictionJSON()
	if !strings.Contains(string(got), `"per_request_records": 2`) || !strings.Contains(string(got), "  },\n  \"details\": {\n    \"requested_sections\": [\n      \"energy\"\n    ],") {
		t.Errorf("with records and details:\n%s", got)
	}
	if l, _ := d.RequestsJSONL(); string(l) != "{\"uuid\":\"u1\"}\n{\"uuid\":\"u2\"}\n" {
		t.Errorf("requests.jsonl = %q", l)
	}
	if s, _ := d.StdoutJSON(); string(s) != `{"details":{"requested_sections":["energy"],"schema_version":"1.0","skipped":[{"reason":"unsupported by stack","section":"energy"}]},"summary":{"completed_requests":0}}`+"\n" {
		t.Errorf("stdout = %s", s)
	}
}
