//go:build js && wasm

package main

import (
	"syscall/js"

	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"
)

func main() {
	perf := js.Global().Get("performance")
	s := &Server{Env: cloudflare.Getenv}
	if perf.Type() == js.TypeObject {
		now := perf.Get("now").Call("bind", perf)
		s.Clock = func() float64 { return now.Invoke().Float() }
	}
	workers.Serve(s)
}
