#!/usr/bin/env bash
# Counts the instructions and branch mispredictions of one prediction per binary under
# valgrind: figures that do not move with the load of a shared machine, unlike wall-clock
# time, so two builds can be compared exactly (see docs/performance.md).
#   tools/count-instructions.sh CONFIG BIN [BIN...]
# Each binary gets its own compilation cache, filled by a first run under valgrind: wazero
# keys the cache by CPU features, which valgrind reports differently from the CPU, and a
# miss would add the whole compilation (about 20 billion instructions). GOGC=off keeps the
# host's garbage collector, whose work varies with thread timing, out of the count.
# Needs valgrind (Debian package valgrind). About 1.5 minutes per binary for dense-16k (one
# minute of it compiling under valgrind), 6 minutes for the Mooncake conversation trace.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: tools/count-instructions.sh CONFIG BIN [BIN...]"; exit 2; }
command -v valgrind >/dev/null || { echo "valgrind not found (apt-get install valgrind)"; exit 1; }
cfg="$1"; shift
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for bin in "$@"; do
  cache="$work/cache-$(basename "$bin")-$RANDOM"
  mkdir -p "$cache"
  AISIMULATE_WAZERO_CACHE="$cache" valgrind --tool=none "$bin" predict --stack dynamo \
    --config "$cfg" --output-dir "$work/out" --overwrite >/dev/null 2>&1
  GOGC=off AISIMULATE_WAZERO_CACHE="$cache" valgrind --tool=cachegrind --cache-sim=no \
    --branch-sim=yes --cachegrind-out-file=/dev/null "$bin" predict --stack dynamo \
    --config "$cfg" --output-dir "$work/out" --overwrite 2>&1 >/dev/null |
    awk -v bin="$bin" '
      /I +refs:/ { gsub(",", "", $NF); ir = $NF }
      /Mispredicts:/ { gsub(",", "", $3); mis = $3 }
      END { printf "%s: %.3f billion instructions, %.1f million branch mispredictions\n", bin, ir / 1e9, mis / 1e6 }'
done
