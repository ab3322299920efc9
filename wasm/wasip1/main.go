// Command wasip1 is the aisimulate command module (GOOS=wasip1 GOARCH=wasm): the whole CLI,
// run by the native host (host/, cmd/aisimulate) under wazero with the host file system
// mounted at "/" and PWD set to the caller's working directory.
package main

import (
	"os"
	"runtime/debug"

	"aisimulate/wasm/cli"
)

func main() {
	// The wasm runtime's collector is single-threaded and stops the simulation while it
	// runs. A run allocates a few hundred MB at most and keeps little of it, so the collector
	// runs only when the heap reaches 1 GiB: the dense 131k-request benchmark then needs no
	// collection at all (1.8 s instead of 4 s) and stays under 200 MB. Captured runs too:
	// 1,000,000 captured requests need no collection and peak at about 0.6 GB, and GOGC 50
	// cost them a fifth of their instructions (docs/performance.md, "Per-request capture").
	// GOGC or GOMEMLIMIT in the environment still win.
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(-1)
		debug.SetMemoryLimit(1 << 30)
	}
	os.Exit(cli.Main(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
