package measure

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"sort"
	"strconv"
)

// readAIPerfJSONL reads AIPerf's per-request profile_export.jsonl: one record per line,
// {"metadata": {request_start_ns, request_end_ns, was_cancelled, …}, "metrics": {tag:
// {"value": …, "unit": …}}, "error": …}. Records with an error or cancelled are skipped;
// the others' time_to_first_token, inter_token_latency, request_latency (ms),
// input_sequence_length and output_sequence_length (tokens) are averaged. The file records
// no load setting: the load is the peak number of requests in flight (from the start and end
// times), replayed as a closed loop, and the date is the first request's start (UTC).
func readAIPerfJSONL(file string, data []byte) ([]Measurement, error) {
	var sumTTFT, sumTPOT, sumE2E, sumISL, sumOSL float64
	n, nE2E := 0, 0
	var events []flightEvent
	first := int64(math.MaxInt64)
	err := eachLine(file, data, func(line int, text []byte) error {
		dec := json.NewDecoder(bytes.NewReader(quoteNonFinite(text)))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return &Error{File: file, Field: lineField(line, ""), Msg: "not JSON: " + err.Error()}
		}
		root, ok := v.(map[string]any)
		if !ok {
			return &Error{File: file, Field: lineField(line, ""), Msg: "not a JSON object"}
		}
		rec := object{file: file, path: lineField(line, "") + ":", m: root}
		if rec.has("error") {
			return nil
		}
		meta, ok, err := rec.child("metadata")
		if err != nil {
			return err
		}
		if ok {
			if c, _ := meta.m["was_cancelled"].(bool); c {
				return nil
			}
		}
		metrics, ok, err := rec.child("metrics")
		if err != nil {
			return err
		}
		if !ok {
			return rec.fail("metrics", "missing")
		}
		ttft, err := metricValue(metrics, "time_to_first_token", unitMs, true)
		if err != nil {
			return err
		}
		tpot, err := metricValue(metrics, "inter_token_latency", unitMs, true)
		if err != nil {
			return err
		}
		e2e, err := metricValue(metrics, "request_latency", unitMs, false)
		if err != nil {
			return err
		}
		isl, err := metricValue(metrics, "input_sequence_length", unitTokens, true)
		if err != nil {
			return err
		}
		osl, err := metricValue(metrics, "output_sequence_length", unitTokens, true)
		if err != nil {
			return err
		}
		if e2e > 0 && e2e < ttft {
			return metrics.fail("request_latency.value", "%g ms is below time_to_first_token %g ms: the units do not match", e2e, ttft)
		}
		if ok {
			start, end, err := spanNs(meta)
			if err != nil {
				return err
			}
			if end > 0 {
				events = append(events, flightEvent{start, 1}, flightEvent{end, -1})
				first = min(first, start)
			}
		}
		sumTTFT += ttft
		sumTPOT += tpot
		sumISL += isl
		sumOSL += osl
		if e2e > 0 {
			sumE2E += e2e
			nE2E++
		}
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, &Error{File: file, Msg: "no successful request record (every record has an error or was cancelled)"}
	}
	if len(events) == 0 {
		return nil, &Error{File: file, Field: "metadata.request_start_ns", Msg: "missing; the load cannot be known without the request times"}
	}
	f := float64(n)
	m := Measurement{File: file, Format: FormatAIPerfJSONL, ID: "#1", Requests: n,
		TTFT: sumTTFT / f, TPOT: sumTPOT / f, ISL: meanLength(sumISL / f), OSL: meanLength(sumOSL / f),
		Concurrency: peakInFlight(events), Date: epochDate(first)}
	if nE2E == n {
		m.E2E = sumE2E / f
	}
	return []Measurement{m}, nil
}

// metricValue is the value of a per-request AIPerf metric (metricField).
func metricValue(o object, tag string, units []string, required bool) (float64, error) {
	return metricField(o, tag, "value", units, required)
}

// spanNs is a record's request_start_ns and request_end_ns (0, 0 when not recorded).
func spanNs(meta object) (start, end int64, err error) {
	if !meta.has("request_start_ns") || !meta.has("request_end_ns") {
		return 0, 0, nil
	}
	if start, err = meta.nanoseconds("request_start_ns"); err != nil {
		return 0, 0, err
	}
	if end, err = meta.nanoseconds("request_end_ns"); err != nil {
		return 0, 0, err
	}
	if end < start {
		return 0, 0, meta.fail("request_end_ns", "is before request_start_ns")
	}
	return start, end, nil
}

// flightEvent is a request starting (+1) or ending (−1) at a time in ns.
type flightEvent struct {
	at    int64
	delta int
}

// peakInFlight is the most requests in flight at once over half-open intervals [start,
// end): ends sort before starts at the same time.
func peakInFlight(ev []flightEvent) int {
	sort.Slice(ev, func(i, j int) bool {
		if ev[i].at != ev[j].at {
			return ev[i].at < ev[j].at
		}
		return ev[i].delta < ev[j].delta
	})
	cur, peak := 0, 0
	for _, e := range ev {
		cur += e.delta
		peak = max(peak, cur)
	}
	return peak
}

// eachLine calls fn with every non-blank line of data (1-based numbers), refusing a line
// longer than MaxLineBytes or more than MaxRecords lines before parsing them.
func eachLine(file string, data []byte, fn func(line int, text []byte) error) error {
	if n := bytes.Count(data, []byte("\n")); n > MaxRecords {
		return &Error{File: file, Msg: "more than " + strconv.Itoa(MaxRecords) + " lines; split the file"}
	}
	line, records := 0, 0
	for len(data) > 0 {
		line++
		i := bytes.IndexByte(data, '\n')
		text := data
		if i >= 0 {
			text, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(text) > MaxLineBytes {
			return &Error{File: file, Field: lineField(line, ""), Msg: "longer than " + strconv.Itoa(MaxLineBytes) + " bytes"}
		}
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if records++; records > MaxRecords {
			return &Error{File: file, Field: lineField(line, ""), Msg: "more than " + strconv.Itoa(MaxRecords) + " records; split the file"}
		}
		if err := fn(line, text); err != nil {
			return err
		}
	}
	return nil
}

// errEmpty is a file with nothing in it.
var errEmpty = errors.New("the file is empty")
