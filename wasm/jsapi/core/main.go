//go:build js && wasm

// Command core is the simulator as a GOOS=js WebAssembly module (core.wasm) for the browser
// Web Worker and node: it registers globalThis.aisimulateCore and waits for calls.
package main

import jsapi "aisimulate/wasm/jsapi"

func main() {
	jsapi.Register()
	select {}
}
