package measure

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Read detects the format of a measurement file from its content and reads its
// measurements. file names the file in errors. A file larger than MaxFileBytes, binary (a
// compressed archive, a device's zeros), or of no known format is an *Error.
func Read(file string, data []byte) ([]Measurement, error) {
	format, err := Detect(file, data)
	if err != nil {
		return nil, err
	}
	switch format {
	case FormatCSV:
		return readCSV(file, data)
	case FormatAIPerfJSONL:
		return readAIPerfJSONL(file, data)
	}
	runs, err := decodeObjects(data)
	if err != nil {
		return nil, &Error{File: file, Msg: "not JSON: " + err.Error()}
	}
	switch format {
	case FormatAIPerfJSON:
		return readAIPerfJSON(file, runs[0])
	case FormatVLLM:
		return readVLLM(file, runs)
	}
	return readSGLang(file, runs)
}

// Detect names the format of a measurement file from its content (docs/calibration.md,
// "Measurement files"): the measured-runs CSV header; an AIPerf record line (metadata and
// metrics); AIPerf aggregate metrics (time_to_first_token, or records, with input_config);
// vLLM's model_id/date/num_prompts beside mean_ttft_ms; SGLang's mean_e2e_latency_ms beside
// mean_ttft_ms.
func Detect(file string, data []byte) (string, error) {
	switch {
	case len(data) == 0:
		return "", &Error{File: file, Msg: errEmpty.Error()}
	case len(data) > MaxFileBytes:
		return "", &Error{File: file, Msg: "larger than " + strconv.Itoa(MaxFileBytes>>20) + " MiB; keep one benchmark's results per file"}
	case bytes.IndexByte(data, 0) >= 0 || !utf8.Valid(data[:min(len(data), 4096)]):
		return "", &Error{File: file, Msg: "a binary file, not a benchmark result (compressed files are not read: decompress it first)"}
	}
	if IsCSV(data) {
		return FormatCSV, nil
	}
	head := data[:min(len(data), 64<<10)]
	has := func(k string) bool { return bytes.Contains(head, []byte(`"`+k+`"`)) }
	first, _, _ := bytes.Cut(bytes.TrimLeft(data, " \t\r\n"), []byte("\n"))
	firstHas := func(k string) bool { return bytes.Contains(first, []byte(`"`+k+`"`)) }
	switch {
	case firstHas("metadata") && firstHas("metrics"):
		return FormatAIPerfJSONL, nil
	case (has("time_to_first_token") || has("records")) && has("input_config"):
		return FormatAIPerfJSON, nil
	case has("mean_ttft_ms") && has("mean_e2e_latency_ms"):
		return FormatSGLang, nil
	case has("mean_ttft_ms") && (has("model_id") || has("num_prompts") || has("date")):
		return FormatVLLM, nil
	}
	return "", &Error{File: file, Msg: "not a measurement file: expected AIPerf's profile_export_aiperf.json or profile_export.jsonl, " +
		"the JSON of `vllm bench serve --save-result`, SGLang bench_serving's JSONL, or a measured-runs CSV (docs/calibration.md)"}
}
