#!/usr/bin/env bash
# `make test-deb`: the Debian package `make deb` wrote, checked as a user of
# a fresh Debian 12 machine meets it.
#
#   test-deb.sh DEB PLANTED [--root-only]
#     DEB      build/devcheck_<version>_amd64.deb
#     PLANTED  a plain LibTorch program with planted device bugs
#              (build/tests/devcheck_san_planted)
#
# 1. dpkg-deb: the file list holds what a user runs and nothing from the
#    build, and Depends names the LibTorch and C++ runtime packages.
# 2. lintian: no errors.
# 3. A fresh Debian 12 root (debootstrap minbase, made once and kept; each run
#    works on a copy): `apt-get install ./devcheck_*.deb` brings in what
#    devcheck needs; `devcheck doctor` and `devcheck run` work before anything
#    else is installed; then, with python3-torch, every subcommand
#    (tests/install/subcommands.sh); `apt-get remove` leaves none of the
#    package's files or folders behind.
#
#   DEVCHECK_DEB_ROOT    the kept root (default /var/cache/devcheck/deb-root)
#   DEVCHECK_DEB_MIRROR  Debian mirror (default: the host's, from apt's sources)
#
# `--root-only` makes (or checks) the kept root and stops: CI runs it in the
# background while `make test` builds. Needs root; mounts live in a private
# mount namespace and are gone when the script ends.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
# shellcheck source=lib/host-mirror.sh
. "$here/lib/host-mirror.sh"
root=${DEVCHECK_DEB_ROOT:-/var/cache/devcheck/deb-root}
suite=bookworm
log() { echo "test-deb: $*"; }

root_only=0
args=()
for a in "$@"; do
  if [ "$a" = --root-only ]; then root_only=1; else args+=("$(realpath -m "$a")"); fi
done
if [ "$root_only" = 0 ] && [ ${#args[@]} -ne 2 ]; then
  echo "usage: test-deb.sh DEB PLANTED | test-deb.sh --root-only" >&2
  exit 2
fi
if [ "$(id -u)" -ne 0 ]; then
  exec sudo --preserve-env=DEVCHECK_DEB_ROOT,DEVCHECK_DEB_MIRROR "$0" "$@"
fi
if [ "${DEVCHECK_DEB_NS:-}" != 1 ]; then
  export DEVCHECK_DEB_NS=1
  exec unshare --mount --propagation private -- "$0" "$@"
fi

stamp() { echo "$suite minbase, sources main and updates (1)"; }
make_root() {
  local new=$root.new mirror
  mirror=${DEVCHECK_DEB_MIRROR:-$(host_mirror | head -n 1 || true)}
  [ -n "$mirror" ] || { echo "test-deb: no Debian mirror in the host's apt sources; set DEVCHECK_DEB_MIRROR" >&2; exit 2; }
  command -v debootstrap >/dev/null || { echo "test-deb: debootstrap is missing (make deps)" >&2; exit 2; }
  rm -rf --one-file-system "$new"
  log "debootstrap $suite into $new"
  debootstrap --variant=minbase "$suite" "$new" "$mirror" >"$root.log" 2>&1 ||
    { tail -n 30 "$root.log" >&2; exit 1; }
  cat >"$new/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
SOURCES
  printf 'Acquire::Check-Valid-Until "false";\nAcquire::Check-Date "false";\n' \
    >"$new/etc/apt/apt.conf.d/99devcheck"
  stamp >"$new/.devcheck-deb-stamp"
  rm -rf --one-file-system "$root"
  mv "$new" "$root"
}

mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock -x 9
if [ "$(cat "$root/.devcheck-deb-stamp" 2>/dev/null)" != "$(stamp)" ]; then
  make_root
else
  log "reusing $root"
fi
[ "$root_only" = 1 ] && exit 0

deb=${args[0]} planted=${args[1]}
[ -f "$deb" ] || { echo "test-deb: $deb does not exist (make deb)" >&2; exit 2; }
[ -x "$planted" ] || { echo "test-deb: $planted does not exist (make test builds it)" >&2; exit 2; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# 1. The package's contents and dependencies.
files=$(dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's#^\./#/#')
for f in /usr/bin/devcheck /usr/libexec/devcheck/devcheck-torch /usr/share/man/man1/devcheck.1.gz \
  /usr/share/doc/devcheck/copyright /usr/share/doc/devcheck/changelog.gz \
  /usr/share/doc/devcheck/README.md /usr/share/devcheck/python/devcheck_fake.py \
  /usr/share/devcheck/python/devcheck_fake_cuda/__init__.py /usr/share/devcheck/python/site/sitecustomize.py \
  /usr/include/devcheck/devcheck.h /usr/lib/cmake/devcheck/devcheckConfig.cmake; do
  grep -qx "$f" <<<"$files" || fail "the package lacks $f"
done
for lib in format core checkpoint sanitizer train distributed fake_device preload; do
  grep -q "/usr/lib/libdevcheck_$lib\.so" <<<"$files" || fail "the package lacks libdevcheck_$lib.so"
done
if grep -Eq "gtest|gmock|benchmark|_test|/tests?/|fuzz|\.o$" <<<"$files"; then
  fail "the package holds test or build files: $(grep -E 'gtest|gmock|benchmark|_test|/tests?/|fuzz|\.o$' <<<"$files" | head -n 5 | tr '\n' ' ')"
fi
depends=$(dpkg-deb -f "$deb" Depends)
depends_names=$(tr ',|' '\n\n' <<<"$depends" | awk '{ print $1 }')
for d in libc6 libstdc++6 libtorch1.13 libfmt9; do
  grep -qxF "$d" <<<"$depends_names" || fail "Depends lacks $d: $depends"
done
log "files and Depends ok ($(wc -l <<<"$files") entries; Depends: $depends)"

# 2. lintian, errors fail.
lintian_out=$(lintian --fail-on error --no-tag-display-limit "$deb" 2>&1) ||
  { echo "$lintian_out" >&2; fail "lintian reports errors"; }
log "lintian: no errors ($(grep -c '^W:' <<<"$lintian_out" || true) warnings)"

# 3. A fresh Debian 12: a copy of the kept root, its downloads kept across runs.
work=$(mktemp -d /var/tmp/devcheck-deb.XXXXXX)
cleanup() {
  local m
  for m in $(awk -v w="$work" '$2 ~ "^"w { print $2 }' /proc/mounts | sort -r); do umount -l "$m" || true; done
  rm -rf --one-file-system "$work"
}
trap cleanup EXIT
fresh=$work/root
cp -a "$root" "$fresh"
mkdir -p "$root.apt-archives/partial"
mount --bind "$root.apt-archives" "$fresh/var/cache/apt/archives"
mount -t proc proc "$fresh/proc"
mount --bind /dev "$fresh/dev"
cp -L /etc/resolv.conf "$fresh/etc/resolv.conf" 2>/dev/null || true
in_root() { chroot "$fresh" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "$@"; }
cp "$deb" "$fresh/tmp/"
cp "$planted" "$fresh/tmp/planted"
cp "$src/tests/install/subcommands.sh" "$fresh/tmp/"
before=$(in_root dpkg-query -W -f '${Package}\n' | sort)
in_root apt-get update -qq
in_root apt-get install -y -qq "/tmp/$(basename "$deb")" >"$work/install.log" 2>&1 ||
  { tail -n 30 "$work/install.log" >&2; fail "apt-get install ./$(basename "$deb") failed"; }
log "installed with $(comm -13 <(echo "$before") <(in_root dpkg-query -W -f '${Package}\n' | sort) | wc -l) packages"
in_root devcheck doctor >"$work/doctor.log" 2>&1 || { cat "$work/doctor.log" >&2; fail "devcheck doctor"; }
grep -q "LibTorch" "$work/doctor.log" || { cat "$work/doctor.log" >&2; fail "devcheck doctor says nothing of LibTorch"; }
status=0
in_root env PLANTED_DEVICE=meta devcheck run --mode fail -- /tmp/planted mismatch >"$work/run.log" 2>&1 || status=$?
[ "$status" = 1 ] && grep -q "device mismatch in aten::add" "$work/run.log" ||
  { cat "$work/run.log" >&2; fail "devcheck run found no mismatch (exit $status)"; }
log "doctor and run work with only the package's dependencies"

in_root apt-get install -y -qq --no-install-recommends python3-torch >"$work/python.log" 2>&1 ||
  { tail -n 30 "$work/python.log" >&2; fail "apt-get install python3-torch failed"; }
mkdir -p "$fresh/tmp/work"
in_root bash /tmp/subcommands.sh /usr/bin/devcheck /tmp/planted /tmp/work /usr/bin/python3

in_root apt-get remove -y -qq devcheck >"$work/remove.log" 2>&1 ||
  { cat "$work/remove.log" >&2; fail "apt-get remove devcheck failed"; }
left=()
while IFS= read -r f; do
  [ -n "$f" ] && [ "$f" != / ] || continue
  case "$f" in
    */devcheck | */devcheck/* | */libdevcheck* | */devcheck.1.gz) [ -e "$fresh$f" ] && left+=("$f") ;;
  esac
done <<<"$files"
[ ${#left[@]} -eq 0 ] || fail "apt-get remove left ${left[*]}"
log "apt-get remove leaves none of the package's files"
echo "test-deb: passed"
