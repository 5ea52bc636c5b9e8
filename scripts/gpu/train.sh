#!/usr/bin/env bash
# GPU checks of the train module (run by scripts/gpu-check.sh BUILD OUT):
# the prefetcher's host->device bandwidth against a raw pinned copy in the
# same run (target >= 85%), the copy time hidden behind compute (>= 90%), and
# a training epoch with --amp (and one without, for comparison).
set -uo pipefail
build=${1:?usage: train.sh BUILD_DIR OUT_DIR}
out=${2:?usage: train.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
status=0

echo "== train: prefetch bandwidth and overlap"
if [ -x "$build/bench/prefetch_bench" ]; then
  "$build/bench/prefetch_bench" --batches 200 --batch-size 1024 | tee "$out/prefetch_bench.txt" || status=1
else
  echo "train: $build/bench/prefetch_bench not built (configure with -DDEVCHECK_BUILD_BENCH=ON)"
  status=1
fi

echo "== train: one epoch on cuda with --amp"
"$build/devcheck" train --device cuda --epochs 1 --amp --out "$out/classifier_amp.pt" \
  --json >"$out/train_amp.json" || status=1
echo "== train: one epoch on cuda without --amp"
"$build/devcheck" train --device cuda --epochs 1 --json >"$out/train_fp32.json" || status=1
/usr/bin/env python3 - "$out" <<'PY' || status=1
import json, sys
out = sys.argv[1]
for name in ("train_amp", "train_fp32"):
    r = json.load(open(f"{out}/{name}.json"))
    e = r["epochs"][0]
    print(f"{name}: {r['device']}, {e['samples_per_second']:.0f} samples/s, loss {e['mean_loss']:.4f}, "
          f"test accuracy {r['test_accuracy']:.4f}, sanitizer: {r['sanitizer'].splitlines()[0] if r['sanitizer'] else 'off'}")
PY
exit $status
