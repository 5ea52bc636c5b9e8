#!/usr/bin/env bash
# Lints a whole Python tree (the installed torch's): fails on a crash, a
# usage error or a hang (ctest's TIMEOUT); skips (77) when the tree is absent.
set -uo pipefail
devcheck=$1
tree=$2
[ -d "$tree" ] || { echo "corpus: $tree is absent; skipped"; exit 77; }
files=$(find "$tree" -name '*.py' | wc -l)
start=$(date +%s.%N)
log=$(mktemp)
"$devcheck" lint --statistics "$tree" > "$log" 2>&1
status=$?
end=$(date +%s.%N)
tail -n 25 "$log"
rm -f "$log"
echo "corpus: $files files in $(awk "BEGIN { print $end - $start }") s, exit $status"
[ "$status" -le 1 ]
