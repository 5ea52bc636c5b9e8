#!/usr/bin/env bash
# devcheck::distributed against a LibTorch whose gloo headers are missing (a
# torch pip wheel): the tree configures and builds without the Gloo backend,
# and distributed training on the CPU then stops at once with one message
# naming the backend it lacks and how to get it (exit status 2), no rank
# waiting for the others.
#
#   without_gloo.sh SOURCE BUILD_OF_THIS_LANE TORCH_DIR PYTHON
#
# The gloo headers are hidden, not removed: an empty folder is mounted over
# each gloo/ include folder in a private mount namespace. The scratch build
# uses the lane's flags, so ccache serves what did not change. Exit 0 passed,
# 1 failed, 77 skipped (no mount namespace: not root and no user namespaces).
set -euo pipefail
source=$(cd "$1" && pwd) build=$(cd "$2" && pwd) torch_dir=$3 python=$4

if [ "${DEVCHECK_WITHOUT_GLOO_NS:-}" != 1 ]; then
  export DEVCHECK_WITHOUT_GLOO_NS=1
  if [ "$(id -u)" -eq 0 ]; then
    exec unshare --mount --propagation private -- "$0" "$@"
  elif unshare --user --map-root-user --mount true 2>/dev/null; then
    exec unshare --user --map-root-user --mount --propagation private -- "$0" "$@"
  fi
  echo "without_gloo: no private mount namespace here (not root, no user namespaces); skipped"
  exit 77
fi

empty=$(mktemp -d "${TMPDIR:-/tmp}/devcheck-no-gloo.XXXXXX")
logs=$(mktemp -d "${TMPDIR:-/tmp}/devcheck-no-gloo-logs.XXXXXX")
trap 'rm -rf "$logs"' EXIT
hidden=0
for dir in /usr/include /usr/local/include $(dirname "$torch_dir")/../../../include; do
  if [ -f "$dir/gloo/algorithm.h" ]; then
    mount --bind "$empty" "$dir/gloo"
    hidden=$((hidden + 1))
  fi
done
echo "without_gloo: hid $hidden gloo include folder(s)"

# Beside the lane's build folder, at its depth: ccache (paths relative to the
# checkout) then hits on every file the lane compiled.
scratch=$build-without-gloo
# The lane's own settings (compiler, ccache, generator), less what this
# check does not build.
generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt")
cmake -S "$source" -B "$scratch" -G "$generator" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTorch_DIR="$torch_dir" -DDEVCHECK_PYTHON="$python" -DDEVCHECK_BUILD_TESTS=OFF \
  -DDEVCHECK_BUILD_BENCH=OFF -DDEVCHECK_BUILD_EXAMPLES=OFF -DDEVCHECK_BUILD_LINT=OFF \
  >"$logs/configure.log" 2>&1 || { cat "$logs/configure.log"; exit 1; }
if ! grep -q "devcheck::distributed: no Gloo backend" "$logs/configure.log"; then
  echo "FAIL: the configure did not say it builds without Gloo:" >&2
  grep "devcheck::distributed" "$logs/configure.log" >&2 || true
  exit 1
fi
cmake --build "$scratch" --target devcheck_runtime >"$logs/build.log" 2>&1 ||
  { tail -n 60 "$logs/build.log"; exit 1; }
echo "without_gloo: built devcheck_runtime without Gloo"

status=0
out=$(timeout 120 "$scratch/devcheck" train --device cpu --nproc 2 --max-steps 1 --test-samples 10 \
  --out "$empty/never.pt" 2>&1) || status=$?
echo "$out" | tail -n 5
fail=0
[ "$status" -eq 2 ] || { echo "FAIL: exit status $status, expected 2" >&2; fail=1; }
for want in "needs c10d's Gloo backend" "this build of devcheck has none" \
  "ships no gloo headers" "libgloo-dev"; do
  grep -qF "$want" <<<"$out" || { echo "FAIL: the message lacks \"$want\"" >&2; fail=1; }
done
# Whichever rank reaches the check first reports it; the launcher then stops
# the other, so the message names one rank, not always rank 0.
grep -qE "rank [01] would train on cpu" <<<"$out" ||
  { echo "FAIL: the message names no rank (\"rank N would train on cpu\")" >&2; fail=1; }
[ ! -e "$empty/never.pt" ] || { echo "FAIL: a checkpoint was written" >&2; fail=1; }
rm -rf "$scratch"
[ "$fail" -eq 0 ] && echo "without_gloo: ok"
exit "$fail"
