//go:build !(js && wasm)

package main

import (
	"flag"
	"log"
	"net/http"
	"os"

	"aisimulate/wasm/httpapi"
)

// main (native) serves the same API on 127.0.0.1 for debugging, without workerd.
func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "listen address (loopback only by default)")
	flag.Parse()
	s := &httpapi.Server{Env: os.Getenv}
	log.Printf("aisimulate edge API (native debug server) on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, s))
}
