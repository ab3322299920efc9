package ui

import (
	"strings"
	"testing"
)

func FuzzDecodeHash(f *testing.F) {
	f.Add("cfg=" + EncodeHash("engine: {model: m}")[4:])
	f.Add("#cfg=ZW5naW5lOiB7fQ&x=1")
	f.Add("%%%")
	f.Fuzz(func(t *testing.T, frag string) {
		y, ok := DecodeHash(frag)
		if ok {
			if got, ok2 := DecodeHash(EncodeHash(y)); !ok2 || got != y {
				t.Fatalf("round trip of %q failed", y)
			}
		}
	})
}

func FuzzDecodeRecHash(f *testing.F) {
	f.Add(EncodeRecHash("optimization: {target: pareto}"))
	f.Add("#rec=b3B0aW1pemF0aW9uOiB7fQ&cfg=ZW5naW5lOiB7fQ")
	f.Add("rec=")
	f.Fuzz(func(t *testing.T, frag string) {
		y, ok := DecodeRecHash(frag)
		if ok {
			if got, ok2 := DecodeRecHash(EncodeRecHash(y)); !ok2 || got != y {
				t.Fatalf("round trip of %q failed", y)
			}
		}
	})
}

func FuzzParseRecords(f *testing.F) {
	f.Add(`{"arrival_time_ms":0.0,"first_admit_ms":0.0,"terminal_time_ms":4.0,"input_length":10,"output_length":3,"terminal_status":"completed"}` + "\n")
	f.Add("{}\n\n[1]\n")
	f.Fuzz(func(t *testing.T, jsonl string) {
		recs := ParseRecords(jsonl)
		QueueDepth(recs)
		Running(recs)
		KVTokens(recs, 16)
		a, b, c := Latencies(recs)
		for _, s := range [][]float64{a, b, c} {
			if !strings.Contains(HistogramSVG("x", "ms", s, "red"), "</svg>") {
				t.Fatal("bad svg")
			}
		}
	})
}

func FuzzDocApply(f *testing.F) {
	f.Add("engine: {model: m}\n", "aggregated-tensor", "4")
	f.Add("traffic:\n  load: {type: poisson, requests_per_second: 3}\n", "load-type", "concurrency")
	f.Add("engine:\n  mode: disaggregated\n", "mode", "aggregated")
	f.Fuzz(func(t *testing.T, text, id, value string) {
		d, err := ParseDoc(text)
		if err != nil {
			return
		}
		if d.Apply(id, value) != nil {
			return
		}
		if _, err := ParseDoc(d.String()); err != nil {
			t.Fatalf("Apply produced unparsable YAML: %v\n%s", err, d.String())
		}
	})
}
