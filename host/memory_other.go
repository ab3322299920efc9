//go:build !(linux || darwin)

package host

import "context"

// withMemory keeps wazero's default memory allocation where mmap is not available.
func withMemory(ctx context.Context) context.Context { return ctx }
