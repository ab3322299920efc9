// Command aisimulate is the native command line: a thin wrapper that runs the embedded
// wasip1 simulator module (package host). Build it with `make build`.
package main

import (
	"os"

	"aisimulate/host"
)

func main() {
	os.Exit(host.Main(os.Args[1:]))
}
