// Package measure reads serving-benchmark results into measurements (docs/calibration.md,
// "Measurement files"): AIPerf's profile_export_aiperf.json and per-request
// profile_export.jsonl, the JSON that `vllm bench serve --save-result` writes, SGLang
// bench_serving's JSONL and rows of the measured-runs CSV. The format is detected from the
// content. Readers take bytes and return measurements: no file system, no clock. Every
// number is checked (finite, in range, in the expected unit) and a file that cannot be read
// as a measurement is an *Error naming the file and the field.
package measure

import "aisimulate/simcore/spec"

// Formats a measurement file can have, as Measurement.Format and the profile's provenance
// name them.
const (
	FormatAIPerfJSON  = "aiperf-json"
	FormatAIPerfJSONL = "aiperf-jsonl"
	FormatVLLM        = "vllm-bench"
	FormatSGLang      = "sglang-bench"
	FormatCSV         = "measured-csv"
)

// Formats lists every format, in the order Detect tries them.
var Formats = []string{FormatCSV, FormatAIPerfJSONL, FormatAIPerfJSON, FormatVLLM, FormatSGLang}

// Measurement is one measured benchmark run: its workload, its mean latencies and, as far as
// the file records them, the deployment it ran on. Zero values mean "not recorded".
type Measurement struct {
	// File is the name the file was given as (the --measurements path); Format its format.
	File, Format string
	// ID names the run inside its file: a CSV row's id, else "#<n>" for the n-th run (1-based).
	ID string
	// Date is when it was measured, YYYY-MM-DD, from the file itself ("" when it records none).
	Date string

	// Model, Backend and BackendVersion are what the file records (a benchmark client's own
	// "backend" is its endpoint type, not the server's, and is not read).
	Model, Backend, BackendVersion string
	// Row is the deployment of a measured-runs CSV row; nil for benchmark-client files.
	Row *Row

	// Concurrency is the closed-loop load (requests in flight); 0 for an open-loop rate.
	Concurrency int
	// RequestRate is the open-loop arrival rate in requests per second (0 for a closed loop).
	RequestRate float64
	// Requests is the number of completed requests (0 when not recorded).
	Requests int
	// ISL and OSL are the mean input and output lengths in tokens (a measured-runs CSV row:
	// the lengths its client was given; MeanLengths are its means when it drew around them).
	ISL, OSL int
	// Lengths is how the run's client drew each request's lengths (docs/calibration.md,
	// "Length draws"), read when LengthsRecorded; DrawISL and DrawOSL are the lengths it drew
	// around, the client's settings, when the file records them (0 otherwise).
	Lengths          spec.Lengths
	LengthsRecorded  bool
	DrawISL, DrawOSL int

	// TTFT and TPOT are the mean time to first token and time per output token, ms.
	TTFT, TPOT float64
	// E2E is the mean end-to-end latency (ms) and OutputThroughput the output tokens per
	// second; 0 when the file does not record them.
	E2E, OutputThroughput float64
}

// Name is "<file> <id>", how reports and errors name one measurement.
func (m *Measurement) Name() string { return m.File + " " + m.ID }
