#!/usr/bin/env bash
# One epoch of the Fashion-MNIST classifier, side by side on this machine's LibTorch:
# `devcheck train` (C++, prefetcher) against the same model and loop in Python
# PyTorch (Debian's python3-torch, bench/train_compare.py), same threads.
# Targets: devcheck >= 1.3x the Python anchor's samples/s; test accuracy
# >= 0.88 after 1 epoch (and >= 0.90 after 3: BENCH_EPOCHS=3, slow here).
#
#   bash bench/train_compare.sh BUILD_DIR
#   BENCH_THREADS=2 BENCH_EPOCHS=3 bash bench/train_compare.sh build
set -euo pipefail
build=${1:-build}
threads=${BENCH_THREADS:-1}
epochs=${BENCH_EPOCHS:-1}
python=${DEVCHECK_PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS=$threads MKL_NUM_THREADS=$threads

echo "train_compare: $epochs epoch(s), $threads thread(s), batch 32, cpu"
"$build/devcheck" train --device cpu --epochs "$epochs" --threads "$threads" --json \
  --no-sanitize >"$work/cpp.json"
# The anchor: the Python program as a user runs it. devcheck train also keeps
# freed memory in the process (keep_freed_host_memory), which is much of its
# lead; the second Python run gets the same glibc settings, to show the rest.
"$python" "$here/train_compare.py" --epochs "$epochs" --threads "$threads" >"$work/py.json"
MALLOC_MMAP_THRESHOLD_=1073741824 MALLOC_TRIM_THRESHOLD_=1073741824 MALLOC_TOP_PAD_=268435456 \
  "$python" "$here/train_compare.py" --epochs "$epochs" --threads "$threads" >"$work/py_tuned.json"
if [ "${BENCH_SANITIZED:-0}" = 1 ]; then
  "$build/devcheck" train --device cpu --epochs 1 --threads "$threads" --json >"$work/san.json"
fi

"$python" - "$work" "$epochs" <<'PY'
import json, os, sys
work, epochs = sys.argv[1], int(sys.argv[2])
cpp = json.load(open(f"{work}/cpp.json"))
py = json.load(open(f"{work}/py.json"))
c = cpp["epochs"][0]["samples_per_second"]
p = py["epochs"][0]["samples_per_second"]
ratio = c / p
print(f"devcheck train : {c:9.0f} samples/s (epoch 1), test accuracy {cpp['test_accuracy']:.4f}")
print(f"python (torch {py['torch']}): {p:9.0f} samples/s (epoch 1), test accuracy {py['test_accuracy']:.4f}")
ok = ratio >= 1.3
print(f"samples/s ratio devcheck / python = {ratio:.2f} (target >= 1.30): {'PASS' if ok else 'FAIL'}")
target = 0.88 if epochs == 1 else 0.90
acc_ok = cpp["test_accuracy"] >= target
print(f"test accuracy after {epochs} epoch(s) = {cpp['test_accuracy']:.4f} (target >= {target:.2f}): "
      f"{'PASS' if acc_ok else 'FAIL'}")
tuned = json.load(open(f"{work}/py_tuned.json"))["epochs"][0]["samples_per_second"]
print(f"python with devcheck's allocator settings: {tuned:9.0f} samples/s "
      f"(devcheck / it = {c / tuned:.2f}, for information)")
if os.path.exists(f"{work}/san.json"):
    s = json.load(open(f"{work}/san.json"))["epochs"][0]["samples_per_second"]
    print(f"devcheck train under the sanitizer: {s:.0f} samples/s ({s / p:.2f}x python)")
sys.exit(0 if ok and acc_ok else 1)
PY
