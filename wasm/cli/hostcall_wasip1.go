//go:build wasip1

package cli

import "unsafe"

// hostCallImport and hostResultImport are the native host's functions (host/wire: module
// wire.Module, functions wire.FuncCall and wire.FuncResult; the directive needs the names
// spelled out).
//
//go:wasmimport aisimulate_host call
func hostCallImport(ptr unsafe.Pointer, size uint32) uint32

//go:wasmimport aisimulate_host result
func hostResultImport(ptr unsafe.Pointer)

func init() { hostCall = wasmHostCall }

// wasmHostCall passes call to the host and reads the reply in two steps: the call returns the
// reply's length, then the host copies the reply into a buffer of that length.
func wasmHostCall(call []byte) []byte {
	n := hostCallImport(unsafe.Pointer(unsafe.SliceData(call)), uint32(len(call)))
	reply := make([]byte, n)
	if n > 0 {
		hostResultImport(unsafe.Pointer(&reply[0]))
	}
	return reply
}
