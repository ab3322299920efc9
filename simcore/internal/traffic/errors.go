package traffic

import "fmt"

// Error is a trace the readers cannot use: a file that cannot be opened or read, a malformed
// record, or content the configuration contradicts. Msg starts with the file (and line) at
// fault. The caller gives it the configuration path (docs/config.md, "Errors").
type Error struct {
	Msg string
	// BlockSize is true when the trace contradicts an explicit traffic.source.block_size
	// (the fix is in that key); otherwise the trace files themselves are at fault.
	BlockSize bool
}

func (e *Error) Error() string { return e.Msg }

// rowError is a malformed-record error at file:line.
func rowError(file string, line int, format string, args ...any) error {
	return &Error{Msg: fmt.Sprintf("%s:%d: ", file, line) + fmt.Sprintf(format, args...)}
}

// fileError is an error about a whole file.
func fileError(file string, format string, args ...any) error {
	return &Error{Msg: file + ": " + fmt.Sprintf(format, args...)}
}

// emptyError is the error for a trace without requests.
func emptyError(file string) error {
	return fileError(file, "did not contain any requests")
}

// CallerLimitError is a trace holding more requests than the caller simulates
// (LoadTraceWithin): the trace is valid, the caller will not run it.
type CallerLimitError struct {
	// File and Line are where the count passed Max.
	File string
	Line int
	Max  int
}

func (e *CallerLimitError) Error() string {
	return fmt.Sprintf("%s:%d: the traces hold more than %d requests (counted after decompression and expansion), the most this service simulates per call", e.File, e.Line, e.Max)
}
