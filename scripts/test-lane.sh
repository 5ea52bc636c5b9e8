#!/usr/bin/env bash
# `make test-torch2` and `make test-torch-latest`: the whole tree built against
# another LibTorch and the whole suite run with that lane's Python torch as the
# real client, in a Debian root made by debootstrap.
#
#   test-lane.sh LANE [--root-only]
#
# LANE is a folder of scripts/ holding lane.conf (the Debian suite and
# components, a per-run preparation script), packages.txt and setup-root.sh:
#   torch2         Debian 13's LibTorch 2.6 (CUDA 12.4 build), Python 3.13
#   torch-latest   Debian sid's LibTorch 2.14 (CPU), Python 3.14, GCC 16
#
# Each lane reads its settings with its own prefix (TORCH2, TORCH_LATEST):
#   DEVCHECK_<LANE>_ROOT    the root; made once, reused, rebuilt when the
#                           lane's lane.conf, packages.txt or setup-root.sh
#                           change (default /var/cache/devcheck/<lane>-root)
#   DEVCHECK_<LANE>_CCACHE  ccache folder shared by runs
#                           (default /var/cache/devcheck/<lane>-ccache)
#   DEVCHECK_<LANE>_MIRROR  Debian mirror (default: the host's, from apt's sources)
#   DEVCHECK_<LANE>_BUILD   build folder, relative to the checkout
#                           (default build-<lane>)
#   DEVCHECK_<LANE>_TARGETS build only these targets (default: all)
#   DEVCHECK_TREE_SITTER_PYTHON_DIR  devcheck lint's grammar on the host, mounted
#                           at the same path in the root (default
#                           /var/cache/devcheck/tree-sitter-python-0.23.6)
#   DEVCHECK_TREE_SITTER_DIR  the tree-sitter runtime's source, mounted likewise
#                           (default /var/cache/devcheck/tree-sitter-0.20.7)
#   DEVCHECK_LINT_CORPUS_DIR  devcheck lint's public corpus, mounted likewise
#                           (default /var/cache/devcheck/lint-corpus)
#   JOBS, CTEST_ARGS        as for `make test`; CMAKE_ARGS for the configure
#
# `--root-only` makes (or checks) the root and stops: CI runs it in the
# background while `make test` builds (downloads overlap the build).
#
# Builds into build-<lane>/ in the checkout. Everything it mounts lives in a
# private mount namespace, so it is gone when the script ends, however it ends;
# the trap also unmounts explicitly. Idempotent and non-interactive.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
lane=${1:-}
if [ -z "$lane" ] || [ ! -f "$here/$lane/lane.conf" ]; then
  echo "usage: test-lane.sh LANE [--root-only]; LANE is one of:" \
    "$(cd "$here" && dirname */lane.conf | tr '\n' ' ')" >&2
  exit 2
fi
shift
lane_dir=$here/$lane
# The lane's settings: DEVCHECK_TORCH2_ROOT, DEVCHECK_TORCH_LATEST_ROOT, ...
prefix=DEVCHECK_$(echo "$lane" | tr 'a-z-' 'A-Z_')
setting() { local name=${prefix}_$1; echo "${!name:-$2}"; }
root=$(setting ROOT "/var/cache/devcheck/$lane-root")
ccache_dir=$(setting CCACHE "/var/cache/devcheck/$lane-ccache")
jobs=${JOBS:-$(nproc)}
build=$(setting BUILD "build-$lane")
suite= components=main prepare=
# shellcheck source=torch2/lane.conf
. "$lane_dir/lane.conf"

log() { echo "test-$lane: $*"; }

if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=DEVCHECK_TREE_SITTER_PYTHON_DIR,DEVCHECK_TREE_SITTER_DIR,DEVCHECK_LINT_CORPUS_DIR,${prefix}_ROOT,${prefix}_CCACHE,${prefix}_MIRROR,${prefix}_BUILD,${prefix}_TARGETS,JOBS,CTEST_ARGS,CMAKE_ARGS "$0" "$lane" "$@"
fi

# Mounts made from here on are private to this process and its children.
if [ "${DEVCHECK_LANE_NS:-}" != 1 ]; then
  export DEVCHECK_LANE_NS=1
  exec unshare --mount --propagation private -- "$0" "$lane" "$@"
fi

# shellcheck source=lib/host-mirror.sh
. "$here/lib/host-mirror.sh"

mounted=()
child=
cleanup() {
  local i
  if [ -n "$child" ]; then
    kill -TERM -- "-$child" 2>/dev/null || true
    wait "$child" 2>/dev/null || true
    child=
  fi
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
    umount -l "${mounted[i]}" 2>/dev/null || true
  done
  mounted=()
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# Runs a command in a process group of its own and waits for it: a signal to
# this script then reaches the trap at once, and the trap stops the whole group.
run() {
  local status=0
  setsid "$@" &
  child=$!
  wait "$child" || status=$?
  child=
  return "$status"
}

# mount_once SOURCE TARGET [mount options...]: idempotent.
mount_once() {
  local source=$1 target=$2
  shift 2
  mkdir -p "$target"
  if ! mountpoint -q "$target"; then
    mount "$@" "$source" "$target"
    mounted+=("$target")
  fi
}

stamp_of() {
  cat "$lane_dir/lane.conf" "$lane_dir/packages.txt" "$lane_dir/setup-root.sh" | sha256sum | cut -d' ' -f1
}

packages() { sed -e 's/#.*//' "$lane_dir/packages.txt" | tr -s ' \t\n' ' '; }

make_log=$root.log
fail_making() {
  tail -n 30 "$make_log" >&2
  echo "test-$lane: making the root failed; the whole log is $make_log" >&2
  exit 1
}

make_root() {
  local new=$root.new mirror
  mirror=$(setting MIRROR "$(host_mirror | head -n 1 || true)")
  if [ -z "$mirror" ]; then
    echo "test-$lane: no Debian mirror found in the host's apt sources; set ${prefix}_MIRROR" >&2
    exit 2
  fi
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap; }
  fi
  rm -rf --one-file-system "$new"
  mkdir -p "$(dirname "$root")"
  log "debootstrap $suite into $new"
  : >"$make_log"
  run debootstrap --variant=minbase --components="$components" --include=ca-certificates \
    "$suite" "$new" "$mirror" >>"$make_log" 2>&1 || fail_making

  local suites=$suite
  if [ "$suite" != sid ]; then suites="$suite $suite-updates"; fi
  cat >"$new/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: $suites
Components: ${components//,/ }
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  rm -f "$new/etc/apt/sources.list"
  # A mirror that is a frozen snapshot has Release files past their date.
  printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' \
    >"$new/etc/apt/apt.conf.d/99devcheck"
  cp -L /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
  install -m 0755 "$lane_dir/setup-root.sh" "$new/tmp/setup-root.sh"
  mount_once /proc "$new/proc" -t proc
  mount_once /dev "$new/dev" --bind
  mount_once /dev/pts "$new/dev/pts" --bind
  log "installing packages in the root (log: $make_log)"
  # shellcheck disable=SC2046
  run chroot "$new" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    /tmp/setup-root.sh $(packages) >>"$make_log" 2>&1 || fail_making
  rm -f "$new/tmp/setup-root.sh"
  cleanup
  stamp_of >"$new/.devcheck-lane-stamp"
  rm -rf --one-file-system "$root"
  mv "$new" "$root"
}

start=$SECONDS
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
current_root() { [ "$(cat "$root/.devcheck-lane-stamp" 2>/dev/null)" = "$(stamp_of)" ]; }
# A current root is shared (runs overlap); only a rebuild needs it alone.
flock -s 9
if ! current_root; then
  flock -x 9
  if ! current_root; then
    make_root
    log "root made in $((SECONDS - start)) s: $root"
  fi
  flock -s 9
else
  log "reusing $root"
fi
if [ "${1:-}" = --root-only ]; then exit 0; fi

# The root bound onto itself: inside the chroot "/" is then a mount point, so
# tests can make mount namespaces of their own (tests/install/run.sh).
mount_once "$root" "$root" --bind
mount_once /proc "$root/proc" -t proc
mount_once /dev "$root/dev" --bind
mount_once /dev/pts "$root/dev/pts" --bind
mkdir -p "$ccache_dir"
mount_once "$src" "$root/src" --bind
mount_once "$ccache_dir" "$root/ccache" --bind
# devcheck lint's grammar (scripts/install-deps.sh fetched it into the host's
# cache): at the same path in the root, where the build looks by default.
grammar=${DEVCHECK_TREE_SITTER_PYTHON_DIR:-/var/cache/devcheck/tree-sitter-python-0.23.6}
if [ -d "$grammar" ]; then mount_once "$grammar" "$root$grammar" --bind; fi
# The tree-sitter runtime's source (install-deps.sh), likewise: both lanes
# compile the same runtime.
ts_runtime=${DEVCHECK_TREE_SITTER_DIR:-/var/cache/devcheck/tree-sitter-0.20.7}
if [ -d "$ts_runtime" ]; then mount_once "$ts_runtime" "$root$ts_runtime" --bind; fi
# devcheck lint's public corpus (scripts/fetch-lint-corpus.sh), at the same path.
corpus=${DEVCHECK_LINT_CORPUS_DIR:-/var/cache/devcheck/lint-corpus}
if [ -d "$corpus" ]; then mount_once "$corpus" "$root$corpus" --bind; fi
# The SARIF 2.1.0 schema (install-deps.sh), for lint.SarifValidatesAgainstTheSchema.
sarif=/var/cache/devcheck/sarif-2.1.0
if [ -d "$sarif" ]; then mount_once "$sarif" "$root$sarif" --bind; fi

in_root=(chroot "$root" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
  HOME=/root LANG=C.UTF-8 CCACHE_DIR=/ccache CCACHE_BASEDIR=/src CCACHE_NOHASHDIR=1
  CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime)

# A lane's own preparation on every run (torch 2.6: a cuDNN stand-in).
if [ -n "$prepare" ]; then run "${in_root[@]}" bash "/src/scripts/$lane/$prepare"; fi

torch_dir=$("${in_root[@]}" bash -c 'dirname "$(ls /usr/lib/*/cmake/Torch/TorchConfig.cmake /usr/share/cmake/Torch/TorchConfig.cmake /usr/lib/cmake/Torch/TorchConfig.cmake 2>/dev/null | head -n 1)"')
log "Torch_DIR=$torch_dir"

root_s=$((SECONDS - start))
t=$SECONDS
# Only what this lane's tests need: devcheck lint is torch-free (its build
# and its suite run once, in the default lane), and no test runs the
# benchmarks. CMAKE_ARGS come last and may turn either back on.
run "${in_root[@]}" cmake -S /src -B /src/$build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DTorch_DIR="$torch_dir" -DDEVCHECK_PYTHON=/usr/bin/python3 \
  -DDEVCHECK_BUILD_LINT=OFF -DDEVCHECK_BUILD_BENCH=OFF ${CMAKE_ARGS:-}
targets=()
for target in $(setting TARGETS ""); do targets+=(--target "$target"); done
run "${in_root[@]}" cmake --build /src/$build -j "$jobs" "${targets[@]}"
build_s=$((SECONDS - t))

t=$SECONDS
status=0
# shellcheck disable=SC2086
run "${in_root[@]}" bash -o pipefail -c \
  "cd /src/$build && ctest --output-on-failure -j $jobs ${CTEST_ARGS:-} 2>&1 | tee ctest.log" ||
  status=$?
log "root ${root_s} s, build ${build_s} s, tests $((SECONDS - t)) s"
# The last line is ctest's summary, as for `make test`.
grep -E '^[0-9]+% tests passed' "$src/$build/ctest.log" | tail -n 1 || true
exit $status
