package outputs

import (
	"aisimulate/simcore/canon"
	"aisimulate/simcore/report"
)

// Document is everything prediction.json holds (docs/semantics/outputs.md §3.1), plus the optional details
// object of --detail. It is the one builder of prediction.json and of the `--format json`
// standard output, used by every target through simcore.Predict.
type Document struct {
	// CapturePerRequest is whether per-request records were asked for.
	CapturePerRequest bool
	// PerRequest are the records of docs/semantics/outputs.md §6 in record order (ignored without capture).
	PerRequest []any
	// Planner is the planner section (docs/semantics/outputs.md §5), nil when the Planner is disabled.
	Planner any
	// Summary is the summary object (docs/semantics/outputs.md §3.2).
	Summary map[string]any
	// Saturation is the saturation section (Saturation, docs/semantics/outputs.md §3.4).
	Saturation map[string]any
	// Intervals is the `intervals` object (docs/uncertainty.md, built by
	// uncertainty.Object); nil writes `"intervals": null`.
	Intervals map[string]any
	// Details is the details object (Details), nil when no detail section was requested.
	Details map[string]any
	// Uncalibrated and Calibration are written when a calibration profile applies
	// (docs/calibration.md): the default model's summary and the calibration section.
	Uncalibrated, Calibration map[string]any
	// Stream, when non-nil, replaces PerRequest: the records are made one at a time while
	// WriteOutputs encodes them (stream.go), so they are never all held.
	Stream *RecordStream
}

// tree is prediction.json as canonical-encoder input: coverage, details (only when
// requested), intervals, per_request, planner, saturation and summary.
func (d *Document) tree() map[string]any {
	var perRequest any
	records := 0
	if d.CapturePerRequest {
		list := d.PerRequest
		if list == nil {
			list = []any{}
		}
		perRequest, records = list, len(list)
		if d.Stream != nil && d.Stream.Len > 0 {
			perRequest, records = []any{streamMarker}, d.Stream.Len
		}
	}
	doc := map[string]any{
		"coverage": map[string]any{
			"capture_per_request":     d.CapturePerRequest,
			"capture_planner_details": true,
			"per_request_records":     records,
		},
		"per_request": perRequest,
		"planner":     d.Planner,
		"summary":     d.Summary,
	}
	doc[report.KeySaturation] = nil // a nil map would be written {}
	if d.Saturation != nil {
		doc[report.KeySaturation] = d.Saturation
	}
	doc[report.KeyIntervals] = nil
	if d.Intervals != nil {
		doc[report.KeyIntervals] = d.Intervals
	}
	if d.Details != nil {
		doc["details"] = d.Details
	}
	if d.Calibration != nil {
		doc[report.KeyUncalibrated], doc[report.KeyCalibration] = d.Uncalibrated, d.Calibration
	}
	return doc
}

// PredictionJSON encodes prediction.json: pretty canonical JSON ending in one newline.
func (d *Document) PredictionJSON() ([]byte, error) { return canon.Pretty(d.tree()) }

// StdoutJSON encodes the `--format json` standard output: the summary object, or
// {"details": …, "summary": …} when details were requested, compact, then a newline
// (docs/semantics/outputs.md §7.1).
func (d *Document) StdoutJSON() ([]byte, error) {
	if d.Details == nil {
		return d.SummaryJSON()
	}
	return compactLine(map[string]any{"details": d.Details, "summary": d.Summary})
}

// RequestsJSONL encodes requests.jsonl: the per-request records in compact canonical JSON,
// one per line (docs/semantics/outputs.md §6), the same records and order as prediction.json's per_request;
// empty without capture.
func (d *Document) RequestsJSONL() ([]byte, error) {
	lines := []byte{}
	if !d.CapturePerRequest {
		return lines, nil
	}
	var err error
	for _, rec := range d.PerRequest {
		if lines, err = canon.AppendCompact(lines, rec); err != nil {
			return nil, err
		}
		lines = append(lines, '\n')
	}
	return lines, nil
}

// SummaryJSON encodes the summary object in compact canonical JSON plus a newline.
func (d *Document) SummaryJSON() ([]byte, error) { return compactLine(d.Summary) }

func compactLine(v any) ([]byte, error) {
	b, err := canon.Compact(v)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
