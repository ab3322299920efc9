package catalog

// Error is an engine.model (Hardware false) or hardware (Hardware true) value the catalog
// cannot resolve; the caller gives it its configuration path (docs/config.md, "Errors").
type Error struct {
	Hardware bool
	Msg      string
}

func (e *Error) Error() string { return e.Msg }
