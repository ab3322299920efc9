//go:build js && wasm

// Command ui is the browser app (ui.wasm): it renders the vecty App into #app and, when the
// page URL carries a configuration, runs it at once. Simulation happens in a Web Worker via
// window.aisimulate (static/aisimulate.js), so this module does not contain the simulator.
package main

import (
	"syscall/js"

	"github.com/hexops/vecty"

	"aisimulate/ui"
)

func main() {
	perf := js.Global().Get("performance")
	perf.Call("mark", "aisimulate-ui-started")
	vecty.SetTitle("aisimulate — LLM serving simulator")
	app := ui.NewApp()
	if err := vecty.RenderInto("#app", app); err != nil {
		panic(err)
	}
	perf.Call("mark", "aisimulate-ui-rendered")
	ui.Warm()
	perf.Call("mark", "aisimulate-ui-warm")
	app.RunFromURL()
	select {}
}
