package measure

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"strings"
	"testing"

	"aisimulate/simcore/spec"

	"github.com/google/go-cmp/cmp"
)

func readFixture(t *testing.T, name string) []Measurement {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Read(name, data)
	if err != nil {
		t.Fatalf("Read(%s): %v", name, err)
	}
	return ms
}

// Every format reads to the exact values its fixture records (means, lengths rounded to
// whole tokens, the load, the date, the model).
func TestReadEachFormat(t *testing.T) {
	for _, c := range []struct {
		file string
		want []Measurement
	}{
		{"profile_export_aiperf.json", []Measurement{{File: "profile_export_aiperf.json", Format: FormatAIPerfJSON, ID: "#1", Date: "2026-03-14",
			Model: "meta-llama/Llama-3.1-8B-Instruct", Concurrency: 8, Requests: 200, ISL: 1000, OSL: 128,
			LengthsRecorded: true, DrawISL: 1000, DrawOSL: 128, TTFT: 120.25, TPOT: 18.5, E2E: 2480.5, OutputThroughput: 409.6}}},
		{"profile_export_aiperf_stddev.json", []Measurement{{File: "profile_export_aiperf_stddev.json", Format: FormatAIPerfJSON, ID: "#1", Date: "2026-03-14",
			Model: "meta-llama/Llama-3.1-8B-Instruct", Concurrency: 8, Requests: 200, ISL: 1004, OSL: 128,
			Lengths: spec.Lengths{Distribution: spec.LengthsNormal, InputStddevRatio: 0.1}, LengthsRecorded: true, DrawISL: 1000, DrawOSL: 128,
			TTFT: 120.25, TPOT: 18.5, E2E: 2480.5, OutputThroughput: 409.6}}},
		{"profile_export.jsonl", []Measurement{{File: "profile_export.jsonl", Format: FormatAIPerfJSONL, ID: "#1", Date: "2026-03-14",
			Concurrency: 2, Requests: 3, ISL: 1000, OSL: 100, TTFT: 120, TPOT: 19, E2E: 6100.0 / 3}}},
		{"vllm_bench.json", []Measurement{{File: "vllm_bench.json", Format: FormatVLLM, ID: "#1", Date: "2026-02-14",
			Model: "meta-llama/Llama-3.1-8B-Instruct", Concurrency: 32, Requests: 320, ISL: 2048, OSL: 256,
			TTFT: 310.5, TPOT: 14.2, OutputThroughput: 1964.5}}},
		{"vllm_bench_append.json", []Measurement{
			{File: "vllm_bench_append.json", Format: FormatVLLM, ID: "#1", Date: "2026-02-15", Model: "Qwen/Qwen3-32B",
				RequestRate: 4, Requests: 100, ISL: 2048, OSL: 256, TTFT: 180, TPOT: 25.5, E2E: 6682.5, OutputThroughput: 944.6},
			{File: "vllm_bench_append.json", Format: FormatVLLM, ID: "#2", Date: "2026-02-15", Model: "Qwen/Qwen3-32B",
				RequestRate: 8, Requests: 100, ISL: 2048, OSL: 256, TTFT: 260, TPOT: 31, E2E: 8165, OutputThroughput: 1570.5}}},
		{"sglang_bench.jsonl", []Measurement{
			{File: "sglang_bench.jsonl", Format: FormatSGLang, ID: "#1", Concurrency: 16, Requests: 160, ISL: 2048, OSL: 256,
				LengthsRecorded: true, DrawISL: 2048, DrawOSL: 256, TTFT: 240.8, TPOT: 10.9, E2E: 3020.4, OutputThroughput: 1356.3},
			{File: "sglang_bench.jsonl", Format: FormatSGLang, ID: "#2", Concurrency: 64, Requests: 640, ISL: 2048, OSL: 256,
				LengthsRecorded: true, DrawISL: 2048, DrawOSL: 256, TTFT: 520.3, TPOT: 21.8, E2E: 6090.1, OutputThroughput: 2685.9}}},
	} {
		if diff := cmp.Diff(c.want, readFixture(t, c.file)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.file, diff)
		}
	}
}

// SGLang's random datasets record their draw: a range ratio below 1 is a one-sided uniform
// around random_input_len and random_output_len (docs/calibration.md, "Length draws"); other
// datasets record none.
func TestReadSGLangLengths(t *testing.T) {
	data, _ := os.ReadFile("testdata/sglang_bench.jsonl")
	drawn := bytes.ReplaceAll(data, []byte(`"random_range_ratio": 1.0`), []byte(`"random_range_ratio": 0.8`))
	ms, err := Read("s.jsonl", drawn)
	if err != nil {
		t.Fatal(err)
	}
	want := spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1}
	if m := ms[0]; m.Lengths != want || !m.LengthsRecorded || m.DrawISL != 2048 || m.DrawOSL != 256 {
		t.Errorf("drawn run: %+v, recorded %v, around %d/%d", m.Lengths, m.LengthsRecorded, m.DrawISL, m.DrawOSL)
	}
	if isl, osl := ms[0].DrawLengths(); isl != 2048 || osl != 256 {
		t.Errorf("DrawLengths = %d/%d, want the recorded 2048/256", isl, osl)
	}
	sharegpt := bytes.ReplaceAll(drawn, []byte(`"dataset_name": "random"`), []byte(`"dataset_name": "sharegpt"`))
	if ms, err := Read("s.jsonl", sharegpt); err != nil || ms[0].LengthsRecorded || ms[0].Lengths != (spec.Lengths{}) {
		t.Errorf("sharegpt run records a draw: %+v, %v", ms[0], err)
	}
}

// A measured-runs CSV row gives its client's settings: drawn one-sided uniform at 0.8, its
// mean lengths are 0.9 of them; a file that gives its measured means (no settings), one that
// records its draw, and a constant draw keep ISL and OSL.
func TestMeanLengthsOfADrawnRow(t *testing.T) {
	draw := spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1}
	for _, c := range []struct {
		name     string
		m        Measurement
		isl, osl int
	}{
		{"CSV row drawn", Measurement{ISL: 1024, OSL: 512, DrawISL: 1024, DrawOSL: 512, Lengths: draw}, 922, 461},
		{"measured means", Measurement{ISL: 900, OSL: 90, Lengths: draw}, 900, 90},
		{"recorded draw", Measurement{ISL: 950, OSL: 470, DrawISL: 1024, DrawOSL: 512, Lengths: draw, LengthsRecorded: true}, 950, 470},
		{"constant", Measurement{ISL: 1024, OSL: 512, DrawISL: 1024, DrawOSL: 512}, 1024, 512},
	} {
		if isl, osl := c.m.MeanLengths(); isl != c.isl || osl != c.osl {
			t.Errorf("%s: MeanLengths = %d/%d, want %d/%d", c.name, isl, osl, c.isl, c.osl)
		}
	}
}

// A file that records its means but not the lengths its client was given replays around the
// means divided by the draw's mean factor.
func TestDrawLengthsFromTheMeans(t *testing.T) {
	m := Measurement{ISL: 900, OSL: 90, Lengths: spec.Lengths{Distribution: spec.LengthsUniform, MinRatio: 0.8, MaxRatio: 1}}
	if isl, osl := m.DrawLengths(); isl != 1000 || osl != 100 {
		t.Errorf("DrawLengths = %d/%d, want 1000/100", isl, osl)
	}
	m.Lengths = spec.Lengths{}
	if isl, osl := m.DrawLengths(); isl != 900 || osl != 90 {
		t.Errorf("constant: DrawLengths = %d/%d, want 900/90", isl, osl)
	}
}

func TestReadCSV(t *testing.T) {
	ms := readFixture(t, "runs.csv")
	if len(ms) != 3 {
		t.Fatalf("%d measurements, want 3", len(ms))
	}
	m := ms[1]
	if m.ID != "llama8b_h200_vllm_agg_1024x128_c32" || m.Concurrency != 32 || m.ISL != 1024 || m.OSL != 128 ||
		m.TTFT != 120.75 || m.TPOT != 9.5 || m.Date != "2026-01-21" || m.Backend != "vllm" || m.BackendVersion != "0.11.0" ||
		m.Row.System != "h200_sxm" || m.Row.Agg.Par.Tensor != 1 || m.Row.BatchSize != 32 {
		t.Errorf("row 2: %+v %+v", m, *m.Row)
	}
	d := ms[2].Row
	if d.Mode != ModeDisagg || d.Prefill.Workers != 1 || d.Decode.Par.Tensor != 1 || ms[2].Date != "" {
		t.Errorf("disaggregated row: %+v", *d)
	}
}

// Hostile and broken files: each is refused with an *Error naming the file and the field
// at fault.
func TestReadRefuses(t *testing.T) {
	vllm, _ := os.ReadFile("testdata/vllm_bench.json")
	aiperf, _ := os.ReadFile("testdata/profile_export_aiperf.json")
	jsonl, _ := os.ReadFile("testdata/profile_export.jsonl")
	csv, _ := os.ReadFile("testdata/runs.csv")
	sglang, _ := os.ReadFile("testdata/sglang_bench.jsonl")
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(vllm)
	w.Close()
	sub := func(b []byte, old, new string) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	for _, c := range []struct {
		name  string
		data  []byte
		field string
		msg   string
	}{
		{"empty", nil, "", "empty"},
		{"zeros", make([]byte, 4096), "", "binary"},
		{"gzip", gz.Bytes(), "", "binary"},
		{"too large", append(bytes.Repeat([]byte(" "), MaxFileBytes), vllm...), "", "larger than"},
		{"unknown", []byte(`{"hello": 1}`), "", "not a measurement file"},
		{"NaN ttft", sub(vllm, `"mean_ttft_ms": 310.5`, `"mean_ttft_ms": NaN`), "mean_ttft_ms", "not a finite number"},
		{"negative tpot", sub(vllm, `"mean_tpot_ms": 14.2`, `"mean_tpot_ms": -14.2`), "mean_tpot_ms", "must be > 0"},
		{"no load", sub(vllm, `"request_rate": "inf", "burstiness": 1.0, "max_concurrency": 32`, `"burstiness": 1.0, "max_concurrency": null`), "max_concurrency", "neither"},
		{"zero rate", sub(vllm, `"request_rate": "inf"`, `"request_rate": 0`), "request_rate", "must be > 0"},
		{"fractional completed", sub(vllm, `"completed": 320`, `"completed": 320.5`), "completed", "whole number"},
		{"seconds not ms", sub(aiperf, `"time_to_first_token": {"unit": "ms"`, `"time_to_first_token": {"unit": "s"`), "time_to_first_token.unit", `expected "ms"`},
		{"e2e below ttft", sub(aiperf, `"avg": 2480.5`, `"avg": 24.805`), "request_latency.avg", "units do not match"},
		{"no loadgen", sub(aiperf, `"loadgen"`, `"loadgen_x"`), "input_config.loadgen", "missing"},
		{"jsonl unit", sub(jsonl, `"time_to_first_token": {"value": 140.0, "unit": "ms"}`, `"time_to_first_token": {"value": 140.0, "unit": "ns"}`), "line 2: metrics.time_to_first_token.unit", `expected "ms"`},
		{"jsonl broken line", append(append([]byte{}, jsonl...), "{not json\n"...), "line 5", "not JSON"},
		{"jsonl long line", append(append([]byte{}, jsonl...), append([]byte(`{"metadata": {}, "metrics": {}, "x": "`), bytes.Repeat([]byte("a"), MaxLineBytes)...)...), "line 5", "longer than"},
		{"jsonl too many", bytes.Repeat([]byte("{\"metadata\": {}, \"metrics\": {}, \"error\": 1}\n"), MaxRecords+1), "", "more than"},
		{"csv NaN", sub(csv, ",45.5,", ",NaN,"), "row llama8b_h200_vllm_agg_1024x128_c4 (line 2): silicon_ttft_ms", "not a finite number"},
		{"csv negative", sub(csv, ",1024,128,", ",-1024,128,"), "row llama8b_h200_vllm_agg_1024x128_c4 (line 2): isl", "must be ≥ 0"},
		{"csv no concurrency", sub(csv, "_c4,4,", "_c4,,"), "row llama8b_h200_vllm_agg_1024x128_c4: concurrency", "missing"},
		{"csv missing column", sub(csv, "silicon_tpot_ms", "tpot"), "", ""},
		{"aiperf stddev above the mean", sub(aiperf, `"input_tokens": {"mean": 1000}`, `"input_tokens": {"mean": 1000, "stddev": 1500}`), "input_config.input.prompt.input_tokens.stddev", "must be at most 1"},
		{"aiperf output stddev above the mean", sub(aiperf, `"output_tokens": {"mean": 128}`, `"output_tokens": {"mean": 128, "stddev": 200}`), "input_config.input.prompt.output_tokens.stddev", "divided by the mean: must be at most 1, got 1.5625"},
		{"aiperf negative stddev", sub(aiperf, `"output_tokens": {"mean": 128}`, `"output_tokens": {"mean": 128, "stddev": -1}`), "input_config.input.prompt.output_tokens.stddev", "must be ≥ 0"},
		{"aiperf stddev as text", sub(aiperf, `"input_tokens": {"mean": 1000}`, `"input_tokens": {"mean": 1000, "stddev": "100"}`), "input_config.input.prompt.input_tokens.stddev", "is not a finite number"},
		{"sglang negative range ratio", sub(sglang, `"random_range_ratio": 1.0`, `"random_range_ratio": -0.5`), "line 1: random_range_ratio", "must be ≥ 0"},
		{"sglang ratio without its length", sub(sglang, `"random_input_len": 2048, `, ``), "line 1: random_input_len", "missing"},
		{"csv bad mode", sub(csv, ",agg,1024", ",both,1024"), "row llama8b_h200_vllm_agg_1024x128_c4 (line 2): mode", "neither"},
	} {
		_, err := Read(c.name, c.data)
		var me *Error
		if !errors.As(err, &me) {
			t.Errorf("%s: got %v, want an *Error", c.name, err)
			continue
		}
		if me.File != c.name || (c.field != "" && me.Field != c.field) || !strings.Contains(me.Msg, c.msg) {
			t.Errorf("%s: got file %q field %q msg %q; want field %q containing %q", c.name, me.File, me.Field, me.Msg, c.field, c.msg)
		}
	}
}

func TestEpochDate(t *testing.T) {
	for ns, want := range map[int64]string{0: "1970-01-01", 951782400e9: "2000-02-29", 1773480413e9: "2026-03-14", 4102444799e9: "2099-12-31"} {
		if got := epochDate(ns); got != want {
			t.Errorf("epochDate(%d) = %s, want %s", ns, got, want)
		}
	}
}
