#!/usr/bin/env bash
# The preload library never runs a program unwatched when it asked to be
# watched: a LibTorch of another version than devcheck's (found by soname, as
# Debian names it, or by torch/version.py beside a wheel's torch/lib) stops
# the program with exit status 2 and a message naming both versions, before
# libdevcheck (and so a second LibTorch) is loaded. A stand-in library named
# libtorch_cpu plays the other LibTorch. `devcheck run -- python3 script.py`
# looks before the program starts: a Python whose torch (a stand-in torch
# tree) is another version is not started, or is handed to its devcheck
# package when it has one.
#
#   preload_guard.sh PRELOAD DEVCHECK_CLI PYTHON CXX BUILT_TORCH_VERSION
set -euo pipefail
preload=$1 cli=$2 python=$3 cxx=$4 built=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
expect() {  # expect NAME CONDITION...
  local name=$1
  shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name" >&2; fails=$((fails + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }

echo 'int devcheck_stand_in;' >"$tmp/stand_in.c"
"$cxx" -x c -shared -fPIC -o "$tmp/libtorch_cpu.so.9.9" "$tmp/stand_in.c"
mkdir -p "$tmp/wheel/torch/lib"
cp "$tmp/libtorch_cpu.so.9.9" "$tmp/wheel/torch/lib/libtorch_cpu.so"
echo "__version__ = '9.9.1+cu999'" >"$tmp/wheel/torch/version.py"

program() { echo "import ctypes; ctypes.CDLL('$1'); print('the program ran on')"; }

# 1. Debian's layout, asked to be watched (as devcheck run sets it).
status=0
LD_PRELOAD=$preload DEVCHECK_SANITIZE=warn "$python" -c "$(program "$tmp/libtorch_cpu.so.9.9")" \
  >"$tmp/out" 2>"$tmp/err" || status=$?
cat "$tmp/err"
expect "another LibTorch by soname: exit status 2" test "$status" = 2
expect "names the program's LibTorch and its file" \
  has "$tmp/err" "this program loaded LibTorch 9.9 ($tmp/libtorch_cpu.so.9.9)"
expect "names devcheck's LibTorch" has "$tmp/err" "this devcheck was built for LibTorch $built"
expect "says the program is stopped, and the fix" \
  has "$tmp/err" "stopping the program here (exit status 2) rather than run it unwatched"
expect "the fix names the Python package" has "$tmp/err" "pip install --no-build-isolation --no-deps"
expect "the program did not go on" test ! -s "$tmp/out"

# 2. A wheel's layout: the version comes from torch/version.py.
status=0
LD_PRELOAD=$preload DEVCHECK_SANITIZE=fail "$python" -c "$(program "$tmp/wheel/torch/lib/libtorch_cpu.so")" \
  >"$tmp/out" 2>"$tmp/err" || status=$?
expect "another LibTorch from a wheel: exit status 2" test "$status" = 2
expect "names the wheel's version" has "$tmp/err" "loaded LibTorch 9.9.1+cu999"
expect "the wheel program did not go on" test ! -s "$tmp/out"

# 3. Not asked to watch (a program that only links the preload library): a
# note, and the program runs; libdevcheck is still not loaded.
status=0
LD_PRELOAD=$preload DEVCHECK_SANITIZE=off "$python" -c "$(program "$tmp/libtorch_cpu.so.9.9")" \
  >"$tmp/out" 2>"$tmp/err" || status=$?
expect "unrequested: the program runs" test "$status" = 0
expect "unrequested: it says the process is not watched" has "$tmp/err" "this process is not watched"
expect "unrequested: its output is there" has "$tmp/out" "the program ran on"

# 4. Through devcheck run: its exit status is 2 and the reason is shown.
status=0
DEVCHECK_PRELOAD=$preload "$cli" run --mode report -- "$python" -c "$(program "$tmp/libtorch_cpu.so.9.9")" \
  >"$tmp/out" 2>"$tmp/err" || status=$?
cat "$tmp/err"
expect "devcheck run: exit status 2 in report mode" test "$status" = 2
expect "devcheck run: names both versions" has "$tmp/err" "loaded LibTorch 9.9"
expect "devcheck run: the program did not go on" test ! -s "$tmp/out"
expect "devcheck run: does not claim LibTorch was never loaded" bash -c "! grep -q \"never loaded LibTorch\" \"$tmp/err\""

# 5. Before the program starts: a Python whose torch (a stand-in tree on
# PYTHONPATH, as a wheel lays it out) is another version and that has no
# devcheck package is not started at all, in every mode. The script's first
# statement writes a file; it must not exist afterwards.
mkdir -p "$tmp/other/torch"
echo "raise SystemExit('the stand-in torch was imported')" >"$tmp/other/torch/__init__.py"
echo "__version__ = '9.9.1+cu999'" >"$tmp/other/torch/version.py"
cat >"$tmp/script.py" <<PY
open("$tmp/started", "w").write("the script ran")
print("the program ran on")
PY
for mode in report warn fail; do
  status=0
  rm -f "$tmp/started"
  PYTHONPATH=$tmp/other DEVCHECK_PRELOAD=$preload "$cli" run --mode "$mode" -- "$python" "$tmp/script.py" \
    >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$mode" = report ] && cat "$tmp/err"
  expect "another Python torch, $mode mode: exit status 2" test "$status" = 2
  expect "another Python torch, $mode mode: the script never started" test ! -e "$tmp/started"
  expect "another Python torch, $mode mode: names the Python's torch" \
    has "$tmp/err" "imports torch 9.9.1+cu999 (CUDA none) from $tmp/other/torch"
  expect "another Python torch, $mode mode: names devcheck's LibTorch" \
    has "$tmp/err" "but this devcheck was built for LibTorch $built"
  expect "another Python torch, $mode mode: the fix is the pip command for that Python" \
    has "$tmp/err" "-m pip install --no-build-isolation --no-deps"
  expect "another Python torch, $mode mode: says it was not started" \
    has "$tmp/err" "the program was not started (exit status 2) rather than run unwatched"
done

# 6. That Python with a devcheck package built for its torch: devcheck run
# hands the program to the package (python -m devcheck run) with its flags,
# and says so in one line. A stand-in package records what it was given.
mkdir -p "$tmp/other/devcheck"
: >"$tmp/other/devcheck/__init__.py"
printf "TORCH_VERSION = '9.9.1+cu999'\nCUDA_VERSION = None\n" >"$tmp/other/devcheck/_build_info.py"
echo "import sys; open('$tmp/handed', 'w').write(' '.join(sys.argv[1:]))" >"$tmp/other/devcheck/__main__.py"
status=0
PYTHONPATH=$tmp/other DEVCHECK_PRELOAD=$preload "$cli" run --mode fail --no-provenance -- \
  "$python" -u "$tmp/script.py" a b >"$tmp/out" 2>"$tmp/err" || status=$?
cat "$tmp/err"
expect "with the package: the one line says how it is watched" \
  has "$tmp/err" "has the devcheck package for its torch 9.9.1+cu999 ($tmp/other/devcheck): the program is watched in-process through it (python -m devcheck run), not by the preload library"
expect "with the package: the package got the mode, the flags, the script and its arguments" \
  bash -c "grep -qE '^run --mode fail --no-provenance --report-dir [^ ]+ -- $tmp/script.py a b\$' '$tmp/handed'"
expect "with the package: no report is said plainly" has "$tmp/err" "wrote no report"

# 7. A Python without torch (-S: no site-packages) runs as before: it may
# never import torch.
status=0
rm -f "$tmp/started"
DEVCHECK_PRELOAD=$preload "$cli" run --mode fail -- "$python" -S "$tmp/script.py" \
  >"$tmp/out" 2>"$tmp/err" || status=$?
expect "no torch: the script runs, exit status 0" test "$status" = 0
expect "no torch: the script ran" test -e "$tmp/started"
expect "no torch: it says nothing was watched" has "$tmp/err" "never loaded LibTorch, so nothing was watched"

if [ "$fails" -ne 0 ]; then
  echo "$fails check(s) failed" >&2
  exit 1
fi
