package ui

import (
	"bufio"
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"

	"aisimulate/simcore/report"
)

// Record is the subset of a requests.jsonl record the charts use.
type Record struct {
	Arrival    float64  `json:"arrival_time_ms"`
	FirstAdmit *float64 `json:"first_admit_ms"`
	FirstToken *float64 `json:"first_token_ms"`
	LastToken  *float64 `json:"last_token_ms"`
	Terminal   float64  `json:"terminal_time_ms"`
	TTFT       *float64 `json:"ttft_ms"`
	ITL        *float64 `json:"itl_ms"`
	E2E        *float64 `json:"e2e_latency_ms"`
	Input      int      `json:"input_length"`
	Output     int      `json:"output_length"`
	Status     string   `json:"terminal_status"`
}

// ParseRecords reads requests.jsonl; malformed lines are skipped.
func ParseRecords(jsonl string) []Record {
	var out []Record
	sc := bufio.NewScanner(strings.NewReader(jsonl))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var r Record
		if json.Unmarshal(line, &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// Point is one sample of a step series: the value V holds from T until the next point.
type Point struct {
	T, V float64
}

// Latencies returns the TTFT, per-request ITL (TPOT) and E2E samples of completed requests.
func Latencies(recs []Record) (ttft, itl, e2e []float64) {
	for _, r := range recs {
		if r.Status != "completed" {
			continue
		}
		if r.TTFT != nil {
			ttft = append(ttft, *r.TTFT)
		}
		if r.ITL != nil {
			itl = append(itl, *r.ITL)
		}
		if r.E2E != nil {
			e2e = append(e2e, *r.E2E)
		}
	}
	return
}

type delta struct {
	t float64
	d float64
}

func steps(ds []delta) []Point {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].t < ds[j].t })
	out := []Point{{0, 0}}
	v := 0.0
	for i := 0; i < len(ds); {
		t := ds[i].t
		for i < len(ds) && ds[i].t == t {
			v += ds[i].d
			i++
		}
		if out[len(out)-1].T == t {
			out[len(out)-1].V = v
		} else {
			out = append(out, Point{t, v})
		}
	}
	return out
}

// QueueDepth is the number of requests that arrived and were not yet admitted, over time.
func QueueDepth(recs []Record) []Point {
	var ds []delta
	for _, r := range recs {
		end := r.Terminal
		if r.FirstAdmit != nil {
			end = *r.FirstAdmit
		}
		if end > r.Arrival {
			ds = append(ds, delta{r.Arrival, 1}, delta{end, -1})
		}
	}
	return steps(ds)
}

// Running is the number of admitted, unfinished requests (the running batch), over time.
func Running(recs []Record) []Point {
	var ds []delta
	for _, r := range recs {
		if r.FirstAdmit == nil || r.Terminal <= *r.FirstAdmit {
			continue
		}
		ds = append(ds, delta{*r.FirstAdmit, 1}, delta{r.Terminal, -1})
	}
	return steps(ds)
}

// KVTokens approximates the KV cache held by running requests over time: a request holds its
// prompt from admission and one more token per emitted token, until it finishes. It is an
// estimate from per-request records (preemptions and prefix sharing are not visible there).
func KVTokens(recs []Record, buckets int) []Point {
	if buckets <= 0 {
		buckets = 200
	}
	end := 0.0
	for _, r := range recs {
		if r.Terminal > end {
			end = r.Terminal
		}
	}
	if end <= 0 {
		return nil
	}
	step := end / float64(buckets)
	vals := make([]float64, buckets+1)
	for _, r := range recs {
		if r.FirstAdmit == nil {
			continue
		}
		a, z := *r.FirstAdmit, r.Terminal
		i0 := int(a / step)
		for i := i0; i <= buckets; i++ {
			t := float64(i) * step
			if t < a {
				continue
			}
			if t >= z {
				break
			}
			held := float64(r.Input)
			if r.FirstToken != nil && r.LastToken != nil && t >= *r.FirstToken {
				span := *r.LastToken - *r.FirstToken
				frac := 1.0
				if span > 0 {
					frac = (t - *r.FirstToken) / span
					if frac > 1 {
						frac = 1
					}
				}
				held += 1 + frac*float64(r.Output-1)
			}
			vals[i] += held
		}
	}
	out := make([]Point, len(vals))
	for i, v := range vals {
		out[i] = Point{float64(i) * step, v}
	}
	return out
}

// PlannerReplicas returns the provisioned workers (active + starting) per pool at every
// planner tick of prediction.json, or nil when there is no planner.
func PlannerReplicas(predictionJSON string) (pools []string, series [][]Point) {
	var doc struct {
		Planner *struct {
			Ticks []struct {
				AtMs     float64 `json:"at_ms"`
				Topology map[string]struct {
					Active   int `json:"active_count"`
					Starting int `json:"starting_count"`
					Draining int `json:"draining_count"`
				} `json:"topology"`
			} `json:"ticks"`
		} `json:"planner"`
	}
	if json.Unmarshal([]byte(predictionJSON), &doc) != nil || doc.Planner == nil || len(doc.Planner.Ticks) == 0 {
		return nil, nil
	}
	for _, pool := range []string{"prefill", "decode"} {
		var s []Point
		nonzero := false
		for _, t := range doc.Planner.Ticks {
			tp := t.Topology[pool]
			v := float64(tp.Active + tp.Starting)
			if v != 0 {
				nonzero = true
			}
			s = append(s, Point{t.AtMs, v})
		}
		if nonzero {
			pools = append(pools, pool)
			series = append(series, s)
		}
	}
	return pools, series
}

// Summary is the summary object of prediction.json with numbers as float64.
type Summary map[string]float64

// ParseSaturation extracts the saturation section of prediction.json (nil when absent or
// not an object).
func ParseSaturation(predictionJSON string) map[string]any {
	var doc map[string]any
	if json.Unmarshal([]byte(predictionJSON), &doc) != nil {
		return nil
	}
	sat, _ := doc[report.KeySaturation].(map[string]any)
	return sat
}

// ParseOverview reads the run's overview (the overviewJson of a prediction result), nil when
// absent or malformed.
func ParseOverview(text string) *report.Overview {
	var ov *report.Overview
	if json.Unmarshal([]byte(text), &ov) != nil {
		return nil
	}
	return ov
}

// ParseSummary extracts the numeric summary keys of prediction.json.
func ParseSummary(predictionJSON string) Summary {
	var doc struct {
		Summary map[string]any `json:"summary"`
	}
	if json.Unmarshal([]byte(predictionJSON), &doc) != nil {
		return nil
	}
	s := Summary{}
	for k, v := range doc.Summary {
		if f, ok := v.(float64); ok {
			s[k] = f
		}
	}
	return s
}

// warmRecords is a tiny requests.jsonl used by Warm.
const warmRecords = `{"arrival_time_ms":0.0,"first_admit_ms":0.0,"first_token_ms":2.0,"last_token_ms":4.0,"terminal_time_ms":4.0,"ttft_ms":2.0,"itl_ms":1.0,"e2e_latency_ms":4.0,"input_length":10,"output_length":3,"terminal_status":"completed"}
{"arrival_time_ms":1.0,"first_admit_ms":3.0,"first_token_ms":5.0,"last_token_ms":5.0,"terminal_time_ms":5.0,"ttft_ms":4.0,"itl_ms":null,"e2e_latency_ms":4.0,"input_length":20,"output_length":1,"terminal_status":"completed"}
`

// Warm runs the result-processing code once on tiny inputs. WebAssembly engines compile
// functions lazily on first call; calling this while the page waits for the simulator moves
// that cost off the first result.
func Warm() int {
	recs := ParseRecords(warmRecords)
	ttft, itl, e2e := Latencies(recs)
	n := len(HistogramSVG("w", "ms", ttft, Palette[0])) + len(HistogramSVG("w", "ms", itl, Palette[1])) + len(HistogramSVG("w", "ms", e2e, Palette[2]))
	n += len(LineSVG("w", "requests", []string{""}, [][]Point{QueueDepth(recs)}, 5)) + len(LineSVG("w", "requests", []string{""}, [][]Point{Running(recs)}, 5)) + len(LineSVG("w", "tokens", []string{""}, [][]Point{KVTokens(recs, 8)}, 5))
	s := ParseSummary(`{"summary": {"completed_requests": 2, "mean_ttft_ms": 3.0}}`)
	pools, _ := PlannerReplicas(`{"planner": {"ticks": [{"at_ms": 0.0, "topology": {"decode": {"active_count": 1}}}]}}`)
	return n + len(s) + len(pools) + len(FormatNum(s["mean_ttft_ms"]))
}

// FlatFields is the number of float64 values per record in the flat layout of RecordsFromFlat.
const FlatFields = 11

// RecordsFromFlat rebuilds records from the flat layout the page's JavaScript fast path
// produces (JSON.parse in the engine is much faster than encoding/json in WebAssembly):
// per record arrival, first admit, first token, last token, terminal, ttft, itl, e2e (NaN for
// null), input length, output length, and 1 when the status is completed (0 otherwise).
func RecordsFromFlat(v []float64) []Record {
	opt := func(x float64) *float64 {
		if x != x { // NaN = null
			return nil
		}
		return &x
	}
	out := make([]Record, 0, len(v)/FlatFields)
	for i := 0; i+FlatFields <= len(v); i += FlatFields {
		r := v[i : i+FlatFields]
		status := "other"
		if r[10] == 1 {
			status = "completed"
		}
		out = append(out, Record{Arrival: r[0], FirstAdmit: opt(r[1]), FirstToken: opt(r[2]), LastToken: opt(r[3]),
			Terminal: r[4], TTFT: opt(r[5]), ITL: opt(r[6]), E2E: opt(r[7]), Input: int(r[8]), Output: int(r[9]), Status: status})
	}
	return out
}

// DeltaText is a card's comparison with the baseline run: "vs previous: " and ChangeText.
func DeltaText(v, base float64) string { return "vs previous: " + ChangeText(v, base) }

// ChangeText is the change of v from base: "+12.5%" (relative), "same", or the absolute
// change when base is 0 ("+3").
func ChangeText(v, base float64) string {
	switch {
	case v == base:
		return "same"
	case base == 0:
		return signed(v-base, FormatNum(math.Abs(v-base)))
	}
	rel := (v - base) / math.Abs(base) * 100
	return signed(rel, strconv.FormatFloat(math.Abs(rel), 'f', 1, 64)+"%")
}

func signed(x float64, abs string) string {
	if x < 0 {
		return "−" + abs
	}
	return "+" + abs
}
