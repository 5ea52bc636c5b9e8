#!/usr/bin/env bash
# The guards across the two LibTorch lanes, for real (needs root; run after
# both lanes built the package):
#   1. the package built for torch 1.13 (here), imported by the Debian 13
#      root's Python (torch 2.6): one ImportError line naming both versions;
#   2. the package built for 2.6 (in the root), imported here: the same;
#   3. `devcheck run` of the 1.13 build pointed at the root's Python: exit
#      status 2 in every mode, both versions named, the program never runs.
#
#   cross_lane.sh PKG_1_13 PKG_2_6 DEVCHECK_CLI PRELOAD [ROOT]
# PKG_*: the site-packages folders holding each lane's installed devcheck.
set -euo pipefail
pkg113=$(realpath "$1") pkg26=$(realpath "$2") cli=$(realpath "$3") preload=$(realpath "$4")
root=${5:-/var/cache/devcheck/torch2-root}
src=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${DEVCHECK_CROSS_NS:-}" != 1 ]; then
  export DEVCHECK_CROSS_NS=1
  exec unshare --mount --propagation private -- "$0" "$@"
fi
exec 9>"$root.lock"
flock -s 9
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
# The same paths inside the root as here: the 1.13 preload and packages.
for d in "$src" "$pkg113" "$pkg26"; do
  mkdir -p "$root$d"
  mountpoint -q "$root$d" || mount --bind "$d" "$root$d"
done
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
in_root bash "$src/scripts/torch2/stub-cudnn.sh"

fails=0
expect() {
  local name=$1
  shift
  if "$@"; then echo "ok: $name"; else echo "FAILED: $name" >&2; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
v113=$(/usr/bin/python3 -c 'import torch; print(torch.__version__)')
v26=$(in_root /usr/bin/python3 -c 'import torch; print(torch.__version__)' 2>/dev/null)
echo "lanes: torch $v113 here, torch $v26 in $root"

status=0
in_root /usr/bin/env PYTHONPATH="$pkg113" /usr/bin/python3 -c 'import torch, devcheck' 2>"$tmp/err" || status=$?
tail -n 1 "$tmp/err"
expect "1.13 package under torch $v26: import fails" test "$status" = 1
expect "  with one line naming both versions" grep -q \
  "^ImportError: \[devcheck\] this devcheck was built for torch $v113 .* but this Python has torch $v26 .*fix: rebuild it" "$tmp/err"

status=0
PYTHONPATH="$pkg26" /usr/bin/python3 -c 'import torch, devcheck' 2>"$tmp/err" || status=$?
tail -n 1 "$tmp/err"
expect "2.6 package under torch $v113: import fails" test "$status" = 1
expect "  with one line naming both versions" grep -q \
  "^ImportError: \[devcheck\] this devcheck was built for torch $v26 .* but this Python has torch $v113 .*fix: rebuild it" "$tmp/err"

for mode in report warn fail; do
  status=0
  DEVCHECK_PRELOAD=$preload "$cli" run --mode "$mode" -- chroot "$root" /usr/bin/python3 -c \
    "import torch; print('the program ran'); torch.ones(2) + 1" >"$tmp/out" 2>"$tmp/err" || status=$?
  [ "$mode" = report ] && cat "$tmp/err"
  expect "devcheck run --mode $mode (LibTorch ${v113%.*}) on torch $v26: exit status 2" test "$status" = 2
  expect "  names both versions" grep -q "this program loaded LibTorch 2.6 .* built for LibTorch 1.13" "$tmp/err"
  expect "  the program did not run unwatched" test ! -s "$tmp/out"
done

if [ "$fails" -ne 0 ]; then
  echo "cross_lane: $fails check(s) failed" >&2
  exit 1
fi
echo "cross_lane: all checks passed"
