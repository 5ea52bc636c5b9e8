#!/usr/bin/env bash
# Runs every benchmark program; each prints ratios against its own anchor.
set -uo pipefail
build=${1:-build}
status=0
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --benchmark_min_time=0.2 || status=1
done
for s in bench/*_compare.sh; do
  [ -f "$s" ] || continue
  echo "== $(basename "$s")"
  bash "$s" "$build" || status=1
done
exit $status
