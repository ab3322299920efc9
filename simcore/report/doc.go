// Package report is what every target reads of a prediction: the summary key names, the
// cards of the browser and the embed, the detail section names, and the two tables
// (docs/semantics/outputs.md). It holds no simulator: the values themselves are computed by
// simcore/internal/outputs from a run, so the browser app, which only shows them, does not
// link the simulator (docs/architecture.md, "Layers").
package report
