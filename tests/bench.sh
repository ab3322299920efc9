#!/usr/bin/env bash
# Times the CLI on benchmark configurations: bench.sh BINARY CONFIG...
# Uses hyperfine when it is installed, and always prints the Go timer's table (wall time per
# run and simulated requests per second). BENCH_RUNS sets the number of timed runs (default 5).
# BENCH_STARTUP and BENCH_CAPTURE name the configurations of the start-up and capture lines
# (tests/benchtime's -startup and -capture).
set -euo pipefail
bin="$1"; shift
runs="${BENCH_RUNS:-5}"
if command -v hyperfine >/dev/null 2>&1; then
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
  for cfg in "$@"; do
    hyperfine --warmup 1 --runs "$runs" \
      "$bin predict --stack dynamo --config $cfg --output-dir $out --overwrite --format json"
  done
fi
go run ./tests/benchtime -bin "$bin" -runs "$runs" \
  ${BENCH_STARTUP:+-startup "$BENCH_STARTUP"} ${BENCH_CAPTURE:+-capture "$BENCH_CAPTURE"} "$@"
