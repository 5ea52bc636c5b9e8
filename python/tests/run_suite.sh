#!/usr/bin/env bash
# ctest's python.PackageSuite: the Python package as a user gets it. A
# --system-site-packages venv of PYTHON (its torch is the real one), then
# `pip install --no-build-isolation --no-deps` of this checkout (the
# extension built by the project's CMake), then the package's
# pytest suite, run from WORK so the installed package is the one imported.
# WORK is BUILD/python-package; the extension is built in BUILD-pip.
#
#   run_suite.sh PYTHON WORK [pytest arguments...]
set -euo pipefail
python=$1
work=$2
shift 2
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
rm -rf "$work/venv"
"$python" -m venv --system-site-packages "$work/venv"
start=$SECONDS
# The package's CMake build folder sits beside the main build folder (build/
# -> build-pip/), at the same depth below the checkout: ccache (whose
# CCACHE_BASEDIR paths are relative to the build folder) then hits on every
# library the main build compiled, and a fresh build folder hits on the rest.
pip_build=$(cd "$work/.." && pwd)-pip
DEVCHECK_PIP_BUILD_DIR="$pip_build" PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
  "$work/venv/bin/python" -m pip install --no-build-isolation --no-deps -q "$src" 2>&1 |
  grep -v "Running pip as the 'root' user" || true
"$work/venv/bin/python" -c "import devcheck, sys; print('run_suite: devcheck for torch', devcheck.TORCH_VERSION, 'installed in', $SECONDS - $start, 's')" ||
  { echo "run_suite: the package did not install or import" >&2; exit 1; }
# The build's devcheck CLI (beside python-package/): test_cli.py runs
# `devcheck run -- python3 script.py` with this venv's Python through it.
if [ -z "${DEVCHECK_CLI:-}" ] && [ -x "$work/../devcheck" ]; then
  DEVCHECK_CLI=$(cd "$work/.." && pwd)/devcheck
  export DEVCHECK_CLI
fi
cd "$work"
exec "$work/venv/bin/python" -m pytest -p no:cacheprovider -q "$src/python/tests" "$@"
