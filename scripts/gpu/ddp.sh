#!/usr/bin/env bash
# GPU checks of the distributed module (run by scripts/gpu-check.sh BUILD OUT):
# DistributedDataParallel on NCCL with one rank per GPU (a world of 1 on a
# machine with one GPU), started here with the launcher's environment:
#   - the test worker trains a small MLP for 5 steps on every rank; the ranks'
#     parameters must be identical after every step;
#   - `devcheck train --nproc N --device cuda` trains the classifier for 300
#     steps; its report (NCCL, samples/s, accuracy) is kept.
set -uo pipefail
build=${1:?usage: ddp.sh BUILD_DIR OUT_DIR}
out=${2:?usage: ddp.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
status=0

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ' || true)
if [ "${gpus:-0}" -lt 1 ]; then
  echo "ddp: no GPU visible (nvidia-smi -L); nothing to check"
  exit 1
fi
world=$(( gpus > 8 ? 8 : gpus ))
port=$(( 29500 + RANDOM % 1000 ))

# run_ranks LOG_PREFIX COMMAND...: WORLD ranks of COMMAND, waits for all.
run_ranks() {
  local prefix=$1; shift
  local pids=() r rc=0
  for (( r = 0; r < world; r++ )); do
    RANK=$r LOCAL_RANK=$r WORLD_SIZE=$world LOCAL_WORLD_SIZE=$world MASTER_ADDR=127.0.0.1 \
      MASTER_PORT=$port timeout 600 "$@" >"$prefix.rank$r.out" 2>"$prefix.rank$r.err" &
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  port=$(( port + 1 ))
  return $rc
}

echo "== ddp: NCCL, $world rank(s): parameters identical across ranks after each step"
worker="$build/tests/devcheck_distributed_worker"
if [ -x "$worker" ]; then
  mkdir -p "$out/ddp_worker"
  if run_ranks "$out/ddp_worker/log" "$worker" train "$out/ddp_worker" cuda bucketed 5; then
    cat "$out"/ddp_worker/log.rank*.out
    grep -q "backend nccl" "$out/ddp_worker/log.rank0.out" || { echo "ddp: rank 0 did not use NCCL"; status=1; }
    /usr/bin/env python3 - "$out/ddp_worker" "$world" <<'PY' || status=1
import sys, torch
d, world = sys.argv[1], int(sys.argv[2])
def load(r, s):
    m = torch.jit.load(f"{d}/rank{r}_step{s}.pt")  # torch::save of one tensor
    return list(m.parameters())[0] if list(m.parameters()) else next(iter(m.state_dict().values()))
for s in range(5):
    ref = load(0, s)
    for r in range(1, world):
        assert torch.equal(ref, load(r, s)), f"step {s}: rank {r} differs from rank 0"
print(f"ddp: {world} rank(s), parameters identical after each of 5 steps")
PY
  else
    echo "ddp: the worker failed:"; cat "$out"/ddp_worker/log.rank*.err; status=1
  fi
else
  echo "ddp: $worker not built (configure with -DDEVCHECK_BUILD_TESTS=ON)"; status=1
fi

echo "== ddp: devcheck train --nproc $world --device cuda (300 steps)"
if run_ranks "$out/train_nproc" "$build/libexec/devcheck/devcheck-torch" train --nproc "$world" \
     --device cuda --max-steps 300 --json --out "$out/classifier_ddp.pt"; then
  cp "$out/train_nproc.rank0.out" "$out/train_nproc.json"
  /usr/bin/env python3 - "$out/train_nproc.json" <<'PY' || status=1
import json, sys
r = json.load(open(sys.argv[1]))
assert "nccl" in r["device_reason"], r["device_reason"]
print(f"train --nproc {r['world_size']}: {r['device']} ({r['device_reason']}), "
      f"{r['samples_per_second']:.0f} samples/s, loss {r['loss_start']:.3f} -> {r['loss_end']:.3f}, "
      f"test accuracy {r['test_accuracy']:.4f}")
PY
else
  echo "ddp: train --nproc failed:"; cat "$out"/train_nproc.rank*.err; status=1
fi
exit $status
