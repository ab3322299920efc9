#!/usr/bin/env bash
# Checks that a change to the core changed no output byte: runs every bundled configuration
# (examples, browser presets, identity configs, benchmark configs; the shared Mooncake trace
# too when ../shared/traces is present) through two binaries with per-request capture and
# compares prediction.json and requests.jsonl.
#   tools/same-output.sh OLD_BIN NEW_BIN
# Build OLD_BIN from the commit before the change (git worktree + make build), NEW_BIN is
# usually bin/aisimulate. Exits 1 and names the configurations whose outputs differ.
set -uo pipefail
old="$(realpath "$1")"; new="$(realpath "$2")"
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
configs=(examples/*.yaml examples/stress/*.yaml ui/presets/*.yaml web/testdata/identity/0[1-7]*.yaml examples/bench/*.yaml)
[ -f ../shared/traces/conversation_trace.jsonl ] && configs+=(examples/bench-traces/*.yaml)
status=0
mkdir -p "$work/old" "$work/new"
for cfg in "${configs[@]}"; do
  name="$(echo "$cfg" | tr / _)"
  # Identity configs name their trace relative to their own folder.
  dir=.; rel="$cfg"
  case "$cfg" in web/testdata/identity/*) dir=web/testdata/identity; rel="$(basename "$cfg")" ;; esac
  for side in old new; do
    bin="$old"; [ "$side" = new ] && bin="$new"
    (cd "$dir" && AISIMULATE_FIXED_WALL_TIME_MS=1 "$bin" predict --stack dynamo --config "$rel" \
      --output-dir "$work/$side/$name" --capture-per-request --format json >/dev/null 2>"$work/$side/$name.err")
    echo $? > "$work/$side/$name.rc"
  done
  if ! cmp -s "$work/old/$name.rc" "$work/new/$name.rc" ||
     ! cmp -s "$work/old/$name/prediction.json" "$work/new/$name/prediction.json" ||
     ! cmp -s "$work/old/$name/requests.jsonl" "$work/new/$name/requests.jsonl"; then
    if [ -f "$work/new/$name/prediction.json" ] || [ -f "$work/old/$name/prediction.json" ]; then
      echo "DIFFERS: $cfg"; status=1
    fi
  fi
done
[ $status = 0 ] && echo "same output for ${#configs[@]} configurations"
exit $status
