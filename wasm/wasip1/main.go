// Command wasip1 is the aisimulate command module (GOOS=wasip1 GOARCH=wasm): the whole CLI,
// run by the native host (host/, cmd/aisimulate) under wazero with the host file system
// mounted at "/" and PWD set to the caller's working directory.
package main

import (
	"os"

	"aisimulate/wasm/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Environ(), os.Stdin, os.Stdout, os.Stderr))
}
