#!/usr/bin/env bash
# GPU check for the checkpoint module (run by scripts/gpu-check.sh on a CUDA
# machine with torch 2.x): save real checkpoints from CUDA tensors with
# torch 2.x, then check that devcheck inspects them, remaps them to cpu, and
# that torch.load reads the remapped files without map_location, bitwise equal.
# usage: checkpoint.sh BUILD_DIR OUT_DIR
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
devcheck="$build/devcheck"
work="$out/checkpoint"
mkdir -p "$work"
python=python3

"$python" - "$work" <<'PY'
import sys, torch
out = sys.argv[1]
assert torch.cuda.is_available(), "no CUDA"
dev = torch.device("cuda:0")
m = torch.nn.Sequential(torch.nn.Linear(8, 4), torch.nn.BatchNorm1d(4)).to(dev)
opt = torch.optim.Adam(m.parameters())
m(torch.randn(3, 8, device=dev)).sum().backward()
opt.step()
base = torch.arange(12.0, device=dev)
torch.save({"model": m.state_dict(), "optimizer": opt.state_dict(), "view": base[2:6], "base": base,
            "bf16": torch.ones(3, dtype=torch.bfloat16, device=dev),
            "config": {"device": "cuda:0"}}, f"{out}/cuda.pt")
torch.save(m.state_dict(), f"{out}/cuda_sd.pt")
torch.save(torch.nn.DataParallel(m).state_dict(), f"{out}/dp.pt")
if torch.cuda.device_count() > 1:
    torch.save({"w": torch.ones(4, device="cuda:1")}, f"{out}/cuda1.pt")
torch.jit.trace(m.eval(), torch.randn(2, 8, device=dev)).save(f"{out}/traced_cuda.pt")
print("saved with torch", torch.__version__)
PY

status=0
for f in "$work"/*.pt; do
  name=$(basename "$f" .pt)
  if ! "$devcheck" inspect "$f" > "$work/$name.inspect.txt"; then
    echo "FAIL: devcheck inspect $f"; status=1; continue
  fi
  "$devcheck" inspect --json "$f" > "$work/$name.inspect.json"
  grep -q '"cuda:' "$work/$name.inspect.json" || { echo "FAIL: $f not seen on cuda"; status=1; }
  if ! "$devcheck" remap "$f" -o "$work/$name.cpu.pt" --to cpu --rewrite-code --force > "$work/$name.remap.txt"; then
    echo "FAIL: devcheck remap $f"; status=1; continue
  fi
done

CUDA_VISIBLE_DEVICES="" "$python" - "$work" <<'PY' || status=1
import glob, sys, torch
out = sys.argv[1]
assert not torch.cuda.is_available()
def same(a, b, where):
    if isinstance(a, torch.Tensor):
        assert b.device.type == "cpu", where
        assert a.dtype == b.dtype and a.shape == b.shape and a.stride() == b.stride(), where
        assert torch.equal(a.cpu(), b), where
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a: same(a[k], b[k], f"{where}.{k}")
    elif isinstance(a, (list, tuple)):
        for i, (x, y) in enumerate(zip(a, b)): same(x, y, f"{where}.{i}")
    else:
        assert a == b, where
for f in sorted(glob.glob(f"{out}/*.cpu.pt")):
    orig = f.replace(".cpu.pt", ".pt")
    if "traced" in f:
        m = torch.jit.load(f)  # no map_location: it must be cpu-only now
        m(torch.randn(2, 8))
    else:
        same(torch.load(orig, map_location="cpu"), torch.load(f), f)
    print("OK", f)
d = torch.load(f"{out}/cuda.cpu.pt")
assert d["config"]["device"] == "cuda:0"
assert d["view"].storage().data_ptr() == d["base"].storage().data_ptr()
PY
[ $status -eq 0 ] && echo "checkpoint GPU check: PASS" || echo "checkpoint GPU check: FAIL"
exit $status
