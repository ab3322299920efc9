package baseline

import (
	"errors"
	"flag"
)

// Flags are the baseline options shared by `calibrate -logo` and tools/accuracy.
type Flags struct {
	path, write, model string
}

// Register adds -baseline, -write-baseline and -baseline-model to fs.
func Register(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.path, "baseline", "", "compare against this baseline file ('' = the committed tools/calibrate/baseline/baseline.json)")
	fs.StringVar(&f.write, "write-baseline", "", "also write the baseline with this run's figures in place of its harness's section to this file (the next model change's \"before\")")
	fs.StringVar(&f.model, "baseline-model", "", "with -write-baseline: the timing model this run measures, e.g. \"timing model v3.1 (2026-12-04)\"")
	return f
}

// Load checks the options and reads the baseline to compare against.
func (f *Flags) Load() (*File, error) {
	if f.write != "" && f.model == "" {
		return nil, errors.New("-write-baseline needs -baseline-model NAME (the timing model the run measures)")
	}
	if f.write == "" && f.model != "" {
		return nil, errors.New("-baseline-model is only used with -write-baseline FILE")
	}
	return Load(f.path)
}

// Record replaces *sec (a section of base) by after, labelled with -baseline-model, and writes
// base to -write-baseline; without -write-baseline it does nothing.
func (f *Flags) Record(base *File, sec *Section, after Section) error {
	if f.write == "" {
		return nil
	}
	after.Model = f.model
	*sec = after
	return base.WriteFile(f.write)
}

// Given reports whether any baseline option was passed (a tool mode that does not compare
// rejects them).
func (f *Flags) Given() bool { return f.path != "" || f.write != "" || f.model != "" }
