//go:build !(js && wasm)

package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"
)

// main (native) serves the same API on 127.0.0.1 for debugging, without workerd.
func main() {
	addr := flag.String("addr", "127.0.0.1:8787", "listen address (loopback only by default)")
	flag.Parse()
	start := time.Now()
	s := &Server{Env: os.Getenv, Clock: func() float64 { return float64(time.Since(start).Nanoseconds()) / 1e6 }}
	log.Printf("aisimulate edge API (native debug server) on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, s))
}
