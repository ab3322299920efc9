# Local edge server: runs the built Cloudflare Worker (build/worker, `make worker`) under
# workerd on 127.0.0.1:8787 (`make serve-edge`). Outbound network access is disabled: the
# worker's global fetch goes to a network service that allows nothing.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "aisimulate", worker = .aisimulateWorker),
    (name = "no-network", network = (allow = [])),
  ],
  sockets = [
    (name = "http", address = "127.0.0.1:8787", http = (), service = "aisimulate"),
  ],
);

const aisimulateWorker :Workerd.Worker = (
  modules = [
    (name = "worker.mjs", esModule = embed "../build/worker/worker.mjs"),
    (name = "runtime.mjs", esModule = embed "../build/worker/runtime.mjs"),
    (name = "wasm_exec.js", esModule = embed "../build/worker/wasm_exec.js"),
    (name = "app.wasm", wasm = embed "../build/worker/app.wasm"),
  ],
  compatibilityDate = "2025-01-01",
  compatibilityFlags = ["nodejs_compat"],
  globalOutbound = "no-network",
  bindings = [],
);
