#!/usr/bin/env bash
# Every devcheck subcommand, run from an installed devcheck as a user runs it:
# by the install test (a scratch prefix, then the same with the build and
# source trees hidden) and by the Debian package test (the .deb installed in
# a fresh Debian 12 root). Reads nothing from the source or build tree.
#
#   subcommands.sh DEVCHECK PLANTED WORK [PYTHON]
#     DEVCHECK  the installed bin/devcheck
#     PLANTED   a plain LibTorch program with planted device bugs
#               (tests/sanitizer/programs/planted.cc)
#     WORK      an empty scratch folder
#     PYTHON    a python3 with torch; without one the Python checks are skipped
#               (the package test installs torch only for them)
#
# Prints one line per check and exits 1 on the first failure, with its output.
set -euo pipefail
devcheck=$1 planted=$2 work=$3 python=${4:-}
prefix=$(cd "$(dirname "$devcheck")/.." && pwd)
# Nothing may reach the installed devcheck through the environment.
unset LD_LIBRARY_PATH LD_PRELOAD DEVCHECK_TORCH_HELPER DEVCHECK_PRELOAD DEVCHECK_DEVICE \
  DEVCHECK_SANITIZE DEVCHECK_SANITIZE_MODE PYTHONPATH || true
export OMP_NUM_THREADS=1

fake_library=$(find "$prefix" -name 'libdevcheck_fake_device.so*' -type f | head -n 1)
fake_python=$prefix/share/devcheck/python
out=$work/out.txt
passed=0

fail() {
  echo "FAIL: $*" >&2
  echo "---- output ----" >&2
  cat "$out" >&2
  exit 1
}
# expect CODE NAME COMMAND...: runs COMMAND (stdout and stderr to $out) and
# checks its exit status.
expect() {
  local want=$1 name=$2 status=0
  shift 2
  "$@" >"$out" 2>&1 </dev/null || status=$?
  [ "$status" -eq "$want" ] || fail "$name: exit status $status, expected $want ($*)"
  passed=$((passed + 1))
  echo "ok: $name"
}
# has TEXT NAME: the last command's output contains TEXT.
has() {
  grep -qF -- "$1" "$out" || fail "$2: output lacks '$1'"
}

[ -n "$fake_library" ] || { echo "FAIL: no libdevcheck_fake_device.so under $prefix" >&2; exit 1; }
for f in devcheck_fake.py devcheck_fake_cuda/__init__.py site/sitecustomize.py; do
  [ -f "$fake_python/$f" ] || { echo "FAIL: no $fake_python/$f" >&2; exit 1; }
done

expect 0 "--version" "$devcheck" --version
expect 0 "--help names the classifier" "$devcheck" --help
has "Fashion-MNIST classifier" "--help"
grep -q "seed classifier" "$out" && fail "--help: still says 'seed classifier'"

expect 0 "doctor --json" "$devcheck" doctor --json
has '"torch_version"' "doctor --json"
has '"auto"' "doctor --json"

expect 0 "train --max-steps" "$devcheck" train --max-steps 20 --test-samples 200 \
  --out "$work/classifier.pt"
has "test accuracy" "train"
[ -s "$work/classifier.pt" ] || fail "train wrote no checkpoint"
expect 0 "train on the fake device" "$devcheck" train --device fake --max-steps 5 \
  --test-samples 100 --out "$work/fake.pt"
expect 0 "doctor with DEVCHECK_FAKE_CUDA" env DEVCHECK_FAKE_CUDA=2 "$devcheck" doctor
has "fake: 2 devcheck fake CUDA devices" "doctor (fake CUDA)"
expect 0 "train on fake CUDA" env DEVCHECK_FAKE_CUDA=2 "$devcheck" train --device cuda \
  --max-steps 5 --test-samples 100
has "device: cuda:0" "train (fake CUDA)"
expect 0 "train --nproc 2" "$devcheck" train --nproc 2 --max-steps 10 --test-samples 100 \
  --out "$work/ddp.pt"
has "over 2 processes" "train --nproc 2"

expect 0 "inspect" "$devcheck" inspect "$work/classifier.pt"
has "cpu" "inspect"
expect 0 "inspect --json" "$devcheck" inspect --json "$work/fake.pt"
has '"tensors"' "inspect --json"
expect 0 "remap --to cpu" "$devcheck" remap "$work/fake.pt" -o "$work/remapped.pt" --to cpu
expect 2 "remap refuses to replace its output" "$devcheck" remap "$work/fake.pt" \
  -o "$work/remapped.pt" --to cpu
has "remapped.pt" "remap refusal"
expect 0 "inspect the remapped file" "$devcheck" inspect "$work/remapped.pt"
expect 2 "inspect of a missing file" "$devcheck" inspect "$work/missing.pt"
has "missing.pt" "inspect of a missing file"

# A C++ program: a stray CPU tensor meets one on the fake device.
expect 0 "run: a C++ program's mismatch is reported" env PLANTED_DEVICE=privateuseone:0 \
  PLANTED_FAKE_LIBRARY="$fake_library" "$devcheck" run -- "$planted" mismatch
has "device mismatch in aten::add" "run (C++)"
has "planted.cc:" "run (C++)"
expect 1 "run --mode fail: exit 1 on the mismatch" env PLANTED_DEVICE=privateuseone:0 \
  PLANTED_FAKE_LIBRARY="$fake_library" "$devcheck" run --mode fail -- "$planted" mismatch
expect 0 "run --mode fail: exit 0 when clean" env PLANTED_DEVICE=privateuseone:0 \
  PLANTED_FAKE_LIBRARY="$fake_library" "$devcheck" run --mode fail -- "$planted" clean

# lint: torch-free, on a file with a torch.load that lacks map_location. The
# extra torch lanes build without it (run.sh says so: DEVCHECK_EXPECT_LINT=0);
# the default lane tests it.
if [ "${DEVCHECK_EXPECT_LINT:-1}" = 1 ]; then
  printf 'import torch\n\nstate = torch.load("model.pt")\n' >"$work/load.py"
  expect 1 "lint finds DC105" "$devcheck" lint "$work/load.py"
  has "load.py:3:" "lint"
  has "DC105" "lint"
  printf 'import torch\n\nstate = torch.load("model.pt", map_location="cpu")\n' >"$work/clean.py"
  expect 0 "lint: a clean file" "$devcheck" lint "$work/clean.py"
else
  echo "skip: lint (built with DEVCHECK_BUILD_LINT=OFF; the default lane tests it)"
fi

expect 0 "launch -n 2" "$devcheck" launch -n 2 -- /bin/sh -c 'echo "rank $RANK of $WORLD_SIZE"'
has "[rank0]: rank 0 of 2" "launch"
has "[rank1]: rank 1 of 2" "launch"

if [ -n "$python" ]; then
  # A Python program: the installed fake device, a stray tensor, an add.
  cat >"$work/planted.py" <<PY
import sys
import torch
sys.path.insert(0, "$fake_python")
import devcheck_fake
dev = devcheck_fake.load("$fake_library")
x = torch.ones(3, device=dev)
y = torch.tensor([1.0, 2.0, 3.0])
try:
    z = x + y  # the planted mismatch
except RuntimeError as e:
    print("torch raised:", str(e).splitlines()[0])
PY
  expect 1 "run: a Python program's mismatch fails --mode fail" "$devcheck" run --mode fail \
    -- "$python" "$work/planted.py"
  has "device mismatch in aten::add at $work/planted.py:9" "run (Python)"
  has "torch raised:" "run (Python)"
  expect 0 "the remapped checkpoint loads in torch" "$python" -c \
    "import torch; sd = torch.load('$work/remapped.pt'); print(sorted({str(v.device) for v in sd.values() if torch.is_tensor(v)}))"
  has "['cpu']" "torch.load of the remapped file"

  # A Python program written for CUDA: its CUDA path on fake CUDA, its bug named.
  cat >"$work/for_cuda.py" <<'PY'
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
x = torch.ones(3, device=device)
w = torch.ones(3)
print("device", device, (x * w).sum().item())
PY
  expect 0 "run without --fake-cuda: the CUDA path did not run" "$devcheck" run -- "$python" "$work/for_cuda.py"
  has "device cpu" "run (no fake CUDA)"
  has "its CUDA paths did not run" "run (no fake CUDA)"
  expect 1 "run --fake-cuda --mode fail: the bug fails as on a GPU" "$devcheck" run --fake-cuda \
    --mode fail -- "$python" "$work/for_cuda.py"
  has "found at least two devices, cuda:0 and cpu!" "run --fake-cuda"
  has "device mismatch in aten::mul at $work/for_cuda.py:5" "run --fake-cuda"
fi
echo "subcommands: $passed checks passed"
