package baseline

import (
	"errors"
	"flag"
	"os"
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

// Record writes this run's figures (after, labelled with -baseline-model) into the section
// that section picks of the file -write-baseline names, keeping its other section: the file
// as it is when it exists, else base (the baseline compared against). So running both
// harnesses with one -write-baseline FILE records both. Without -write-baseline it does
// nothing.
func (f *Flags) Record(base *File, section func(*File) *Section, after Section) error {
	if f.write == "" {
		return nil
	}
	if _, err := os.Stat(f.write); err == nil {
		if base, err = Load(f.write); err != nil {
			return err
		}
	}
	after.Model = f.model
	*section(base) = after
	return base.WriteFile(f.write)
}

// LOGOSection picks a file's leave-one-campaign-out section.
func LOGOSection(f *File) *Section { return &f.LOGO }

// SimulatorSection picks a file's simulator section.
func SimulatorSection(f *File) *Section { return &f.Simulator }

// Given reports whether any baseline option was passed (a tool mode that does not compare
// rejects them).
func (f *Flags) Given() bool { return f.path != "" || f.write != "" || f.model != "" }
