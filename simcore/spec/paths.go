package spec

// Paths of the configuration values named by the errors found after validation, when the
// trace files, the model, the hardware and the timing and memory models are consulted
// (docs/config.md, "Errors").
const (
	// PathTracePaths is where errors about the content of the trace files point.
	PathTracePaths = "traffic.source." + SourceTrace + ".paths"
	// PathTraceBlockSize is where a trace contradicting an explicit block_size points.
	PathTraceBlockSize = "traffic.source." + SourceTrace + ".block_size"
	// PathModel is engine.model.
	PathModel = "engine.model"
	// PathHardware is engine.hardware.
	PathHardware = "engine.hardware"
)

// EnginePath is the path of key under the engine section.
func EnginePath(key string) string { return "engine." + key }

// WorkerPath is the path of key under engine.workers.<role>.
func WorkerPath(role, key string) string { return "engine.workers." + role + "." + key }

// At is the error of the value at path whose reason is err's message.
func At(path string, err error) *Error { return &Error{Path: path, Msg: err.Error()} }
