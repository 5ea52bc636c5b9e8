#!/usr/bin/env bash
# The one prepared script for a CUDA machine with torch 2.x (Python 3.12) and
# no network. Usage: scripts/gpu-check.sh OUT_DIR
#   - configures devcheck against that torch's bundled LibTorch,
#   - builds, runs the whole test suite with CUDA tests enabled,
#   - runs every scripts/gpu/*.sh (module checks and GPU benchmarks),
#   - writes logs and results under OUT_DIR.
# Dependencies the machine lacks come from build-gpu-deps/ (scripts/gpu-bundle.sh;
# it is ignored by git, so name it in the device tool's `carry`).
#
# Last tried 2026-12-04 on the lent H200 (torch 2.11.0+cu130 wheel, Python
# 3.12): configure passes once DevcheckDeps.cmake has fmt::fmt-header-only,
# and fmt::join needs <fmt/ranges.h> with the fmt that torch 2.11 bundles
# (both fixed since). Not yet ported, so the build still fails in
# src/distributed:
#   - c10d::Reducer's constructor takes 12 arguments in 2.11 (2.6: 10;
#     skip_all_reduce_unused_params and use_python_reducer come before
#     bucket_size_limits): src/detail/compat.h needs a 2.11 branch;
#   - the wheel ships no gloo headers (gloo/algorithm.h), so
#     ProcessGroupGloo.hpp cannot be included: build devcheck::distributed
#     without gloo there, or bundle gloo's headers.
# With tests, benches, examples and lint switched off, nothing else failed to
# compile in that run (ninja -k 0); the tests and scripts/gpu/*.sh
# never ran because the build stopped there.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${1:?usage: scripts/gpu-check.sh OUT_DIR}
mkdir -p "$out"
exec > >(tee "$out/gpu-check.log") 2>&1

py=${PYTHON:-python3}
echo "== machine"; nvidia-smi -L || true
"$py" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "devices", torch.cuda.device_count())'
torch_dir=$("$py" -c 'import torch.utils; print(torch.utils.cmake_prefix_path)')/Torch
jobs=$(nproc)
build=build-gpu
gen=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
deps=()
[ -d build-gpu-deps ] && deps=(-DDEVCHECK_DEPS_DIR="$PWD/build-gpu-deps")

echo "== configure against $torch_dir"
cmake -S . -B "$build" -G "$gen" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTorch_DIR="$torch_dir" \
  -DDEVCHECK_PYTHON="$(command -v "$py")" "${deps[@]}" 2>&1 | tail -n 20
status=${PIPESTATUS[0]}
echo "== build"
cmake --build "$build" -j "$jobs" 2>&1 | tail -n 40
build_status=${PIPESTATUS[0]}
echo "build: exit $build_status" | tee "$out/build-status.txt"
if [ "$build_status" -ne 0 ]; then exit 1; fi

echo "== tests (CUDA tests included)"
(cd "$build" && ctest -j "$jobs" --output-on-failure --output-junit "$PWD/../$out/ctest.xml") \
  2>&1 | tail -n 60
test_status=${PIPESTATUS[0]}

for s in scripts/gpu/*.sh; do
  [ -f "$s" ] || continue
  name=$(basename "$s" .sh)
  echo "== $name"
  mkdir -p "$out/$name"
  timeout 300 bash "$s" "$build" "$out/$name" || { echo "$name: FAILED"; test_status=1; }
done
echo "gpu-check: tests exit $test_status" | tee "$out/summary.txt"
exit "$test_status"
