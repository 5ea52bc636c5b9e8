#!/usr/bin/env bash
# `devcheck lint` against flake8 (Debian's python3-flake8, default checks),
# pyflakes and ruff (its WebAssembly build from npm under node, rules E4, E7,
# E9 and F: bench/lint_ruff.js) on the same tree, in one run:
#   bash bench/lint_compare.sh BUILD_DIR [TREE]
#   BENCH_ROUNDS=3 BENCH_REPEAT=10 bash bench/lint_compare.sh build-lint
# TREE defaults to the installed torch's Python tree. Each tool runs
# BENCH_ROUNDS times (default 3), alternating; the median wall time is
# reported (the VM's speed drifts by 10-20% within minutes: one round is not
# a figure), with the ratios flake8, pyflakes and ruff / devcheck taken
# from the same run (targets: >= 20x flake8 single-threaded, <= 1 s with all
# cores). In each round devcheck and the floors, which take a second or two,
# run BENCH_REPEAT times back to back (default 10) and count as their mean:
# flake8's 40 s average the VM's drift over 40 s, and a single 2 s run lands
# wherever the drift is at that moment (runs of one round differed by 25%).
# Output is discarded; page cache warm (one untimed pass first). Each row
# also says how much CPU other processes took while it ran (from /proc/stat):
# on a shared machine -j N's wall time is only the tool's when that is small. flake8,
# pyflakes and ruff read the tree's .py files; devcheck reads its .pyi too.
# The floor: tree-sitter alone parsing every file (a small C program linked
# with the build's runtime and grammar objects and the allocator as the
# devcheck program is, nothing else), whose
# CPU time divided by the cores bounds devcheck's wall time from below; and
# the same program walking every node of each tree once with a cursor and
# doing nothing else (what a walk over the whole tree costs; devcheck skips
# the expressions that hold no call, so it can come in under this one). Both
# use the parser as devcheck builds it (the runtime and the grammar changed by
# src/lint/runtime_patch.cmake and grammar_patch.cmake, the same trees); a
# third floor parses with both as published, to show what the changes are
# worth.
set -euo pipefail
build=${1:-build}
tree=${2:-/usr/lib/python3/dist-packages/torch}
rounds=${BENCH_ROUNDS:-3}
repeat=${BENCH_REPEAT:-10}
devcheck=$build/devcheck
[ -x "$devcheck" ] || { echo "lint_compare: no $devcheck; build the devcheck_cli target first" >&2; exit 2; }
[ -d "$tree" ] || { echo "lint_compare: no tree $tree" >&2; exit 2; }
for tool in flake8 pyflakes; do
  /usr/bin/python3 -m $tool --version >/dev/null 2>&1 ||
    { echo "lint_compare: no $tool for /usr/bin/python3; run scripts/install-deps.sh" >&2; exit 2; }
done
# ruff's WebAssembly build, where scripts/install-deps.sh put it.
ruff_dir=${DEVCHECK_RUFF_WASM_DIR:-/var/cache/devcheck/ruff-wasm-nodejs-0.17.4}
here=$(cd "$(dirname "$0")" && pwd)
ruff=
if [ -f "$ruff_dir/ruff_wasm.js" ] && command -v node >/dev/null; then
  ruff=$(node -e "console.log(require('$ruff_dir/package.json').version)")
else
  echo "lint_compare: no ruff WebAssembly build in $ruff_dir (scripts/install-deps.sh) or no node; ruff skipped"
fi
cores=$(nproc)
files=$(find "$tree" -name '*.py' | wc -l)
bytes=$(find "$tree" -name '*.py' -print0 | xargs -0 cat | wc -c)
echo "lint_compare: $tree: $files .py files, $((bytes / 1024)) KiB; $cores cores," \
  "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
  "flake8 $(/usr/bin/python3 -m flake8 --version 2>/dev/null | head -1 | cut -d' ' -f1)," \
  "pyflakes $(/usr/bin/python3 -m pyflakes --version 2>/dev/null | head -1)," \
  "ruff-wasm ${ruff:-none} under node $(node --version 2>/dev/null || echo none);" \
  "load average before $(cut -d' ' -f1-3 /proc/loadavg)"

# measure NAME TIMES COMMAND...: TIMES runs back to back, timed together;
# the wall and CPU (user + system) seconds of one run, their mean, appended
# to NAME_wall and NAME_cpu; output discarded (exit 0/1 are results).
# Also NAME_other: the CPU seconds other processes took meanwhile, per run
# (the machine's busy time from /proc/stat less the tool's own): on a shared
# machine, what the wall times of -j N competed with.
busy_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
hz=$(getconf CLK_TCK)
measure() {
  local name=$1 times=$2 t before after
  shift 2
  t=$(mktemp)
  before=$(busy_ticks)
  /usr/bin/time -f '%e %U %S' -o "$t" bash -c \
    'for ((i = 0; i < $0; i++)); do "$@" >/dev/null 2>&1 || true; done' "$times" "$@" \
    >/dev/null 2>&1 || true
  after=$(busy_ticks)
  read -r wall user sys < <(tail -n 1 "$t")
  rm -f "$t"
  eval "${name}_wall+=(\"$(awk "BEGIN { printf \"%.3f\", $wall / $times }")\")"
  eval "${name}_cpu+=(\"$(awk "BEGIN { printf \"%.3f\", ($user + $sys) / $times }")\")"
  eval "${name}_other+=(\"$(awk "BEGIN { o = (($after - $before) / $hz - $user - $sys) / $times
    printf \"%.3f\", o < 0 ? 0 : o }")\")"
}
median() { tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The parse-only floor, built from the grammar objects of this build.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The runtime's and the grammar's objects come from the lint library (the
# linker takes only them: lib.c's, parser.c's and the scanner's), not from the
# build's object folders, where a stale object can lie.
grammar_objects=$(find "$build/src/lint" -maxdepth 1 -name 'libdevcheck_lint.a')
cat >"$work/parse_only.c" <<'EOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tree_sitter/api.h>
const TSLanguage* tree_sitter_python(void);
/* A walk over every node once with a cursor, stopping at each node's last
   child as devcheck does, only counting. */
static unsigned long walk(TSTreeCursor* cursor) {
  unsigned long nodes = 1;
  const uint32_t children = ts_node_child_count(ts_tree_cursor_current_node(cursor));
  if (children > 0 && ts_tree_cursor_goto_first_child(cursor)) {
    for (uint32_t i = 1;; ++i) {
      nodes += walk(cursor);
      if (i == children || !ts_tree_cursor_goto_next_sibling(cursor)) break;
    }
    ts_tree_cursor_goto_parent(cursor);
  }
  return nodes;
}
/* Parses each file named on stdin (with the argument "walk", also walks its
   tree); prints the number of files and of nodes walked. */
int main(int argc, char** argv) {
  const int walking = argc > 1 && strcmp(argv[1], "walk") == 0;
  TSParser* parser = ts_parser_new();
  if (!ts_parser_set_language(parser, tree_sitter_python())) return 2;
  char path[4096];
  unsigned long files = 0, nodes = 0;
  while (fgets(path, sizeof path, stdin)) {
    path[strcspn(path, "\n")] = 0;
    FILE* f = fopen(path, "rb");
    if (!f) return 2;
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* text = malloc(size > 0 ? size : 1);
    const size_t got = fread(text, 1, size, f);
    fclose(f);
    TSTree* tree = ts_parser_parse_string(parser, NULL, text, (uint32_t)got);
    if (walking) {
      TSTreeCursor cursor = ts_tree_cursor_new(ts_tree_root_node(tree));
      nodes += walk(&cursor);
      ts_tree_cursor_delete(&cursor);
    }
    ts_tree_delete(tree);
    free(text);
    ++files;
  }
  ts_parser_delete(parser);
  printf("%lu %lu\n", files, nodes);
  return 0;
}
EOF
# Linked as the devcheck program is: the runtime, the grammar and their
# allocator (src/lint/alloc.cc) from the lint library.
runtime=$(sed -n 's/^DEVCHECK_TREE_SITTER_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)/lib
parse_only=
if [ -n "$grammar_objects" ] && [ -f "$runtime/include/tree_sitter/api.h" ] &&
  cc -O2 -c -I"$runtime/include" -o "$work/parse_only.o" "$work/parse_only.c" 2>"$work/cc.log" &&
  c++ -O2 -o "$work/parse_only" "$work/parse_only.o" $grammar_objects 2>>"$work/cc.log"; then
  parse_only=$work/parse_only
  find "$tree" \( -name '*.py' -o -name '*.pyi' \) | sort >"$work/files"
  find "$tree" -name '*.py' | sort >"$work/py_files"
else
  echo "lint_compare: cannot build the parse-only floor (no lint library in $build?); skipped"
fi
# The same floor with the parser as published: the runtime's source as Debian
# ships it and the grammar's files as npm unpacked them, compiled here as the
# build compiles them (one unit, -O2, hidden symbols).
parse_upstream=
grammar=$(sed -n 's/^DEVCHECK_TREE_SITTER_PYTHON_DIR:PATH=//p' "$build/CMakeCache.txt" 2>/dev/null)/src
if [ -n "$parse_only" ] && [ -f "$grammar/scanner.c" ] && [ -f "$runtime/src/lib.c" ] &&
  cc -O2 -w -fvisibility=hidden -I"$runtime/include" -I"$runtime/src" -o "$work/parse_upstream" \
    "$work/parse_only.c" "$runtime/src/lib.c" "$grammar/parser.c" "$grammar/scanner.c" \
    2>"$work/cc.log"; then
  parse_upstream=$work/parse_upstream
fi
[ -n "$parse_upstream" ] || echo "lint_compare: cannot build the floor with the parser as published; skipped"

echo "lint_compare: devcheck $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo '?')," \
  "$(sed -n 's/^CMAKE_BUILD_TYPE:STRING=//p' "$build/CMakeCache.txt" 2>/dev/null) build;" \
  "tree-sitter runtime from $runtime; its allocations from lint's pools (src/lint/alloc.cc)"
"$devcheck" lint -j "$cores" "$tree" >/dev/null 2>&1 || true  # warm the page cache
d1_wall=() d1_cpu=() dn_wall=() dn_cpu=() f1_wall=() f1_cpu=() pf_wall=() pf_cpu=()
po_wall=() po_cpu=() pw_wall=() pw_cpu=() pu_wall=() pu_cpu=() rf_wall=() rf_cpu=()
[ -n "$parse_only" ] || find "$tree" -name '*.py' | sort >"$work/py_files"
for ((r = 0; r < rounds; r++)); do
  [ -z "$parse_only" ] || measure po "$repeat" sh -c "\"$parse_only\" <\"$work/files\""
  [ -z "$parse_only" ] || measure pw "$repeat" sh -c "\"$parse_only\" walk <\"$work/files\""
  [ -z "$parse_upstream" ] || measure pu "$repeat" sh -c "\"$parse_upstream\" <\"$work/files\""
  measure d1 "$repeat" "$devcheck" lint -j 1 "$tree"
  measure dn "$repeat" "$devcheck" lint -j "$cores" "$tree"
  measure f1 1 /usr/bin/python3 -m flake8 --jobs 1 "$tree"
  measure pf 1 /usr/bin/python3 -m pyflakes "$tree"
  [ -z "$ruff" ] || measure rf 1 sh -c "node \"$here/lint_ruff.js\" \"$ruff_dir\" <\"$work/py_files\""
done
report() {  # report NAME LABEL
  local wall cpu other
  eval "wall=\$(echo \"\${$1_wall[*]}\" | median); cpu=\$(echo \"\${$1_cpu[*]}\" | median)"
  eval "other=\$(echo \"\${$1_other[*]}\" | median)"
  eval "$1_w=$wall; $1_c=$cpu; $1_o=$other"
  printf 'lint_compare: %-24s wall %8s s  cpu %8s s  other processes %7s s cpu\n' "$2" "$wall" \
    "$cpu" "$other"
}
report d1 "devcheck lint -j 1"
report dn "devcheck lint -j $cores"
report f1 "flake8 --jobs 1"
report pf "pyflakes"
[ -z "$ruff" ] || report rf "ruff $ruff (wasm, node)"
[ -z "$parse_only" ] || report po "parse only (tree-sitter)"
[ -z "$parse_only" ] || report pw "parse + full cursor walk"
[ -z "$parse_upstream" ] || report pu "parse, as published"
awk -v d1="$d1_w" -v dn="$dn_w" -v f="$f1_w" -v p="$pf_w" -v d1c="$d1_c" -v fc="$f1_c" -v pc="$pf_c" \
    -v c="$cores" 'BEGIN {
  printf "lint_compare: flake8 / devcheck -j 1 = %.1fx wall, %.1fx cpu (target >= 20x);", f / d1, fc / d1c
  printf " pyflakes / devcheck -j 1 = %.1fx wall, %.1fx cpu\n", p / d1, pc / d1c
  printf "lint_compare: -j %d: %.2fx the speed of -j 1, whole tree in %.2f s (target <= 1 s with all cores)\n", c, d1 / dn, dn }'
awk -v dn="$dn_w" -v o="$dn_o" -v c="$cores" 'BEGIN {
  printf "lint_compare: while -j %d ran, other processes took %.2f s of cpu a run, %.0f%% of the %d cores", c, o, 100 * o / (dn * c), c
  busy = o > 0.1 * dn * c
  printf " (%s)\n", busy ? "the machine was not idle: the -j figures are not the tool'"'"'s alone" : "the machine was idle enough" }'
if [ -n "$ruff" ]; then
  awk -v d1="$d1_w" -v r="$rf_w" -v d1c="$d1_c" -v rc="$rf_c" 'BEGIN {
    printf "lint_compare: ruff (wasm, E4/E7/E9/F) / devcheck -j 1 = %.1fx wall, %.1fx cpu\n", r / d1, rc / d1c }'
fi
if [ -n "$parse_only" ]; then
  awk -v po="$po_c" -v d1c="$d1_c" -v c="$cores" 'BEGIN {
    printf "lint_compare: parsing alone takes %.2f s cpu, %.0f%% of devcheck -j 1 cpu;", po, 100 * po / d1c
    printf " on %d idle cores it needs at least %.2f s wall, the rest at least %.2f s more\n", c, po / c, (d1c - po) / c }'
  awk -v po="$po_c" -v pw="$pw_c" -v d1c="$d1_c" -v fc="$f1_c" -v c="$cores" 'BEGIN {
    printf "lint_compare: parse + a cursor walk over every node takes %.2f s cpu (%.2fx the parse; devcheck -j 1,", pw, pw / po
    printf " which does not walk into expressions that hold no call, is %.2fx); flake8 / that = %.1fx\n", d1c / po, fc / pw }'
fi
if [ -n "$parse_upstream" ]; then
  awk -v po="$po_c" -v pu="$pu_c" 'BEGIN {
    printf "lint_compare: with the runtime and the grammar as published the parse takes %.2f s cpu;", pu
    printf " devcheck'"'"'s copies (src/lint/runtime_patch.cmake, grammar_patch.cmake) take %.0f%% less\n", 100 * (pu - po) / pu }'
fi
echo "lint_compare: threads: devcheck -j 1 and -j $cores, flake8 --jobs 1, pyflakes, ruff and the floors 1;" \
  "page cache warm; times are medians of $rounds round(s), devcheck's and the floors' each the" \
  "mean of $repeat runs back to back"
echo "lint_compare: load average after $(cut -d' ' -f1-3 /proc/loadavg)"
