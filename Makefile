# aisimulate build. `make run` predicts the quickstart example; `make test` is what CI runs.
# Other targets (web, edge) plug in through mk/*.mk files, which may append make targets to
# TEST_EXTRA (run by `make test` after the Go tests) and to BUILD_EXTRA.

GO      ?= go
BIN     := bin/aisimulate
WASM    := host/module/aisimulate.wasm
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -s -w -X aisimulate/simcore.Version=$(VERSION)
# Files gofmt checks: every Go file outside node_modules and build output.
GOFILES  = $(shell find . -name '*.go' -not -path './node_modules/*' -not -path '*/node_modules/*' -not -path './.git/*' -not -path './build/*')

TEST_EXTRA  ?=
BUILD_EXTRA ?=

.PHONY: all build wasm run test test-go test-race vet fmt-check staticcheck bench clean

all: build

-include mk/*.mk

# The wasip1 command module is the whole CLI; the native binary embeds it (host/module/).
# tools/wasmdata then joins the linker's ~60,000 data segments into a few dozen, which wazero
# decodes on every start, and tools/wasmjumps makes the forward jumps of every function
# direct branches instead of trips through its jump table (docs/performance.md).
wasm:
	GOOS=wasip1 GOARCH=wasm $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(WASM) ./wasm/wasip1
	$(GO) run ./tools/wasmdata $(WASM)
	$(GO) run ./tools/wasmjumps $(WASM)

build: wasm
	$(GO) build -trimpath -ldflags '-s -w' -o $(BIN) ./cmd/aisimulate
	@$(if $(strip $(BUILD_EXTRA)),$(MAKE) --no-print-directory $(BUILD_EXTRA))

run: build
	./$(BIN) predict --stack dynamo --config examples/quickstart.yaml --output-dir out/quickstart --overwrite

vet:
	$(GO) vet ./...

# staticcheck, pinned, installed from the Go module proxy into bin/tools on first use. The
# GOOS=js packages (browser UI, js bindings, edge worker) are checked in a second pass.
STATICCHECK_VERSION := v0.8.2
STATICCHECK := bin/tools/staticcheck-$(STATICCHECK_VERSION)
$(STATICCHECK):
	@mkdir -p bin/tools
	GOBIN=$(abspath bin/tools) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	mv bin/tools/staticcheck $@

staticcheck: $(STATICCHECK)
	$(STATICCHECK) ./...
	GOOS=js GOARCH=wasm $(STATICCHECK) ./ui/... ./wasm/jsapi/... ./cmd/ui/... ./cmd/worker/... ./wasm/httpapi/...

fmt-check:
	@out="$$(gofmt -l $(GOFILES))"; if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

# The end-to-end tests in tests/ run the binary named by AISIMULATE_BIN.
test-go: build
	AISIMULATE_BIN=$(abspath $(BIN)) $(GO) test ./...

# The race detector on the code native tools run from goroutines: the host's evaluator pools
# and output files, and the core driven by several goroutines at once (tools/recommendbench;
# TestConcurrentPredictions runs alone in its process, so it is also the concurrent first use
# of the lazily parsed catalog and calibration). Only these tests: the host tests that run
# real module instances compile the module under the detector, about a minute of CPU each,
# and the whole core under the detector would multiply the Go tests' time several times over
# for code that one goroutine runs. About 15 s in all.
test-race:
	$(GO) test -race -count=1 -run 'TestRemote|TestOutputFS|TestLocalPool' ./host/
	$(GO) test -race -count=1 -run '^TestConcurrentPredictions$$' ./simcore/

test: vet fmt-check staticcheck test-go test-race
	@$(if $(strip $(TEST_EXTRA)),$(MAKE) --no-print-directory $(TEST_EXTRA))

# Go benchmarks of the core (BENCHTIME=1s by default), then the CLI timed on the quickstart
# (its min CPU is the start-up figure, docs/performance.md) and examples/bench, the start-up
# and capture lines (best of 3 quickstart runs; examples/bench-capture with and without
# --capture-per-request), then the
# recommend benchmark and the optimiser comparison on a rare optimum (docs/recommend.md,
# "Speed").
BENCHTIME ?= 1s
bench: build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./simcore/...
	BENCH_STARTUP=examples/quickstart.yaml BENCH_CAPTURE=examples/bench-capture/capture-200k.yaml \
	  bash tests/bench.sh ./$(BIN) examples/quickstart.yaml examples/bench/*.yaml \
	  $$(test -f ../shared/traces/conversation_trace.jsonl && echo examples/bench-traces/conversation-8x-kv.yaml)
	$(GO) run ./tools/recommendbench -bin ./$(BIN) examples/recommend-bench.yaml
	$(GO) run ./tools/recommendbench -seeds 5 examples/bench-recommend/rare-optimum.yaml

clean:
	rm -rf bin aisimulate-output out $(WASM)
