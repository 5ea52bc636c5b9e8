#!/usr/bin/env bash
# Runs every benchmark program; each prints ratios against its own anchor.
set -uo pipefail
build=${1:-build}
status=0
# The machine every figure below depends on: CPU model and vector ISA (oneDNN
# and OpenBLAS pick kernels by it), CPU count, kernel, the BLAS in use.
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
isa=$(grep -m1 '^flags' /proc/cpuinfo | grep -o -w 'avx2\|avx512f\|amx_tile' | paste -sd' ')
blas=$(readlink -f /usr/lib/x86_64-linux-gnu/libblas.so.3 2>/dev/null || echo unknown)
echo "machine: ${model:-unknown CPU}, $(getconf _NPROCESSORS_ONLN) CPUs, ISA: ${isa:-none of avx2/avx512f}," \
  "Linux $(uname -r), BLAS $blas, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for b in "$build"/bench/*_bench; do
  [ -x "$b" ] || continue
  echo "== $(basename "$b")"
  "$b" --benchmark_min_time=0.2 || status=1
done
for s in bench/*_compare.sh; do
  [ -f "$s" ] || continue
  echo "== $(basename "$s")"
  bash "$s" "$build" || status=1
done
exit $status
