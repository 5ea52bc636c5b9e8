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

# measure NAME COMMAND...: one run's wall and CPU (user + system) seconds,
# appended to NAME_wall and NAME_cpu; output discarded (exit 0/1 are results).
measure() {
  local name=$1 t
  shift
  t=$(mktemp)
  /usr/bin/time -f '%e %U %S' -o "$t" "$@" >/dev/null 2>&1 || true
  read -r wall user sys < <(tail -n 1 "$t")
  rm -f "$t"
  eval "${name}_wall+=(\"$wall\")"
  eval "${name}_cpu+=(\"$(awk "BEGIN { print $user + $sys }")\")"
}
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

"$devcheck" lint -j "$cores" "$tree" >/dev/null 2>&1 || true  # warm the page cache
d1_wall=() d1_cpu=() dn_wall=() dn_cpu=() f1_wall=() f1_cpu=() pf_wall=() pf_cpu=()
for ((r = 0; r < rounds; r++)); do
  measure d1 "$devcheck" lint -j 1 "$tree"
  measure dn "$devcheck" lint -j "$cores" "$tree"
  measure f1 /usr/bin/python3 -m flake8 --jobs 1 "$tree"
  measure pf /usr/bin/python3 -m pyflakes "$tree"
done
report() {  # report NAME LABEL
  local wall cpu
  eval "wall=\$(echo \"\${$1_wall[*]}\" | median); cpu=\$(echo \"\${$1_cpu[*]}\" | median)"
  eval "$1_w=$wall; $1_c=$cpu"
  printf 'lint_compare: %-24s wall %8s s  cpu %8s s\n' "$2" "$wall" "$cpu"
}
report d1 "devcheck lint -j 1"
report dn "devcheck lint -j $cores"
report f1 "flake8 --jobs 1"
report pf "pyflakes"
awk -v d1="$d1_w" -v dn="$dn_w" -v f="$f1_w" -v p="$pf_w" -v d1c="$d1_c" -v fc="$f1_c" -v pc="$pf_c" \
    -v c="$cores" 'BEGIN {
  printf "lint_compare: flake8 / devcheck -j 1 = %.1fx wall, %.1fx cpu (target >= 20x);", f / d1, fc / d1c
  printf " pyflakes / devcheck -j 1 = %.1fx wall, %.1fx cpu\n", p / d1, pc / d1c
  printf "lint_compare: -j %d: %.2fx the speed of -j 1, whole tree in %.2f s (target <= 1 s with all cores)\n", c, d1 / dn, dn }'
echo "lint_compare: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
