package measure

import "strconv"

// Error is a measurement file that cannot be used: exit 2, printed as
// `<file>: <field>: <msg>`. Field is the key (JSON), column (CSV) or record ("line 12") at
// fault, "" for the whole file.
type Error struct {
	File, Field, Msg string
}

func (e *Error) Error() string {
	s := e.File + ": "
	if e.Field != "" {
		s += e.Field + ": "
	}
	return s + e.Msg
}

// NoDeploymentMsg is the error of a file that records no deployment (GPU, backend,
// parallelism: every format but the measured-runs CSV) calibrated without --config; the
// browser's Recommend view follows it with where to calibrate such a file (docs/web.md).
const NoDeploymentMsg = "the file does not record the deployment it measured (GPU, backend, parallelism); pass it with --config"

// lineField names a field of the n-th line (1-based) of a line-oriented file.
func lineField(n int, field string) string {
	s := "line " + strconv.Itoa(n)
	if field != "" {
		s += ": " + field
	}
	return s
}
