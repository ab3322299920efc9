package measure

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"

	"aisimulate/simcore/spec"
)

// Row is one row of the measured-runs CSV (docs/calibration.md, "Measured-runs CSV"): a
// deployment, its workload and its measured mean TTFT and TPOT. Numbers a row leaves empty
// are 0.
type Row struct {
	CurveID, ID    string
	Concurrency    int
	Backend        string
	BackendVersion string
	Model          string
	System         string
	Mode           string // ModeAgg or ModeDisagg
	ISL, OSL       int
	GemmQuant      string
	MoEQuant       string
	Agg            Role // the aggregated worker (Mode agg)
	Prefill        Role // the prefill workers (Mode disagg)
	Decode         Role // the decode workers (Mode disagg)
	TTFT, TPOT     float64
	// MeasuredOn is the measurement date (YYYY-MM-DD), "" when not recorded.
	MeasuredOn string
	// BatchSize is the server's recorded batch size (aggregated rows; 0 when not recorded).
	BatchSize int
}

// Role is one worker pool of a row: its worker count (0 when not recorded) and parallelism
// (sizes not recorded are 0).
type Role struct {
	Workers int
	Par     spec.Parallelism
}

// The serving modes of the CSV's mode column.
const (
	ModeAgg    = "agg"
	ModeDisagg = "disagg"
)

// csvRequired are the columns every measured-runs CSV has.
var csvRequired = []string{"curve_id", "id", "concurrency", "backend", "model_path", "system", "mode", "isl", "osl", "silicon_ttft_ms", "silicon_tpot_ms"}

// IsCSV reports whether data starts with a measured-runs CSV header.
func IsCSV(data []byte) bool {
	head, _, _ := bytes.Cut(data, []byte("\n"))
	for _, c := range csvRequired {
		if !bytes.Contains(head, []byte(c)) {
			return false
		}
	}
	return true
}

// ParseCSV reads every row of a measured-runs CSV. Numbers must be finite and ≥ 0 (whole
// numbers for counts and sizes); an empty cell is 0 (not recorded); a file of more than
// MaxRecords rows or a line longer than MaxLineBytes is refused before it is parsed.
func ParseCSV(file string, data []byte) ([]Row, error) {
	if err := eachLine(file, data, func(int, []byte) error { return nil }); err != nil {
		return nil, err
	}
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		return nil, &Error{File: file, Field: "line 1", Msg: "no CSV header: " + errText(err)}
	}
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	for _, need := range csvRequired {
		if _, ok := col[need]; !ok {
			return nil, &Error{File: file, Field: need, Msg: "column missing from the header"}
		}
	}
	var out []Row
	for {
		rec, err := cr.Read()
		if err != nil {
			if err.Error() == "EOF" {
				break
			}
			return nil, &Error{File: file, Msg: errText(err)}
		}
		line, _ := cr.FieldPos(0)
		c := csvRow{file: file, line: line, col: col, rec: rec}
		row := c.row()
		if c.err != nil {
			return nil, c.err
		}
		out = append(out, row)
	}
	if len(out) == 0 {
		return nil, &Error{File: file, Msg: "no rows after the header"}
	}
	return out, nil
}

func errText(err error) string { return strings.TrimPrefix(err.Error(), "record on ") }

// csvRow reads the cells of one row, keeping the first error.
type csvRow struct {
	file string
	line int
	col  map[string]int
	rec  []string
	err  error
}

func (c *csvRow) str(k string) string {
	if i, ok := c.col[k]; ok && i < len(c.rec) {
		return strings.TrimSpace(c.rec[i])
	}
	return ""
}

func (c *csvRow) fail(k, format string, args ...any) {
	if c.err == nil {
		id := c.str("id")
		field := lineField(c.line, k)
		if id != "" {
			field = "row " + id + " (line " + strconv.Itoa(c.line) + "): " + k
		}
		c.err = &Error{File: c.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
}

// num is a cell's number: 0 when empty; finite and ≥ 0 otherwise.
func (c *csvRow) num(k string) float64 {
	s := c.str(k)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		c.fail(k, "%q is not a finite number", s)
	case v < 0:
		c.fail(k, "must be ≥ 0, got %g", v)
	}
	return v
}

// whole is a cell's whole number (0 when empty).
func (c *csvRow) whole(k string) int {
	v := c.num(k)
	if v != math.Trunc(v) || v > 1<<40 {
		c.fail(k, "must be a whole number, got %g", v)
		return 0
	}
	return int(v)
}

func (c *csvRow) par(prefix string) spec.Parallelism {
	return spec.Parallelism{Replicas: 1, Tensor: c.whole(prefix + "tp_size"), Pipeline: c.whole(prefix + "pp_size"),
		AttentionData: c.whole(prefix + "attention_dp_size"), MoeTensor: c.whole(prefix + "moe_tp_size"), MoeExpert: c.whole(prefix + "moe_ep_size")}
}

func (c *csvRow) row() Row {
	r := Row{CurveID: c.str("curve_id"), ID: c.str("id"), Concurrency: c.whole("concurrency"), Backend: c.str("backend"),
		BackendVersion: c.str("backend_version"), Model: c.str("model_path"), System: c.str("system"), Mode: c.str("mode"),
		ISL: c.whole("isl"), OSL: c.whole("osl"), GemmQuant: c.str("gemm_quant_mode"), MoEQuant: c.str("moe_quant_mode"),
		TTFT: c.num("silicon_ttft_ms"), TPOT: c.num("silicon_tpot_ms"), BatchSize: c.whole("batch_size")}
	if d := c.str("measured_on"); d != "" {
		var err error
		if r.MeasuredOn, err = isoDate(d); err != nil {
			c.fail("measured_on", "%v", err)
		}
	}
	switch r.Mode {
	case ModeDisagg:
		r.Prefill = Role{Workers: c.whole("prefill_num_workers"), Par: c.par("prefill_")}
		r.Decode = Role{Workers: c.whole("decode_num_workers"), Par: c.par("decode_")}
	case ModeAgg:
		r.Agg = Role{Workers: 1, Par: c.par("")}
	default:
		c.fail("mode", "%q is neither %s nor %s", r.Mode, ModeAgg, ModeDisagg)
	}
	return r
}

// readCSV reads a measured-runs CSV as measurements: every row must record its concurrency,
// lengths, model, system, backend and both means (a row that does not cannot be replayed).
func readCSV(file string, data []byte) ([]Measurement, error) {
	rows, err := ParseCSV(file, data)
	if err != nil {
		return nil, err
	}
	out := make([]Measurement, 0, len(rows))
	for i := range rows {
		r := &rows[i]
		field := func(k string) string { return "row " + r.ID + ": " + k }
		for _, req := range []struct {
			k  string
			ok bool
		}{{"concurrency", r.Concurrency > 0}, {"isl", r.ISL > 0}, {"osl", r.OSL > 0}, {"model_path", r.Model != ""},
			{"system", r.System != ""}, {"backend", r.Backend != ""}, {"silicon_ttft_ms", r.TTFT > 0}, {"silicon_tpot_ms", r.TPOT > 0}, {"id", r.ID != ""}} {
			if !req.ok {
				return nil, &Error{File: file, Field: field(req.k), Msg: "missing or 0; a row without it cannot be replayed"}
			}
		}
		if r.Concurrency > maxConcurrency {
			return nil, &Error{File: file, Field: field("concurrency"), Msg: fmt.Sprintf("%d requests in flight is more than the %d a replay supports", r.Concurrency, maxConcurrency)}
		}
		out = append(out, r.Measurement(file))
	}
	return out, nil
}

// Measurement is the measurement a row of the measured-runs CSV file gives: its deployment
// (Row), load and means, its isl and osl the lengths its client was given (DrawISL and
// DrawOSL too: a draw the client used is around them).
func (r *Row) Measurement(file string) Measurement {
	return Measurement{File: file, Format: FormatCSV, ID: r.ID, Date: r.MeasuredOn, Model: r.Model,
		Backend: r.Backend, BackendVersion: r.BackendVersion, Row: r, Concurrency: r.Concurrency,
		ISL: r.ISL, OSL: r.OSL, DrawISL: r.ISL, DrawOSL: r.OSL, TTFT: r.TTFT, TPOT: r.TPOT}
}
