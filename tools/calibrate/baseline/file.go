package baseline

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"aisimulate/tools/calibrate/rows"
)

// File is a baseline: the figures of one timing model under each harness.
type File struct {
	LOGO      Section `json:"logo"`      // calibrate -logo
	Simulator Section `json:"simulator"` // tools/accuracy
}

// Section is one harness's figures of one timing model.
type Section struct {
	Model  string   `json:"model"`  // which timing model and when, e.g. "timing model v3 (2026-12-04)"
	Priced int      `json:"priced"` // coverage: rows priced …
	Total  int      `json:"total"`  // … of all rows of the CSV
	Slices []Slice  `json:"slices"`
	Budget []Budget `json:"budget,omitempty"` // the error budget (LOGO only)
}

// Budget is one line of the error budget (tools/calibrate/errorbudget.go): points of its
// scope's cross-validated MAPE an effect accounts for.
type Budget struct {
	Scope  string  `json:"scope"` // AllRows or one of rows.Slices
	Effect string  `json:"effect"`
	Rows   int     `json:"rows"`
	TTFT   float64 `json:"ttft_points"`
	TPOT   float64 `json:"tpot_points"`
}

//go:embed baseline.json
var committed []byte

// Committed is the baseline committed next to the tools (baseline.json, the previous timing
// model's figures).
func Committed() *File {
	f, err := Parse(committed)
	if err != nil {
		panic("tools/calibrate/baseline/baseline.json: " + err.Error()) // a test reads it
	}
	return f
}

// Load reads a baseline file; an empty path is the committed one.
func Load(path string) (*File, error) {
	if path == "" {
		return Committed(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return f, nil
}

// Parse decodes and checks a baseline: known fields only, every slice named in Names once,
// counts and figures not negative, priced ≤ total, every budget line scoped to all rows or
// one of rows.Slices.
func Parse(b []byte) (*File, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	var f File
	if err := d.Decode(&f); err != nil {
		return nil, fmt.Errorf("not a baseline (fields as in tools/calibrate/baseline/baseline.json): %v", err)
	}
	known := map[string]bool{}
	for _, n := range Names() {
		known[n] = true
	}
	for _, s := range []struct {
		key string
		sec *Section
	}{{"logo", &f.LOGO}, {"simulator", &f.Simulator}} {
		if s.sec.Priced < 0 || s.sec.Priced > s.sec.Total {
			return nil, fmt.Errorf("%s: priced %d of total %d: want 0 ≤ priced ≤ total", s.key, s.sec.Priced, s.sec.Total)
		}
		seen := map[string]bool{}
		for _, sl := range s.sec.Slices {
			if !known[sl.Name] || seen[sl.Name] {
				return nil, fmt.Errorf("%s: slice %q unknown or repeated (want each of %q at most once)", s.key, sl.Name, Names())
			}
			seen[sl.Name] = true
			for _, v := range []*float64{sl.TTFT, sl.TTFTMedian, sl.TPOT, sl.TPOTMedian} {
				if sl.Rows < 0 || (v != nil && *v < 0) {
					return nil, fmt.Errorf("%s: slice %q: rows and figures must not be negative", s.key, sl.Name)
				}
			}
		}
		for _, l := range s.sec.Budget {
			if !budgetScope(l.Scope) || l.Effect == "" || l.Rows < 0 {
				return nil, fmt.Errorf("%s: budget line %q of scope %q: want a named effect, rows ≥ 0 and scope %q or one of %q",
					s.key, l.Effect, l.Scope, AllRows, rows.Slices)
			}
		}
	}
	return &f, nil
}

// budgetScope reports whether scope is one an error budget is printed for.
func budgetScope(scope string) bool {
	if scope == AllRows {
		return true
	}
	for _, k := range rows.Slices {
		if k == scope {
			return true
		}
	}
	return false
}

// Write writes f as indented JSON with a final newline (the form of baseline.json).
func (f *File) Write(w io.Writer) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteFile writes f to path, whole or not at all (a temporary file renamed into place).
func (f *File) WriteFile(path string) error {
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
