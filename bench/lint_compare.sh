#!/usr/bin/env bash
# `devcheck lint` against flake8 (Debian's python3-flake8, default checks)
# and pyflakes on the same tree, in one run:
#   bash bench/lint_compare.sh BUILD_DIR [TREE]
#   BENCH_ROUNDS=3 bash bench/lint_compare.sh build-lint
# TREE defaults to the installed torch's Python tree. Each tool runs
# BENCH_ROUNDS times (default 1), alternating; the median wall time is
# reported, with the ratios flake8 / devcheck and pyflakes / devcheck taken
# from the same run (targets: >= 20x flake8 single-threaded, <= 1 s with all
# cores). Output is discarded; page cache warm (one untimed pass first).
set -euo pipefail
build=${1:-build}
tree=${2:-/usr/lib/python3/dist-packages/torch}
rounds=${BENCH_ROUNDS:-1}
devcheck=$build/devcheck
[ -x "$devcheck" ] || { echo "lint_compare: no $devcheck; build the devcheck_cli target first" >&2; exit 2; }
[ -d "$tree" ] || { echo "lint_compare: no tree $tree" >&2; exit 2; }
for tool in flake8 pyflakes; do
  /usr/bin/python3 -m $tool --version >/dev/null 2>&1 ||
    { echo "lint_compare: no $tool for /usr/bin/python3; run scripts/install-deps.sh" >&2; exit 2; }
done
cores=$(nproc)
files=$(find "$tree" -name '*.py' | wc -l)
bytes=$(find "$tree" -name '*.py' -print0 | xargs -0 cat | wc -c)
echo "lint_compare: $tree: $files .py files, $((bytes / 1024)) KiB; $cores cores," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "flake8 $(/usr/bin/python3 -m flake8 --version 2>/dev/null | head -1 | cut -d' ' -f1)," \
  "pyflakes $(/usr/bin/python3 -m pyflakes --version 2>/dev/null | head -1); load average before $(cut -d' ' -f1-3 /proc/loadavg)"

# seconds COMMAND...: wall time of one run, output discarded (exit 0/1 are results).
seconds() {
  local start end
  start=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || [ $? -le 1 ]
  end=$(date +%s.%N)
  awk "BEGIN { printf \"%.3f\", $end - $start }"
}
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

"$devcheck" lint -j "$cores" "$tree" >/dev/null 2>&1 || true  # warm the page cache
d1=() dn=() f1=() pf=()
for ((r = 0; r < rounds; r++)); do
  d1+=("$(seconds "$devcheck" lint -j 1 "$tree")")
  dn+=("$(seconds "$devcheck" lint -j "$cores" "$tree")")
  f1+=("$(seconds /usr/bin/python3 -m flake8 --jobs 1 "$tree")")
  pf+=("$(seconds /usr/bin/python3 -m pyflakes "$tree")")
done
d1m=$(echo "${d1[*]}" | median)
dnm=$(echo "${dn[*]}" | median)
f1m=$(echo "${f1[*]}" | median)
pfm=$(echo "${pf[*]}" | median)
echo "lint_compare: devcheck lint -j 1      ${d1m} s   (rounds: ${d1[*]})"
echo "lint_compare: devcheck lint -j $cores      ${dnm} s   (rounds: ${dn[*]})"
echo "lint_compare: flake8 --jobs 1         ${f1m} s   (rounds: ${f1[*]})"
echo "lint_compare: pyflakes                ${pfm} s   (rounds: ${pf[*]})"
awk -v d1="$d1m" -v dn="$dnm" -v f="$f1m" -v p="$pfm" -v c="$cores" 'BEGIN {
  printf "lint_compare: flake8 / devcheck -j 1 = %.1fx (target >= 20x); pyflakes / devcheck -j 1 = %.1fx;", f / d1, p / d1
  printf " -j %d speed-up %.2fx, whole tree in %.2f s (target <= 1 s with all cores)\n", c, d1 / dn, dn }'
echo "lint_compare: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
