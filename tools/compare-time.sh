#!/usr/bin/env bash
# Compares the CPU time of one prediction across binaries: runs them interleaved (so a busy
# spell of a shared machine hits every binary alike), each N times after one warm-up run that
# fills its compilation cache, and prints the minimum and median user+system seconds and the
# peak RSS per binary. Minimums are the figure to compare on a noisy VM.
#   tools/compare-time.sh CONFIG N BIN [BIN...]
# At most 4 binaries: the host's compilation cache keeps 4 modules (host.CacheKeep).
set -euo pipefail
[ $# -ge 3 ] || { echo "usage: tools/compare-time.sh CONFIG N BIN [BIN...]"; exit 2; }
cfg="$1"; n="$2"; shift 2
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
run() { "$1" predict --stack dynamo --config "$cfg" --output-dir "$work/out" --overwrite >/dev/null 2>&1; }
for bin in "$@"; do run "$bin"; done
for _ in $(seq "$n"); do
  for i in $(seq $#); do
    bin="${!i}"
    /usr/bin/time -f "%U %S %M" -a -o "$work/t$i" "$bin" predict --stack dynamo --config "$cfg" \
      --output-dir "$work/out" --overwrite >/dev/null 2>&1
  done
done
for i in $(seq $#); do
  awk '{ printf "%.2f %d\n", $1 + $2, $3 }' "$work/t$i" | sort -n | awk -v bin="${!i}" '
    { t[NR] = $1; if ($2 > rss) rss = $2 }
    END { printf "%s: min %.2f s, median %.2f s CPU, %d MB\n", bin, t[1], t[int((NR + 1) / 2)], rss / 1024 }'
done
