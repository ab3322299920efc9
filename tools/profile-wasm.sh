#!/usr/bin/env bash
# Profiles the WebAssembly module as bin/aisimulate runs it: builds a host with wazero's
# `perfmap` tag (wazero then writes /tmp/perf-<pid>.map naming every compiled function) and an
# unstripped module, records with `perf record -e cpu-clock` (works without hardware counters;
# Debian package linux-perf), and prints the compiled module's functions by CPU time.
#   tools/profile-wasm.sh CONFIG [TOP] [PREDICT FLAGS...]   (e.g. --capture-per-request)
# The compilation cache is off (perf maps are only written when wazero compiles), so the
# profile also holds the compiler's own samples; only the module's functions are listed.
set -euo pipefail
cfg="$1"; top="${2:-40}"; shift; shift || true
cd "$(dirname "$0")/.."
command -v perf >/dev/null || { echo "perf not found (apt-get install linux-perf)"; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp host/module/aisimulate.wasm "$work/module.bak" 2>/dev/null || true
GOOS=wasip1 GOARCH=wasm go build -trimpath -o host/module/aisimulate.wasm ./wasm/wasip1
go run ./tools/wasmjumps host/module/aisimulate.wasm # as make wasm does: profile what runs
go build -tags perfmap -trimpath -o "$work/aisimulate" ./cmd/aisimulate
if [ -f "$work/module.bak" ]; then cp "$work/module.bak" host/module/aisimulate.wasm; fi
AISIMULATE_WAZERO_CACHE=off perf record -q -F 4000 -e cpu-clock -o "$work/perf.data" \
  "$work/aisimulate" predict --stack dynamo --config "$cfg" --output-dir "$work/out" --format json "$@" >/dev/null
# Symbols of compiled functions look like "[12/3400].aisimulate_simcore_engine.__KVPool_.TakeAnon:::::L7".
perf report -i "$work/perf.data" --sort sym --stdio -n -F sample,sym 2>/dev/null |
  awk '
    $2 == "[.]" && $3 ~ /^\[[0-9]+\/[0-9]+\]\./ {
      name = $3; sub(/^\[[0-9]+\/[0-9]+\]\./, "", name); sub(/:::::.*/, "", name)
      s[name] += $1; total += $1
    }
    END {
      printf "module: %d samples = %.2f s of CPU\n", total, total / 4000 > "/dev/stderr"
      for (k in s) printf "%6.2f%%  %6.3f s  %s\n", 100 * s[k] / total, s[k] / 4000, k
    }' | sort -rn | head -n "$top"
