# mk/web.mk — browser app, docs embed and edge worker (issue 7). Included by the main Makefile
# with `-include mk/*.mk`. Targets:
#   make web         build the static site into build/web (index.html, ui.wasm, core.wasm, …)
#   make serve-web   serve build/web on http://127.0.0.1:8080
#   make worker      build the Cloudflare Worker into build/worker (worker.mjs, app.wasm, …)
#   make serve-edge  run the worker locally under workerd on http://127.0.0.1:8787
#   make test-web    cross-target identity + browser + edge tests (appended to TEST_EXTRA)
#   make web-size    print module sizes (raw and gzip)

WEB_GO       ?= go
WEB_GOFLAGS  ?=
# The main Makefile's linker flags: -s -w and -X aisimulate/simcore.Version=$(VERSION), so the
# worker and the browser modules report the version bin/aisimulate reports.
WEB_LDFLAGS  ?= $(LDFLAGS)
WEB_OUT      ?= build/web
WORKER_OUT   ?= build/worker
WEB_NODE_MODULES := web/node_modules/.package-lock.json
WASM_EXEC    := $(shell $(WEB_GO) env GOROOT)/lib/wasm/wasm_exec.js
WEB_GO_SRC   := $(shell find simcore wasm ui cmd/ui cmd/worker -name '*.go' -o -name '*.yaml' 2>/dev/null) go.mod go.sum
WEB_STATIC   := $(wildcard static/*)
# The post-link pass run on every module: a change to it rebuilds them.
WEB_WASM_TOOL := $(wildcard tools/wasmjumps/*.go tools/internal/wasmbin/*.go)
# The version the modules are stamped with, recorded in a file rewritten (when make reads
# this file) only when the version differs: every module depends on it, so a new commit, tag
# or dirty tree rebuilds them and a build that names another version never survives. The
# build folder ignores itself (build/.gitignore) from the start.
WEB_VERSION_STAMP := build/.version
$(shell mkdir -p build && { test -f build/.gitignore || printf '*\n' > build/.gitignore; } && \
  { test "$$(cat $(WEB_VERSION_STAMP) 2>/dev/null)" = '$(VERSION)' || printf '%s' '$(VERSION)' > $(WEB_VERSION_STAMP); })

.PHONY: web serve-web worker serve-edge test-web web-deps web-chromium web-size

web: build/.gitignore $(WEB_OUT)/core.wasm $(WEB_OUT)/ui.wasm $(WEB_OUT)/wasm_exec.js $(WEB_OUT)/.static

# Build output is never committed: the folder ignores itself.
build/.gitignore:
	@mkdir -p build
	@printf '*\n' > $@

$(WEB_OUT)/core.wasm: $(WEB_GO_SRC) $(WEB_WASM_TOOL) $(WEB_VERSION_STAMP)
	@mkdir -p $(WEB_OUT)
	GOOS=js GOARCH=wasm $(WEB_GO) build $(WEB_GOFLAGS) -trimpath -ldflags='$(WEB_LDFLAGS)' -o $@ ./wasm/jsapi/core
	$(WEB_GO) run ./tools/wasmjumps $@

$(WEB_OUT)/ui.wasm: $(WEB_GO_SRC) $(WEB_WASM_TOOL) $(WEB_VERSION_STAMP)
	@mkdir -p $(WEB_OUT)
	GOOS=js GOARCH=wasm $(WEB_GO) build $(WEB_GOFLAGS) -trimpath -ldflags='$(WEB_LDFLAGS)' -o $@ ./cmd/ui
	$(WEB_GO) run ./tools/wasmjumps $@

$(WEB_OUT)/wasm_exec.js: $(WASM_EXEC)
	@mkdir -p $(WEB_OUT)
	cp $(WASM_EXEC) $@

$(WEB_OUT)/.static: $(WEB_STATIC)
	@mkdir -p $(WEB_OUT)
	cp static/* $(WEB_OUT)/
	@touch $@

serve-web: web
	node web/serve.mjs --root $(WEB_OUT) --host 127.0.0.1 --port 8080

worker: build/.gitignore $(WORKER_OUT)/app.wasm

$(WORKER_OUT)/app.wasm: $(WEB_GO_SRC) $(WEB_WASM_TOOL) $(WEB_VERSION_STAMP)
	$(WEB_GO) run github.com/syumai/workers/cmd/workers-assets-gen -mode=go -o $(WORKER_OUT)
	GOOS=js GOARCH=wasm $(WEB_GO) build $(WEB_GOFLAGS) -trimpath -ldflags='$(WEB_LDFLAGS)' -o $@ ./cmd/worker
	$(WEB_GO) run ./tools/wasmjumps $@

serve-edge: worker web-deps
	node web/serve-edge.mjs

web-deps: $(WEB_NODE_MODULES)

$(WEB_NODE_MODULES): web/package.json web/package-lock.json
	cd web && npm ci --no-audit --no-fund
	@touch $@

# Chromium from Debian, only when missing (never a browser download by a test tool).
web-chromium:
	@test -x /usr/bin/chromium || { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium; }

test-web: build web worker web-deps web-chromium
	node --test --test-concurrency=1 --test-timeout=240000 web/test/

web-size: web worker
	@for f in $(WEB_OUT)/core.wasm $(WEB_OUT)/ui.wasm $(WORKER_OUT)/app.wasm; do \
	  printf '%-28s raw %9d B   gzip %9d B\n' $$f $$(stat -c %s $$f) $$(gzip -9 -c $$f | wc -c); done

TEST_EXTRA += test-web
