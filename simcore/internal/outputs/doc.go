// Package outputs turns a run (replay.Result) into what prediction.json, requests.jsonl and
// the readable table hold: the summary (Summary), the per-request records (Record), the
// overview of the deployment and its SLA attainment (NewOverview), the details object, and
// the one builder of the documents (Document), which encodes them with simcore/canon
// (docs/semantics/outputs.md). The key names it writes are simcore/report's.
package outputs
