#!/usr/bin/env bash
# The sanitizer against Python device checkers on the same op, in one process:
#   bash bench/sanitizer_compare.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
lib=$(ls "$build"/src/libdevcheck_sanitizer.so* 2>/dev/null | head -1)
if [ -z "$lib" ]; then
  echo "sanitizer_compare: no libdevcheck_sanitizer.so in $build/src; build first" >&2
  exit 2
fi
exec /usr/bin/python3 "$here/sanitizer_compare.py" "$lib"
