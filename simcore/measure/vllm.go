package measure

// readVLLM reads the JSON `vllm bench serve --save-result` (benchmarks/benchmark_serving.py)
// writes, one run per object (--append-result appends one object per line). Fields read:
// date (YYYYMMDD-HHMMSS), model_id, completed, total_input_tokens, total_output_tokens,
// request_rate ("inf" or a number), max_concurrency, mean_ttft_ms, mean_tpot_ms and, when
// present, mean_e2el_ms and output_throughput (tokens/s). It does not record the client's
// --random-range-ratio, so its length draw is calibrate's --lengths.
func readVLLM(file string, runs []map[string]any) ([]Measurement, error) {
	out := make([]Measurement, 0, len(runs))
	for i, run := range runs {
		o := runObject(file, runs, i, run)
		m := Measurement{File: file, Format: FormatVLLM, ID: "#" + itoa(i+1)}
		var err error
		if m.Model, err = o.str("model_id"); err != nil {
			return nil, err
		}
		date, err := o.str("date")
		if err != nil {
			return nil, err
		}
		if date != "" {
			if m.Date, err = compactDate(date); err != nil {
				return nil, o.fail("date", "%v", err)
			}
		}
		if err := readClientRun(o, &m, "mean_e2el_ms"); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// readSGLang reads SGLang bench_serving's JSONL output (python/sglang/bench_serving.py,
// --output-file), one run per line. Fields read: completed, total_input_tokens,
// total_output_tokens, request_rate (Infinity or a number), max_concurrency, mean_ttft_ms,
// mean_tpot_ms, mean_e2e_latency_ms, output_throughput and, when present, model_id and the
// random datasets' length draw (readSGLangLengths). The file records no date and no served
// model: give the deployment with --config.
func readSGLang(file string, runs []map[string]any) ([]Measurement, error) {
	out := make([]Measurement, 0, len(runs))
	for i, run := range runs {
		o := runObject(file, runs, i, run)
		m := Measurement{File: file, Format: FormatSGLang, ID: "#" + itoa(i+1)}
		var err error
		if m.Model, err = o.str("model_id"); err != nil {
			return nil, err
		}
		if err := readClientRun(o, &m, "mean_e2e_latency_ms"); err != nil {
			return nil, err
		}
		if err := readSGLangLengths(o, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// runObject is the i-th run of a file, its fields named "line <i+1>: key" when the file
// holds several runs and plain "key" when it holds one.
func runObject(file string, runs []map[string]any, i int, run map[string]any) object {
	o := object{file: file, m: run}
	if len(runs) > 1 {
		o.path = lineField(i+1, "") + ":"
	}
	return o
}

// readClientRun reads the fields vLLM's and SGLang's benchmark clients share: the
// completed requests and their token totals, the load and the mean latencies (e2eKey names
// the mean end-to-end latency, which the two clients spell differently).
func readClientRun(o object, m *Measurement, e2eKey string) error {
	var err error
	if m.Requests, err = o.count("completed"); err != nil {
		return err
	}
	in, err := o.positive("total_input_tokens")
	if err != nil {
		return err
	}
	outTok, err := o.positive("total_output_tokens")
	if err != nil {
		return err
	}
	m.ISL, m.OSL = meanLength(in/float64(m.Requests)), meanLength(outTok/float64(m.Requests))
	if m.Concurrency, m.RequestRate, err = o.load("request_rate", "max_concurrency", m.Requests); err != nil {
		return err
	}
	if m.TTFT, err = o.positive("mean_ttft_ms"); err != nil {
		return err
	}
	if m.TPOT, err = o.positive("mean_tpot_ms"); err != nil {
		return err
	}
	if m.E2E, err = o.optPositive(e2eKey); err != nil {
		return err
	}
	if m.OutputThroughput, err = o.optPositive("output_throughput"); err != nil {
		return err
	}
	return checkLatencies(o, m, e2eKey)
}

// checkLatencies refuses means that contradict each other: a mean end-to-end latency below
// the mean time to first token is a unit mismatch or a corrupted file.
func checkLatencies(o object, m *Measurement, e2eKey string) error {
	if m.E2E > 0 && m.E2E < m.TTFT {
		return o.fail(e2eKey, "mean end-to-end latency %g ms is below the mean TTFT %g ms: the units do not match", m.E2E, m.TTFT)
	}
	return nil
}
