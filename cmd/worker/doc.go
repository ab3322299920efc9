// Command worker is the edge target: it serves the simulator's HTTP API (wasm/httpapi) as a
// Cloudflare Worker in Go (github.com/syumai/workers) when built with GOOS=js (`make worker`,
// `make serve-edge`), and natively on 127.0.0.1 for debugging (`go run ./cmd/worker`).
// The API and its limits are docs/web.md, "Edge API".
package main
