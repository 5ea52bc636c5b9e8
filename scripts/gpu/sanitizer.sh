#!/usr/bin/env bash
# The device sanitizer on a real GPU (run by scripts/gpu-check.sh):
#   bash scripts/gpu/sanitizer.sh BUILD_DIR OUT_DIR
# A planted cpu/cuda mismatch and a per-sample copy loop must be reported, in
# a C++ program and in python3 with the torch this build was made against;
# then the overhead is measured. Everything it prints also goes to OUT_DIR.
set -uo pipefail
build=$(cd "${1:?usage: sanitizer.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: sanitizer.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
python=${PYTHON:-python3}
devcheck="$build/devcheck"
planted="$build/tests/devcheck_san_planted"
status=0
log="$out/sanitizer.log"
: >"$log"

say() { echo "$@" | tee -a "$log"; }
expect() {  # expect NAME FILE PATTERN
  if grep -q -- "$3" "$2"; then say "PASS $1"; else say "FAIL $1 (no '$3' in $2)"; status=1; fi
}

say "== C++: planted cpu/cuda mismatch"
PLANTED_DEVICE=cuda "$devcheck" run --mode fail --json "$out/cpp_mismatch.json" -- \
  "$planted" mismatch >"$out/cpp_mismatch.txt" 2>&1
expect "cpp mismatch reported" "$out/cpp_mismatch.txt" "device mismatch in aten::add at planted.cc:"
expect "cpp mismatch names cuda" "$out/cpp_mismatch.txt" "expected every tensor on cuda:0"
expect "cpp stray origin" "$out/cpp_mismatch.txt" "made by aten::ones at planted.cc:"

say "== C++: per-sample copy loop to cuda"
PLANTED_DEVICE=cuda "$devcheck" run --trace "$out/cpp_copies.trace.json" -- \
  "$planted" copies >"$out/cpp_copies.txt" 2>&1
expect "cpp copies finding" "$out/cpp_copies.txt" "many small copies: 200 cpu -> cuda:0 copies"

say "== Python: planted mismatch and copy loop on cuda"
cat >"$out/planted_cuda.py" <<'PY'
import torch
x = torch.ones(3, device="cuda")
y = torch.tensor([1.0, 2.0, 3.0])  # stray: no device=
z = x + y
PY
cat >"$out/copies_cuda.py" <<'PY'
import torch
data = torch.rand(300, 3)
samples = [data[i].to("cuda") for i in range(300)]
total = sum(s.sum().item() for s in samples[:10])
PY
"$devcheck" run -- "$python" "$out/planted_cuda.py" >"$out/py_mismatch.txt" 2>&1
expect "python mismatch op line" "$out/py_mismatch.txt" "planted_cuda.py:4"
expect "python stray line" "$out/py_mismatch.txt" "planted_cuda.py:3"
"$devcheck" run -- "$python" "$out/copies_cuda.py" >"$out/py_copies.txt" 2>&1
expect "python copies finding" "$out/py_copies.txt" "copies_cuda.py:3"
expect "python syncs counted" "$out/py_copies.txt" "aten::item"

say "== overhead"
if [ -x "$build/bench/sanitizer_bench" ]; then
  "$build/bench/sanitizer_bench" --benchmark_min_time=0.5 2>&1 | tee -a "$log"
else
  say "(no $build/bench/sanitizer_bench: configure with -DDEVCHECK_BUILD_BENCH=ON)"
fi
lib=$(ls "$build"/src/libdevcheck_sanitizer.so* | head -1)
"$python" "$(dirname "$0")/../../bench/sanitizer_compare.py" "$lib" 2>&1 | tee -a "$log"
exit $status
