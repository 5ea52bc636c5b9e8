#!/usr/bin/env bash
# Runs every libFuzzer harness in BUILD for SECONDS each, seeded from
# fuzz/corpus/<name> (and tests/data fixtures where a harness lists them).
set -euo pipefail
build=${1:-build-fuzz}
seconds=${2:-60}
status=0
for harness in "$build"/fuzz/*_fuzz; do
  [ -x "$harness" ] || continue
  name=$(basename "$harness" _fuzz)
  seeds="fuzz/corpus/$name"
  work="$build/fuzz-work/$name"
  mkdir -p "$work" "$seeds"
  echo "fuzz: $name for ${seconds}s"
  if ! "$harness" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
       -artifact_prefix="$build/fuzz-work/$name-" "$work" "$seeds" >"$build/fuzz-work/$name.log" 2>&1; then
    echo "fuzz: $name FAILED; see $build/fuzz-work/$name.log"; tail -n 30 "$build/fuzz-work/$name.log"
    status=1
  else
    grep -E '^(#[0-9]+ *DONE|Done [0-9]+ runs)' "$build/fuzz-work/$name.log" | tail -n 1 || true
  fi
done
exit $status
