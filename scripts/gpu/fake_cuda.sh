#!/usr/bin/env bash
# Fake CUDA on a machine with a real GPU (run by scripts/gpu-check.sh):
#   bash scripts/gpu/fake_cuda.sh BUILD_DIR OUT_DIR
# 1. fake CUDA never hides a real GPU: `devcheck run --fake-cuda` refuses
#    (exit status 2, one line naming the device and --fake-cuda-force), and
#    devcheck.fake_cuda() raises; with --fake-cuda-force it runs.
# 2. a checkpoint written by torch.save under fake CUDA loads on the real GPU
#    with plain torch.load (it is tagged cuda:1 as a GPU's is), equal values;
# 3. the mismatch messages fake CUDA gives equal the GPU's own, op by op
#    (python/tests/fake_cuda_scenarios.py's messages, run on the real GPU);
# 4. a double backward's autograd order (which gradients a node adds first)
#    on the GPU is fake CUDA's (tests/fake_cuda/autograd_order.py's program).
# 5. float16 and bfloat16 ops: where the GPU computes one, fake CUDA computes
#    it, in the GPU's dtype; where the GPU refuses one, fake CUDA refuses it
#    (tests/fake_cuda/half_ops.py's sweep, its known differences listed).
set -uo pipefail
build=$(cd "${1:?usage: fake_cuda.sh BUILD_DIR OUT_DIR}" && pwd)
out=${2:?usage: fake_cuda.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
python=${PYTHON:-python3}
devcheck="$build/devcheck"
status=0
log="$out/fake_cuda.log"
: >"$log"

say() { echo "$@" | tee -a "$log"; }
expect() {  # expect NAME FILE PATTERN
  if grep -q -- "$3" "$2"; then say "PASS $1"; else say "FAIL $1 (no '$3' in $2)"; status=1; fi
}

say "== a real GPU is refused"
"$devcheck" run --fake-cuda -- "$python" -c "print('ran')" >"$out/refused.txt" 2>&1
echo "exit $?" >>"$out/refused.txt"
expect "refused with exit 2" "$out/refused.txt" "^exit 2"
expect "names the device" "$out/refused.txt" "real CUDA device"
expect "names the way past" "$out/refused.txt" "--fake-cuda-force"
if grep -q "^ran" "$out/refused.txt"; then say "FAIL the program ran"; status=1; fi

say "== forced, the program runs on fake CUDA and writes a checkpoint on cuda:1"
cat >"$out/save.py" <<'PY'
import sys
import torch
assert "fake CUDA" in torch.cuda.get_device_name(0), torch.cuda.get_device_name(0)
model = torch.nn.Linear(4, 3).to("cuda:1")
torch.save({"state": model.state_dict(), "step": 7}, sys.argv[1])
print("saved", {k: str(v.device) for k, v in model.state_dict().items()})
PY
"$devcheck" run --fake-cuda --fake-cuda-force -- "$python" "$out/save.py" "$out/fake.pt" >"$out/forced.txt" 2>&1
expect "forced run saved" "$out/forced.txt" "saved {'weight': 'cuda:1'"

say "== the real GPU loads it with plain torch.load"
"$python" - "$out/fake.pt" >"$out/load.txt" 2>&1 <<'PY'
import sys
import torch
c = torch.load(sys.argv[1])
devices = {k: str(v.device) for k, v in c["state"].items()}
print("loaded", devices, "step", c["step"])
assert set(devices.values()) == {"cuda:1"} if torch.cuda.device_count() > 1 else True
PY
expect "loaded on the GPU" "$out/load.txt" "loaded {'weight': 'cuda:"

say "== the GPU's own messages equal fake CUDA's (the scenario's expectations, on real CUDA)"
"$python" "$src/python/tests/fake_cuda_scenarios.py" mismatch_messages --via real >"$out/messages.txt" 2>&1
expect "messages equal" "$out/messages.txt" "messages ok"

say "== autograd's order on the GPU is fake CUDA's (tests/fake_cuda/autograd_order.py's program)"
# Its double backward adds three or more gradients at some nodes in the order
# the engine's device thread runs their producers; fake CUDA claims a GPU's
# order, not the CPU's (docs/fake-cuda-programs.md, "Found"). The values
# differ by the GPU's kernels; the graph and the order must not.
for how in real fake; do
  if [ "$how" = real ]; then
    AUTOGRAD_ORDER_DEVICE=cuda "$python" "$src/tests/fake_cuda/autograd_order.py" --config plain
  else
    AUTOGRAD_ORDER_DEVICE=cuda "$devcheck" run --fake-cuda --fake-cuda-force -- \
      "$python" "$src/tests/fake_cuda/autograd_order.py" --config plain
  fi >"$out/order_$how.txt" 2>&1
done
"$python" - "$out/order_real.txt" "$out/order_fake.txt" >"$out/order.txt" 2>&1 <<'PY'
import json, sys
runs = []
for path in sys.argv[1:]:
    lines = [l for l in open(path) if l.startswith("RESULT ")]
    runs.append(json.loads(lines[0][len("RESULT "):]) if lines else None)
real, fake = runs
if real is None or fake is None:
    print("order: a run printed no RESULT")
elif (real["names"], real["edges"]) != (fake["names"], fake["edges"]):
    print("order: the graphs differ (%d nodes real, %d fake)" % (len(real["names"]), len(fake["names"])))
else:
    differ = [n for n in real["arrivals"] if real["arrivals"][n] != fake["arrivals"][n]]
    print("order: %d nodes of 3+ inputs, %d ordered differently" % (len(real["arrivals"]), len(differ)))
    print("order equal" if not differ else "order differs at " + ", ".join(differ))
PY
cat "$out/order.txt" | tee -a "$log"
expect "autograd order equal" "$out/order.txt" "^order equal"

say "== 16-bit ops: fake CUDA computes and refuses what the GPU does (tests/fake_cuda/half_ops.py's sweep)"
for dtype in float16 bfloat16; do
  "$python" "$src/tests/fake_cuda/half_ops.py" --child cuda "$dtype" >"$out/half_real_$dtype.txt" 2>&1
  "$devcheck" run --fake-cuda --fake-cuda-force -- \
    "$python" "$src/tests/fake_cuda/half_ops.py" --child cuda "$dtype" >"$out/half_fake_$dtype.txt" 2>&1
done
PYTHONPATH="$src/tests/fake_cuda" "$python" - "$out" >"$out/half.txt" 2>&1 <<'PY'
import json, sys
from half_ops import KNOWN
out, bad = sys.argv[1], 0
for dtype in ("float16", "bfloat16"):
    runs = []
    for how in ("real", "fake"):
        lines = [l for l in open("%s/half_%s_%s.txt" % (out, how, dtype)) if l.startswith("RESULT ")]
        runs.append(json.loads(lines[0][len("RESULT "):]) if lines else None)
    real, fake = runs
    if real is None or fake is None:
        print("half %s: a run printed no RESULT" % dtype)
        bad += 1
        continue
    for op in sorted(real):
        r, f = real[op], fake.get(op, ["missing", ""])
        same = (r[0] == "error") == (f[0] == "error") and (r[0] == "error" or r[0] == f[0])
        if not same:
            known = " (known: %s)" % KNOWN[(dtype, op)] if (dtype, op) in KNOWN else ""
            print("half %s %s: GPU %s, fake CUDA %s%s" % (dtype, op, r[1] if r[0] == "error" else r[0],
                                                          f[1] if f[0] == "error" else f[0], known))
            bad += 0 if known else 1
    print("half %s: %d ops compared" % (dtype, len(real)))
print("half ops agree" if bad == 0 else "half ops: %d disagreements" % bad)
PY
cat "$out/half.txt" | tee -a "$log"
expect "16-bit ops agree" "$out/half.txt" "^half ops agree"

exit $status
