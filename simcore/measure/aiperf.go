package measure

import "slices"

// readAIPerfJSON reads AIPerf's profile_export_aiperf.json (docs/tutorials/
// working-with-profile-exports.md of ai-dynamo/aiperf): one object whose metrics are keyed
// by tag, each {"unit": …, "avg": …, …}, at the top level or (older releases) under
// "records"; the run's settings under "input_config". Metrics read: time_to_first_token and
// inter_token_latency (AIPerf's per-request (latency − TTFT)/(OSL − 1), the TPOT) in ms,
// request_latency (ms) and output_token_throughput (tokens/sec) when present,
// input_sequence_length and output_sequence_length (tokens), request_count. Settings read:
// input_config.endpoint.model_names[0], input_config.loadgen.concurrency or request_rate,
// the synthetic prompts' length draw (readAIPerfLengths) and the date of start_time.
func readAIPerfJSON(file string, root map[string]any) ([]Measurement, error) {
	o := object{file: file, m: root}
	metrics := o
	if rec, ok, err := o.child("records"); err != nil {
		return nil, err
	} else if ok {
		metrics = rec
	}
	m := Measurement{File: file, Format: FormatAIPerfJSON, ID: "#1"}
	var err error
	if m.TTFT, err = metricAvg(metrics, "time_to_first_token", unitMs, true); err != nil {
		return nil, err
	}
	if m.TPOT, err = metricAvg(metrics, "inter_token_latency", unitMs, true); err != nil {
		return nil, err
	}
	if m.E2E, err = metricAvg(metrics, "request_latency", unitMs, false); err != nil {
		return nil, err
	}
	if m.OutputThroughput, err = metricAvg(metrics, "output_token_throughput", unitTokPerSec, false); err != nil {
		return nil, err
	}
	isl, err := metricAvg(metrics, "input_sequence_length", unitTokens, true)
	if err != nil {
		return nil, err
	}
	osl, err := metricAvg(metrics, "output_sequence_length", unitTokens, true)
	if err != nil {
		return nil, err
	}
	m.ISL, m.OSL = meanLength(isl), meanLength(osl)
	if n, err := metricAvg(metrics, "request_count", unitRequests, false); err != nil {
		return nil, err
	} else {
		m.Requests = int(n)
	}
	if err := checkLatencies(metrics, &m, "request_latency.avg"); err != nil {
		return nil, err
	}
	if start, err := o.str("start_time"); err != nil {
		return nil, err
	} else if start != "" {
		if m.Date, err = isoDate(start); err != nil {
			return nil, o.fail("start_time", "%v", err)
		}
	}
	cfg, ok, err := o.child("input_config")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, o.fail("input_config", "missing; the file does not record the load it was measured at")
	}
	if ep, ok, err := cfg.child("endpoint"); err != nil {
		return nil, err
	} else if ok {
		if m.Model, err = firstString(ep, "model_names"); err != nil {
			return nil, err
		}
	}
	lg, ok, err := cfg.child("loadgen")
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, cfg.fail("loadgen", "missing; the file does not record the load it was measured at")
	}
	if m.Concurrency, m.RequestRate, err = lg.load("request_rate", "concurrency", m.Requests); err != nil {
		return nil, err
	}
	if err := readAIPerfLengths(cfg, &m); err != nil {
		return nil, err
	}
	return []Measurement{m}, nil
}

// Units a metric must be recorded in (AIPerf's unit strings).
var (
	unitMs        = []string{"ms"}
	unitTokens    = []string{"tokens"}
	unitRequests  = []string{"requests"}
	unitTokPerSec = []string{"tokens/sec", "tokens/s"}
)

// metricAvg is the avg of the AIPerf aggregate metric at tag (metricField).
func metricAvg(o object, tag string, units []string, required bool) (float64, error) {
	return metricField(o, tag, "avg", units, required)
}

// metricField is the number at key of the AIPerf metric object at tag ({"unit": …, key:
// …}), whose unit must be one of units; 0 when the metric is absent and not required.
func metricField(o object, tag, key string, units []string, required bool) (float64, error) {
	mo, ok, err := o.child(tag)
	if err != nil {
		return 0, err
	}
	if !ok {
		if required {
			return 0, o.fail(tag, "missing; the file does not record it")
		}
		return 0, nil
	}
	unit, err := mo.str("unit")
	if err != nil {
		return 0, err
	}
	if !slices.Contains(units, unit) {
		return 0, mo.fail("unit", "is %q; expected %q (a different unit is not converted)", unit, units[0])
	}
	return mo.positive(key)
}

// firstString is the first element of the string array at k ("" when absent).
func firstString(o object, k string) (string, error) {
	v := o.m[k]
	if v == nil {
		return "", nil
	}
	a, ok := v.([]any)
	if !ok {
		return "", o.fail(k, "must be an array of strings")
	}
	if len(a) == 0 {
		return "", nil
	}
	s, ok := a[0].(string)
	if !ok {
		return "", o.fail(k, "must be an array of strings")
	}
	return s, nil
}
