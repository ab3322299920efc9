package perf

// Error is a deployment the timing or memory model cannot price. Key is the configuration
// key at fault, relative to the engine section (Worker false: "backend", "gemm_quant_mode")
// or to the worker role's section (Worker true: "parallelism.tensor", "kv_cache.capacity");
// the caller, which knows the role, turns it into the full path (docs/config.md, "Errors").
type Error struct {
	Worker bool
	Key    string
	Msg    string
}

func (e *Error) Error() string { return e.Msg }
