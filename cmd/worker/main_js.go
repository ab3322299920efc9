//go:build js && wasm

package main

import (
	"github.com/syumai/workers"
	"github.com/syumai/workers/cloudflare"

	"aisimulate/wasm/httpapi"
)

func main() {
	workers.Serve(&httpapi.Server{Env: bindingText})
}

// bindingText is the text binding named key, "" when the deployment does not set it
// (cloudflare.Getenv spells a missing binding as JavaScript's String(undefined), "<undefined>").
func bindingText(key string) string {
	switch v := cloudflare.Getenv(key); v {
	case "<undefined>", "<null>":
		return ""
	default:
		return v
	}
}
