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
	// runs; a larger growth target trades memory (the dense 131k-request benchmark stays
	// under 200 MB) for about 30 % less time. GOGC in the environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(cli.Main(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
