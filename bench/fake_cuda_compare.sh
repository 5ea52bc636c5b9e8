#!/usr/bin/env bash
# Fake CUDA against the CPU, as a Python user runs it (bench/fake_cuda_bench.py),
# with Debian's torch and this build's fake device library.
#   bench/fake_cuda_compare.sh [BUILD]
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
exec /usr/bin/python3 "$here/fake_cuda_bench.py" --lib "$build/src/libdevcheck_fake_device.so" \
  --rounds "${BENCH_ROUNDS:-7}"
