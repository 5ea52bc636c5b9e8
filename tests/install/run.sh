#!/usr/bin/env bash
# An installed devcheck does everything the build tree does: installs BUILD
# into a scratch prefix outside both trees, checks that no installed program
# or library looks for anything in them, then runs every subcommand from the
# prefix (subcommands.sh) twice: as installed, and with the build and source
# trees hidden (empty folders mounted over them in a private mount namespace),
# so a path into either would fail.
#
#   run.sh BUILD SOURCE PYTHON TORCH_DIR
#
# Exit 0 passed, 1 failed, 77 skipped (no mount namespace: not root and no
# user namespaces; ctest counts it as skipped, never as passed).
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) python=$3 torch_dir=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/devcheck-install.XXXXXX")
trap 'rm -rf "$work"' EXIT
case "$work" in
  "$build"/* | "$source"/*) echo "run.sh: scratch folder $work is inside a tree it hides" >&2; exit 1 ;;
esac
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >"$work/install.log" ||
  { cat "$work/install.log"; exit 1; }

# What a user runs, all installed.
for f in bin/devcheck libexec/devcheck/devcheck-torch share/devcheck/python/devcheck_fake.py \
  share/devcheck/python/devcheck_fake_cuda/__init__.py share/devcheck/python/site/sitecustomize.py \
  share/doc/devcheck/README.md share/man/man1/devcheck.1.gz; do
  [ -e "$prefix/$f" ] || { echo "FAIL: $f is not installed" >&2; exit 1; }
done
for lib in format core checkpoint sanitizer train distributed launch fake_device preload; do
  ls "$prefix"/lib*/libdevcheck_"$lib".so* >/dev/null 2>&1 ||
    { echo "FAIL: libdevcheck_$lib.so is not installed" >&2; exit 1; }
done

# No installed ELF file has a RUNPATH or RPATH into the build or source tree,
# and every one that names $ORIGIN resolves all its libraries.
status=0
while IFS= read -r -d '' f; do
  head -c 4 "$f" | grep -q "ELF" || continue
  runpath=$(readelf -d "$f" | sed -n 's/.*R\(UN\)\{0,1\}PATH.*\[\(.*\)\]/\2/p')
  case ":$runpath:" in
    *"$build"* | *"$source"*) echo "FAIL: $f has RUNPATH $runpath into the build or source tree" >&2; status=1 ;;
  esac
  if ldd "$f" 2>&1 | grep -q "not found"; then
    echo "FAIL: $f: $(ldd "$f" | grep 'not found' | tr -s ' \t\n' ' ')" >&2
    status=1
  fi
done < <(find "$prefix" -type f -print0)
[ "$status" -eq 0 ] || exit 1
echo "ok: installed files' RUNPATHs stay in the prefix and resolve"

# The planted program, built against the installed package.
cmake -S "$source/tests/install" -B "$work/planted-build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$prefix" -DTorch_DIR="$torch_dir" \
  -DPLANTED_SOURCE="$source/tests/sanitizer/programs/planted.cc" >"$work/planted.log" 2>&1 &&
  cmake --build "$work/planted-build" >>"$work/planted.log" 2>&1 ||
  { cat "$work/planted.log"; exit 1; }
cp "$source/tests/install/subcommands.sh" "$work/"
# Whether this build has devcheck lint (the extra torch lanes build without).
DEVCHECK_EXPECT_LINT=1
if grep -q "^DEVCHECK_BUILD_LINT:BOOL=OFF" "$build/CMakeCache.txt"; then DEVCHECK_EXPECT_LINT=0; fi
export DEVCHECK_EXPECT_LINT

echo "== installed in $prefix"
mkdir -p "$work/a"
bash "$work/subcommands.sh" "$prefix/bin/devcheck" "$work/planted-build/planted" "$work/a" "$python"

echo "== the same with $build and $source hidden"
# The source tree first; the build tree too when it is not inside it.
hide="mount -t tmpfs -o size=1m,mode=0555 devcheck-hidden '$source'"
case "$build" in
  "$source"/*) ;;
  *) hide+=" && mount -t tmpfs -o size=1m,mode=0555 devcheck-hidden '$build'" ;;
esac
hide+=" && [ ! -e '$build/CMakeCache.txt' ] && [ ! -e '$source/CMakeLists.txt' ]"
ns=(unshare --mount --propagation private)
if [ "$(id -u)" -ne 0 ]; then ns=(unshare --mount --map-root-user --propagation private); fi
if ! "${ns[@]}" true 2>/dev/null; then
  echo "SKIPPED: no private mount namespace here (unshare failed); the hidden-tree half did not run" >&2
  exit 77
fi
mkdir -p "$work/b"
"${ns[@]}" bash -c "{ $hide; } || { echo 'FAIL: could not hide the build and source trees' >&2; exit 1; }
  exec bash '$work/subcommands.sh' \
  '$prefix/bin/devcheck' '$work/planted-build/planted' '$work/b' '$python'"
