package measure

// Limits on a measurement file, checked before it is parsed (docs/robustness.md, "Limits").
const (
	// MaxFileBytes is the largest measurement file read: 128 MiB holds the per-request export
	// of about 100,000 requests. A caller reads at most MaxFileBytes+1 bytes, so a larger file
	// (or an endless device) is refused without being read whole.
	MaxFileBytes = 128 << 20
	// MaxRecords is the most lines (JSONL) or rows (CSV) of one file.
	MaxRecords = 500_000
	// MaxLineBytes is the longest line of a line-oriented file.
	MaxLineBytes = 1 << 20
	// MaxRuns is the most benchmark runs one file may hold (runs appended to one JSONL file).
	MaxRuns = 10_000
)
