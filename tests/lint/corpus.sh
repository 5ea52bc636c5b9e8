#!/usr/bin/env bash
# Lints a whole Python tree (the installed torch's): fails on a crash, a
# usage error or a hang (ctest's TIMEOUT); skips (77) when the tree is absent.
# Then --fix on a copy: the fixed files parse as well as before (no new
# DC100), and a second --fix finds nothing more to change. With --lint-only
# as a third argument, the lint alone (the public corpus of
# scripts/fetch-lint-corpus.sh).
#   corpus.sh DEVCHECK TREE [--lint-only]
set -uo pipefail
devcheck=$1
tree=$2
mode=${3:-}
[ -d "$tree" ] || { echo "corpus: $tree is absent (scripts/fetch-lint-corpus.sh); skipped"; exit 77; }
files=$(find "$tree" -name '*.py' | wc -l)
log=$(mktemp)
copy=$(mktemp -d)
trap 'rm -rf "$log" "$copy"' EXIT
start=$(date +%s.%N)
"$devcheck" lint --statistics "$tree" >"$log" 2>&1
status=$?
end=$(date +%s.%N)
tail -n 20 "$log"
echo "corpus: $files files in $(awk "BEGIN { print $end - $start }") s, exit $status"
[ "$status" -le 1 ] || exit 1
[ "$mode" = --lint-only ] && exit 0
syntax_before=$(grep -c ': DC100 ' "$log")

cp -r "$tree/." "$copy/"
"$devcheck" lint --fix "$copy" >"$log" 2>&1
status=$?
fixed=$(grep -c '^fixed ' "$log")
syntax_after=$(grep -c ': DC100 ' "$log")
echo "corpus: --fix rewrote $fixed files, exit $status; DC100 before $syntax_before, after $syntax_after"
[ "$status" -le 1 ] && [ "$fixed" -gt 0 ] && [ "$syntax_after" -eq "$syntax_before" ] || exit 1
"$devcheck" lint --diff "$copy" >"$log" 2>&1
status=$?
echo "corpus: a second pass would change $(grep -c '^would fix ' "$log") files, exit $status"
[ "$status" -eq 0 ]
