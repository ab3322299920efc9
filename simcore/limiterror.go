package simcore

// LimitError is a run refused because it exceeds a limit the caller set (Input.MaxRequests):
// the configuration is valid, the service will not run it (HTTP 413 at the edge).
type LimitError struct {
	// Path is the configuration field that sets the size.
	Path string
	// Msg says what the limit is.
	Msg string
}

func (e *LimitError) Error() string { return e.Path + ": " + e.Msg }
