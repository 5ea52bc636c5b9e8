#!/usr/bin/env bash
# GPU check for devcheck::rms_norm's CUDA kernel (run by scripts/gpu-check.sh
# on a CUDA machine, with the build made against torch 2.x's CUDA LibTorch):
#   1. the C++ tests named *_CUDA (kernel vs the composed reference, float32,
#      float16, bfloat16, forward and backward) and the Python check on cuda;
#   2. check_op on every device, cuda included (the whole custom_op suite);
#   3. speed on 4096 x 4096 bfloat16: the CUDA kernel against the same
#      computation composed of ATen ops, forward and forward+backward, target
#      >= 3x; against torch.nn.functional.rms_norm where torch has it.
# usage: custom_op.sh BUILD_DIR OUT_DIR
set -uo pipefail
build=$(cd "${1:?usage: custom_op.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: custom_op.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
here=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
lib="$build/examples/custom_op/libdevcheck_custom_op.so"
tests="$build/examples/custom_op/devcheck_custom_op_tests"
log="$out/custom_op.log"
status=0
: >"$log"
say() { echo "$@" | tee -a "$log"; }

say "== C++: devcheck_custom_op_tests (check_op on cpu, meta, fake, cuda; *_CUDA kernels)"
if "$tests" >"$out/custom_op_tests.txt" 2>&1; then
  say "PASS custom_op tests"
else
  say "FAIL custom_op tests (see custom_op_tests.txt)"
  status=1
fi
if grep -q "SKIPPED.*_CUDA" "$out/custom_op_tests.txt"; then
  say "FAIL CUDA tests were skipped: no GPU visible to the test binary"
  status=1
fi

say "== Python: rms_norm on cuda vs the reference (and F.rms_norm)"
if "$python" "$here/examples/custom_op/tests/rms_norm_check.py" "$lib" cuda >"$out/python_cuda.txt" 2>&1; then
  say "PASS python cuda ($(grep -c '^PASS' "$out/python_cuda.txt") checks)"
else
  say "FAIL python cuda (see python_cuda.txt)"
  status=1
fi

say "== speed: 4096 x 4096 bfloat16"
"$python" - "$lib" <<'PY' 2>&1 | tee -a "$log"
import sys
import torch

torch.ops.load_library(sys.argv[1])
dev = torch.device("cuda:0")
x = torch.randn(4096, 4096, device=dev, dtype=torch.bfloat16)
w = torch.randn(4096, device=dev, dtype=torch.bfloat16)
g = torch.randn_like(x)
eps = 1e-6

def composed(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w

def fused(x, w):
    return torch.ops.devcheck.rms_norm(x, w, eps)

def timed(fn, iters=50):
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(iters):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / iters

def forward(f):
    def run():
        with torch.no_grad():
            f(x, w)
    return run

def forward_backward(f):
    xa, wa = x.clone().requires_grad_(), w.clone().requires_grad_()
    def run():
        torch.autograd.grad(f(xa, wa), (xa, wa), g)
    return run

print(f"torch {torch.__version__}, {torch.cuda.get_device_name(dev)}")
ok = True
candidates = [("composed ATen ops", composed)]
if hasattr(torch.nn.functional, "rms_norm"):
    candidates.append(("F.rms_norm", lambda x, w: torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps)))
for phase, wrap in [("forward", forward), ("forward+backward", forward_backward)]:
    ours = timed(wrap(fused))
    for name, f in candidates:
        theirs = timed(wrap(f))
        target = 3.0 if name == "composed ATen ops" else 1.0
        speedup = theirs / ours
        verdict = "PASS" if speedup >= target else "FAIL"
        ok = ok and speedup >= target
        print(f"{verdict} {phase}: {name} {theirs:.3f} ms / devcheck::rms_norm {ours:.3f} ms = {speedup:.2f}x (target >= {target:.0f}x)")
sys.exit(0 if ok else 1)
PY
[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
exit $status
